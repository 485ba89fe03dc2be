/** A LanceDB vector table's layout: naming, Arrow schema and codec, row checks, salvage of a damaged table. */
import { createHash } from "node:crypto";
import type * as lancedb from "@lancedb/lancedb";
import { GbrError, type GbrErrorOptions } from "../util/errors";
// Building Arrow columns ourselves puts a batch in as one contiguous buffer, exact to the bit, not row by row.
import type { Data, Field, FixedSizeList, Float32, RecordBatch, Schema, Table as ArrowTable } from "apache-arrow";
import { arrowSdk } from "../util/sdk";
import { isDamage } from "./lance-errors";
import type { CachedVector } from "./types";
import type { VectorRow } from "./vector-store";

/** Suffix of the per-fingerprint table that holds document rows and the ANN index. */
export const DOCS_SUFFIX = "__docs";

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

/** Rows as one Arrow table of one record batch, the vectors copied into a single Float32 buffer. */
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
    makeData({
      type: new Struct(schema.fields),
      length: rows.length,
      nullCount: 0,
      children,
    }),
  );
  return new ArrowTable([batch]);
}

/** What a table's schema says: the vector size, and whether it has the tokens column. */
export interface TableShape {
  dims: number;
  tokens: boolean;
}

export async function tableShape(table: lancedb.Table): Promise<TableShape> {
  const fields = (await table.schema()).fields;
  const type = fields.find((f) => f.name === "vector")?.type;
  // A type-id test, not instanceof: the schema comes from LanceDB's copy of apache-arrow.
  if (!type || !arrowSdk().DataType.isFixedSizeList(type)) throw new Error(`vector store: table ${table.name} has no fixed-size vector column`);
  return { dims: type.listSize, tokens: fields.some((f) => f.name === "tokens") };
}

export async function tableDims(table: lancedb.Table): Promise<number> {
  return (await tableShape(table)).dims;
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
  validateVector(fingerprint, r.id, r.vector, dims);
}

export function validateVector(fingerprint: string, id: string, vector: Float32Array, dims: number): void {
  const who = `vector store ${fingerprint}: vector for id '${id}'`;
  if (!(vector instanceof Float32Array)) throw new Error(`${who} is not a Float32Array`);
  if (vector.length === 0) throw new Error(`${who} is empty`);
  if (vector.length !== dims) throw new Error(`${who} has ${vector.length} dimensions, the table has ${dims}`);
  for (let i = 0; i < vector.length; i++) {
    if (!Number.isFinite(vector[i])) throw new Error(`${who} holds ${vector[i]} at position ${i}`);
  }
}

/**
 * A vector table that could not be repaired ("DAMAGED"), whose damaged ANN copy was dropped ("ANN_DAMAGED"), or that
 * LanceDB failed to read or write for another reason ("FAILED"); the message names the table, the hint a remedy.
 */
export type VectorStoreErrorCode = "DAMAGED" | "ANN_DAMAGED" | "FAILED";

export class VectorStoreError extends GbrError {
  declare readonly code: VectorStoreErrorCode;

  constructor(message: string, code: VectorStoreErrorCode, opts: GbrErrorOptions = {}) {
    super(message, code, opts);
    this.name = "VectorStoreError";
  }
}

/** What `salvageRows` could read: rows (first of each key), the manifest's total, rows lost, the first error. */
export interface Salvage {
  rows: VectorRow[];
  total: number;
  lost: number;
  /** Undefined when every row could be read. */
  cause?: unknown;
}

/**
 * Reads every row still readable, split at fragment starts so a damaged file costs only its own rows. A fragment whose
 * first row fails is given up whole; other failing ranges are halved down to single rows, each retried once.
 */
export async function salvageRows(table: lancedb.Table): Promise<Salvage> {
  const total = await table.countRows(); // from the manifest: no data file is read
  const { dims, tokens } = await tableShape(table);
  const columns = tokens ? ["key", "id", "side", "vector", "tokens"] : ["key", "id", "side", "vector"];
  const bounds = await fragmentBounds(table, total);
  const batches: RecordBatch[] = [];
  let lost = 0;
  let cause: unknown;
  const read = async (lo: number, hi: number): Promise<boolean> => {
    try {
      const offsets = Array.from({ length: hi - lo }, (_, i) => lo + i);
      batches.push(...(await table.takeOffsets(offsets).select(columns).toArrow()).batches);
      return true;
    } catch (err) {
      if (!isDamage(err)) throw err;
      cause ??= err;
      return false;
    }
  };
  const walk = async (lo: number, hi: number, wholeFragment: boolean): Promise<void> => {
    if (await read(lo, hi)) return;
    const inner = bounds.filter((b) => b > lo && b < hi);
    if (inner.length > 0) {
      let from = lo;
      for (const b of [...inner, hi]) {
        await walk(from, b, true);
        from = b;
      }
      return;
    }
    if (hi - lo === 1) {
      // Once more before giving the row up: a damaged file fails every time.
      if (!(await read(lo, hi))) lost++;
      return;
    }
    if (wholeFragment && !(await read(lo, lo + 1))) {
      lost += hi - lo;
      return;
    }
    const mid = lo + Math.floor((hi - lo) / 2);
    await walk(lo, mid, false);
    await walk(mid, hi, false);
  };
  if (total > 0) await walk(0, total, false);
  return { rows: decodeRows(batches, dims), total, lost, cause };
}

/** Row offsets where fragments begin, from the row counts each version's manifest records. */
async function fragmentBounds(table: lancedb.Table, total: number): Promise<number[]> {
  const bounds = new Set<number>();
  try {
    for (const v of await table.listVersions()) {
      const n = Number((v.metadata as Record<string, string> | undefined)?.total_rows);
      // Counts from before a rebuild are not fragment starts; as extra split points they only shrink some reads.
      if (Number.isInteger(n) && n > 0 && n < total) bounds.add(n);
    }
  } catch {
    // Without the history the search halves ranges instead: slower, same result.
  }
  return [...bounds].sort((a, b) => a - b);
}

/** Rows of query results with every column, the first row of each key kept. */
function decodeRows(batches: readonly RecordBatch[], dims: number): VectorRow[] {
  const rows: VectorRow[] = [];
  const seen = new Set<string>();
  for (const batch of batches) {
    const got = new Map<string, CachedVector>();
    collect([batch], dims, undefined, got);
    const keys = batch.getChild("key");
    const ids = batch.getChild("id");
    const sides = batch.getChild("side");
    if (!keys || !ids || !sides) throw new Error("vector store: salvage read lacks key, id or side column");
    for (let i = 0; i < batch.numRows; i++) {
      const key = keys.get(i) as string;
      if (seen.has(key)) continue;
      seen.add(key);
      const hit = got.get(key)!;
      const side = sides.get(i) as string;
      rows.push({ key, id: ids.get(i) as string, side: side === "query" ? "query" : "document", vector: hit.vector, ...(hit.tokens === undefined ? {} : { tokens: hit.tokens }) });
    }
  }
  return rows;
}
