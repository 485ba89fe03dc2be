/**
 * The ANN index's lifecycle: IVF_PQ ("dot") over a `<table>__docs` copy of a table's documents, current while it
 * holds as many rows as the table has documents; a damaged copy is dropped (it is derived) and built again by the
 * caller, who knows its partitions.
 */
import type * as lancedb from "@lancedb/lancedb";
import { lancedbSdk } from "../util/sdk";
import { isDamage, lanceReason, VectorStoreError } from "./lance-errors";
import { decodeRows, DOCS_SUFFIX, tableShape, toArrow, validateVector } from "./vector-layout";
import { heal, reading, stillDamaged } from "./vector-recovery";
import type { VectorTables } from "./vector-tables";
import type { AnnIndexOptions, AnnResult, AnnSearchOptions } from "./vector-store";

/** Builds the copy and its index (the caller holds the table's lock). */
export async function buildAnn(t: VectorTables, fingerprint: string, name: string, opts: AnnIndexOptions): Promise<void> {
  const readDocs = async () => {
    const table = await t.table(name);
    if (!table) throw new Error(`vector store ${fingerprint}: no vectors stored, nothing to index`);
    return { table, docs: await table.query().where("side = 'document'").select(["key", "id", "side", "vector"]).toArrow() };
  };
  let read;
  try {
    read = await readDocs();
  } catch (err) {
    if (!isDamage(err)) throw err;
    await heal(t, fingerprint, name, err);
    read = await readDocs().catch((e: unknown) => Promise.reject(stillDamaged(t, name, e)));
  }
  const { table, docs } = read;
  const { dims } = await tableShape(table);
  const n = docs.numRows;
  // PQ trains a 256-entry codebook per sub-vector: LanceDB refuses fewer than 256 rows.
  if (n < 256) throw new Error(`vector store ${fingerprint}: IVF_PQ needs at least 256 document vectors, have ${n}`);
  const partitions = opts.partitions ?? Math.max(1, Math.min(Math.round(Math.sqrt(n)), Math.floor(n / 40)));
  if (!(Number.isInteger(partitions) && partitions >= 1 && partitions <= n)) {
    throw new Error(`vector store ${fingerprint}: partitions must be an integer in [1, ${n}], got ${opts.partitions}`);
  }
  // PQ sub-vectors as LanceDB picks them: dims / 16, else dims / 8, else 1.
  const subVectors = dims % 16 === 0 ? dims / 16 : dims % 8 === 0 ? dims / 8 : 1;
  // Dropped, not mode "overwrite": overwriting a table that does not exist makes LanceDB warn on stderr.
  await t.dropIfThere(name + DOCS_SUFFIX);
  // Re-encoded (the query result's schema may differ in nullability), without tokens: searches read key, id, vector.
  const copy = await t.db.createTable(name + DOCS_SUFFIX, toArrow(decodeRows(docs.batches, dims), dims, false), { mode: "create" });
  t.adopt(copy);
  await copy.createIndex("vector", {
    // LanceDB defaults to L2; the index and the search must agree.
    config: lancedbSdk().Index.ivfPq({ distanceType: "dot", numPartitions: partitions, numSubVectors: subVectors }),
    replace: true,
  });
}

/** Whether the copy exists and covers every stored document vector (a damaged one is dropped and told: false). */
export async function annIsCurrent(t: VectorTables, fingerprint: string, name: string): Promise<boolean> {
  let docs;
  try {
    docs = await annCopy(t, fingerprint, name);
  } catch (err) {
    if (!(err instanceof VectorStoreError && err.code === "ANN_DAMAGED")) throw err;
    t.log(err.message);
    return false;
  }
  if (!docs) return false;
  const stored = await reading(t, fingerprint, name, () => undefined, (main) => main.countRows("side = 'document'"));
  return stored !== undefined && (await docs.countRows()) === stored;
}

/** Each query's approximate top k from a current copy; the caller checked `k`. */
export async function annSearch(t: VectorTables, fingerprint: string, name: string, queries: readonly Float32Array[], k: number, opts: AnnSearchOptions): Promise<AnnResult[]> {
  const docs = await annCopy(t, fingerprint, name);
  const stored = docs ? await reading(t, fingerprint, name, () => undefined, (main) => main.countRows("side = 'document'")) : undefined;
  if (!docs || stored === undefined) throw new Error(`vector store ${fingerprint}: no ANN index; call buildAnnIndex first`);
  const indexed = await docs.countRows();
  if (indexed !== stored) {
    throw new Error(`vector store ${fingerprint}: the ANN index covers ${indexed} documents but ${stored} are stored; call buildAnnIndex again`);
  }
  for (const knob of ["nprobes", "refineFactor"] as const) {
    const v = opts[knob];
    // LanceDB's native layer would reject it with an opaque conversion error.
    if (v != null && !(Number.isInteger(v) && v > 0)) throw new Error(`annSearch: ${knob} must be a positive integer, got ${v}`);
  }
  const { dims } = await tableShape(docs);
  queries.forEach((q, i) => validateVector(fingerprint, `query #${i}`, q, dims));
  try {
    return await Promise.all(queries.map((q) => searchOne(docs, q, k, opts)));
  } catch (err) {
    if (!isDamage(err)) throw err;
    throw await dropAnnCopy(t, fingerprint, name, err);
  }
}

/** The copy, if any; a damaged one (its latest version or a file) is dropped and reported as ANN_DAMAGED. */
async function annCopy(t: VectorTables, fingerprint: string, name: string): Promise<lancedb.Table | undefined> {
  try {
    return await t.table(name + DOCS_SUFFIX, false);
  } catch (err) {
    if (!isDamage(err)) throw err;
    throw await dropAnnCopy(t, fingerprint, name, err);
  }
}

async function dropAnnCopy(t: VectorTables, fingerprint: string, name: string, err: unknown): Promise<VectorStoreError> {
  await t.locked(name, () => t.dropIfThere(name + DOCS_SUFFIX));
  return new VectorStoreError(`vector store ${fingerprint}: the ANN copy ${t.where(name + DOCS_SUFFIX)} was damaged (${lanceReason(err)}) and has been dropped`, "ANN_DAMAGED", {
    cause: err,
    hint: "call buildAnnIndex again (an ann: retriever does so by itself on its next run)",
  });
}

async function searchOne(docs: lancedb.Table, q: Float32Array, k: number, opts: AnnSearchOptions): Promise<AnnResult> {
  // Without "_distance" LanceDB logs a deprecation warning on every query.
  let search = docs.vectorSearch(q).distanceType("dot").limit(k).select(["key", "id", "_distance"]);
  if (opts.nprobes != null) search = search.nprobes(opts.nprobes);
  if (opts.refineFactor != null) search = search.refineFactor(opts.refineFactor);
  const result = await search.toArrow();
  const idCol = result.getChild("id")!;
  const keyCol = result.getChild("key")!;
  const dist = result.getChild("_distance")!;
  const out: AnnResult = { ids: [], keys: [], scores: [] };
  for (let i = 0; i < result.numRows; i++) {
    out.ids.push(idCol.get(i) as string);
    out.keys.push(keyCol.get(i) as string);
    // LanceDB's "dot" distance is 1 − q·d; report the dot product itself.
    out.scores.push(1 - (dist.get(i) as number));
  }
  return out;
}
