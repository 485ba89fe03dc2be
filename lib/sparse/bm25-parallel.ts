/**
 * BM25 over both cores: a large batch of queries is split between the main thread and worker
 * threads (lib/sparse/bm25-worker.ts) that run the same scorer on a copy of the index, sent
 * once per index and kept while the process lives. Small batches stay on the main thread,
 * where a worker's start (about 50 ms) and the index copy would cost more than they save.
 */
import { splitWork, threads, WorkerPool } from "../util/worker";
import type { TopK } from "../util/top-k";
import type { Bm25Scorer, SearchOptions } from "./bm25";

/** Batches of fewer queries stay on the main thread. */
export const PARALLEL_MIN_QUERIES = 1000;

const pool = new WorkerPool(__filename, "bm25-worker");

/**
 * `scorer.searchIds(q, k, opts)` for every query, the same results in the same order, over the
 * main thread and `threads() - 1` workers when the batch has at least PARALLEL_MIN_QUERIES
 * queries (`GBR_THREADS=1` keeps it on the main thread).
 *
 * @example
 * const tops = await searchMany(scorer, bench.queries.map((q) => Int32Array.from(corpus.analyze(q.text))), 100);
 */
export async function searchMany(scorer: Bm25Scorer, queries: readonly Int32Array[], k: number, opts: SearchOptions = {}): Promise<TopK[]> {
  const clients = queries.length >= PARALLEL_MIN_QUERIES ? pool.take(threads() - 1) : [];
  if (!clients.length) return queries.map((q) => scorer.searchIds(q, k, opts));
  const id = pool.load(scorer.index, clients, (id) => ({ kind: "load", index: id, arrays: scorer.index.arrays() }));
  const chunks = splitWork(queries, clients.length + 1);
  const pending = clients.map((c, i) =>
    c
      .call<{ offsets: Int32Array; docs: Int32Array; scores: Float64Array }>({ kind: "search", index: id, params: scorer.params, queries: chunks[i + 1], k, positiveOnly: opts.positiveOnly === true })
      .then((t) => Array.from({ length: t.offsets.length - 1 }, (_, j) => ({ docs: t.docs.subarray(t.offsets[j], t.offsets[j + 1]), scores: t.scores.subarray(t.offsets[j], t.offsets[j + 1]) })))
      // A worker that failed or died costs time, never results: its share is searched here.
      .catch(() => chunks[i + 1].map((q) => scorer.searchIds(q, k, opts))),
  );
  // The main thread's share runs while the workers work on theirs.
  const mine = chunks[0].map((q) => scorer.searchIds(q, k, opts));
  return [...mine, ...(await Promise.all(pending)).flat()];
}
