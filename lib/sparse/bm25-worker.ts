/**
 * The worker thread of lib/sparse/bm25-parallel.ts: holds the indexes it was sent (by id) and
 * answers batches of BM25 searches over them with the very code the main thread runs
 * (`Bm25Scorer`), so the results are the same to the bit.
 */
import { serveRequests } from "../util/worker";
import { Bm25Index, type Bm25IndexArrays, type Bm25Params, type Bm25Scorer } from "./bm25";

const indexes = new Map<number, Bm25Index>();
const scorers = new Map<string, Bm25Scorer>();

function indexOf(id: number): Bm25Index {
  const index = indexes.get(id);
  if (!index) throw new Error(`no index ${id} loaded in this worker`);
  return index;
}

serveRequests((m) => {
  if (m.kind === "load") {
    indexes.set(m.index as number, Bm25Index.fromArrays(m.arrays as Bm25IndexArrays));
    return true;
  }
  if (m.kind === "search") {
    const params = m.params as Bm25Params;
    const key = `${m.index} ${params.k1} ${params.b} ${params.epsilon}`;
    const scorer = scorers.get(key) ?? indexOf(m.index as number).withParams(params);
    scorers.set(key, scorer);
    const queries = m.queries as Int32Array[];
    const k = m.k as number;
    const positiveOnly = m.positiveOnly === true;
    const tops = queries.map((q) => scorer.searchIds(q, k, { positiveOnly }));
    // Packed into one array of each kind: two transfers instead of two per query.
    const offsets = new Int32Array(tops.length + 1);
    tops.forEach((t, i) => (offsets[i + 1] = offsets[i] + t.docs.length));
    const docs = new Int32Array(offsets[tops.length]);
    const scores = new Float64Array(offsets[tops.length]);
    tops.forEach((t, i) => {
      docs.set(t.docs, offsets[i]);
      scores.set(t.scores, offsets[i]);
    });
    return { offsets, docs, scores };
  }
  throw new Error(`unknown request kind '${String(m.kind)}'`);
});
