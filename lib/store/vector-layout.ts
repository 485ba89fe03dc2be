/** A LanceDB vector table's layout: naming, Arrow schema and codec, row checks. */
import { createHash } from "node:crypto";
import type * as lancedb from "@lancedb/lancedb";
import type { Data, Field, FixedSizeList, Float32, RecordBatch, Schema, Table as ArrowTable } from "apache-arrow";
import { arrowSdk } from "../util/sdk";
import type { CachedVector, VectorRow } from "./vector-store";

/** The table name: LanceDB panics on chars outside [A-Za-z0-9_.-], so those become `_` and a hash is appended. */
export function tableName(fingerprint: string): string {
  if (fingerprint === "") throw new Error("vector store: empty fingerprint");
  const safe = fingerprint.replace(/[^A-Za-z0-9_-]/g, "_");
  if (safe === fingerprint) return safe;
  return `${safe}-${createHash("sha256").update(fingerprint).digest("hex").slice(0, 12)}`;
}

/** key, id, side, vector, and a nullable int32 `tokens` column unless the table predates it. */
function schemaFor(dims: number, withTokens: boolean): Schema {
  const { Field, FixedSizeList, Float32, Int32, Schema, Utf8 } = arrowSdk();
  const fields: Field[] = [
    new Field("key", new Utf8(), false),
    new Field("id", new Utf8(), false),
    new Field("side", new Utf8(), false),
    // Nullable items: the type LanceDB itself gives vector columns, so its vector APIs accept it.
    new Field("vector", new FixedSizeList(dims, new Field("item", new Float32(), true)), false),
  ];
  if (withTokens) fields.push(new Field("tokens", new Int32(), true));
  return new Schema(fields);
}

/** Rows as one Arrow record batch, the vectors in one contiguous Float32 buffer (exact to the bit, not row by row). */
export function toArrow(rows: readonly VectorRow[], dims: number, withTokens: boolean): ArrowTable {
  const { Float32, Int32, makeData, RecordBatch, Struct, Table: ArrowTable, Utf8, vectorFromArray } = arrowSdk();
  const schema = schemaFor(dims, withTokens);
  const flat = new Float32Array(rows.length * dims);
  rows.forEach((r, i) => flat.set(r.vector, i * dims));
  const vectors = makeData({
    type: schema.fields[3].type as FixedSizeList<Float32>,
    length: rows.length,
    nullCount: 0,
    child: makeData({ type: new Float32(), length: flat.length, data: flat }),
  });
  const strings = (pick: (r: VectorRow) => string) => vectorFromArray(rows.map(pick), new Utf8()).data[0];
  const children: Data[] = [strings((r) => r.key), strings((r) => r.id), strings((r) => r.side), vectors];
  // null, not 0, for an unknown count: the reader must be able to tell it from a free text.
  if (withTokens) children.push(vectorFromArray(rows.map((r) => r.tokens ?? null), new Int32()).data[0]);
  const batch = new RecordBatch(
    schema,
    makeData({ type: new Struct(schema.fields), length: rows.length, nullCount: 0, children }),
  );
  return new ArrowTable([batch]);
}

/** What a table's schema says: the vector size, and whether it has the tokens column. */
export async function tableShape(table: lancedb.Table): Promise<{ dims: number; tokens: boolean }> {
  const fields = (await table.schema()).fields;
  const type = fields.find((f) => f.name === "vector")?.type;
  // A type-id test, not instanceof: the schema comes from LanceDB's copy of apache-arrow.
  if (!type || !arrowSdk().DataType.isFixedSizeList(type)) throw new Error(`vector store: table ${table.name} has no fixed-size vector column`);
  return { dims: type.listSize, tokens: fields.some((f) => f.name === "tokens") };
}

/** SQL string literal (keys are hex, but ids must not break the query). */
export function sqlString(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/** Copies `key → {vector, tokens}` out of query results, keeping only wanted keys (all when undefined). */
export function collect(batches: Iterable<RecordBatch>, dims: number, wanted: Set<string> | undefined, out: Map<string, CachedVector>): void {
  for (const batch of batches) {
    const keys = batch.getChild("key");
    const vec = batch.getChild("vector");
    if (!keys || !vec) throw new Error("vector store: query result lacks key or vector column");
    const tokens = batch.getChild("tokens");
    const list = vec.data[0];
    const child = list.children[0];
    const values = child.values as Float32Array;
    for (let i = 0; i < batch.numRows; i++) {
      const key = keys.get(i) as string;
      if (wanted && !wanted.has(key)) continue;
      if (out.has(key)) continue; // a duplicate row (only possible after racing writers): same vector
      const start = child.offset + (list.offset + i) * dims;
      // slice, not subarray: a view would pin the whole result buffer for a few vectors.
      const entry: CachedVector = { vector: values.slice(start, start + dims) };
      const t: unknown = tokens?.get(i);
      if (typeof t === "number") entry.tokens = t;
      out.set(key, entry);
    }
  }
}

/** Throws, naming the row's id, unless the row is well formed and its vector has `dims` finite values. */
export function validateRow(fingerprint: string, r: VectorRow, dims: number): void {
  const who = `vector store ${fingerprint}: row for id '${r.id}'`;
  if (typeof r.key !== "string" || r.key === "") throw new Error(`${who} has no key`);
  if (typeof r.id !== "string") throw new Error(`${who} has a non-string id`);
  if (r.side !== "query" && r.side !== "document") throw new Error(`${who} has side '${String(r.side)}', expected "query" or "document"`);
  if (r.tokens !== undefined && !(Number.isInteger(r.tokens) && r.tokens >= 0 && r.tokens <= 0x7fffffff)) {
    throw new Error(`${who} has tokens ${String(r.tokens)}, expected a non-negative 32-bit integer or none`);
  }
  const vector = r.vector;
  const vWho = `vector store ${fingerprint}: vector for id '${r.id}'`;
  if (!(vector instanceof Float32Array)) throw new Error(`${vWho} is not a Float32Array`);
  if (vector.length === 0) throw new Error(`${vWho} is empty`);
  if (vector.length !== dims) throw new Error(`${vWho} has ${vector.length} dimensions, the table has ${dims}`);
  for (let i = 0; i < vector.length; i++) {
    if (!Number.isFinite(vector[i])) throw new Error(`${vWho} holds ${vector[i]} at position ${i}`);
  }
}

/** Rows of query results with key, id, side and vector columns, in order (a repeated key gets its first vector). */
export function decodeRows(batches: readonly RecordBatch[], dims: number): VectorRow[] {
  const rows: VectorRow[] = [];
  for (const batch of batches) {
    const got = new Map<string, CachedVector>();
    collect([batch], dims, undefined, got);
    const keys = batch.getChild("key");
    const ids = batch.getChild("id");
    const sides = batch.getChild("side");
    if (!keys || !ids || !sides) throw new Error("vector store: query result lacks key, id or side column");
    for (let i = 0; i < batch.numRows; i++) {
      const key = keys.get(i) as string;
      const hit = got.get(key)!;
      const side = sides.get(i) as string;
      rows.push({ key, id: ids.get(i) as string, side: side === "query" ? "query" : "document", vector: hit.vector, ...(hit.tokens === undefined ? {} : { tokens: hit.tokens }) });
    }
  }
  return rows;
}
