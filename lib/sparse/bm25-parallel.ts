/**
 * BM25 over both cores: a large batch of queries is split between the main thread and worker
 * threads (lib/sparse/bm25-worker.ts) that run the same scorer on a copy of the index, sent
 * once per index and kept while the process lives. Small batches stay on the main thread,
 * where a worker's start (about 50 ms) and the index copy would cost more than they save.
 */
import { guidedChunks, shareChunks, threads, WorkerPool, type WorkerClient } from "../util/worker";
import type { TopK } from "../util/top-k";
import type { Bm25Scorer, SearchOptions } from "./bm25";

/** Batches of fewer queries stay on the main thread. */
export const PARALLEL_MIN_QUERIES = 1000;

const pool = new WorkerPool(__filename, "bm25-worker");

/**
 * The workers a batch of `n` queries is shared with: none below PARALLEL_MIN_QUERIES or with
 * `GBR_THREADS=1`, else `threads() - 1`.
 *
 * @example
 * const clients = workersFor(queries.length);
 */
export function workersFor(n: number): WorkerClient[] {
  return n >= PARALLEL_MIN_QUERIES ? pool.take(threads() - 1) : [];
}

/** The per-query fixed part of a search's cost, in postings: the top k and the result. */
const QUERY_OVERHEAD_POSTINGS = 500;

/**
 * A query's search cost, for sharing a batch evenly: the postings its terms hold (each term's
 * once, repeats being folded), plus a fixed part. Long and short queries differ by ten times in
 * postings, so an even count of queries is not an even share of work.
 *
 * @example
 * const chunks = guidedChunks(ids, 2, searchCost(scorer));
 */
export function searchCost(scorer: Bm25Scorer): (termIds: ArrayLike<number>) => number {
  const { index } = scorer;
  const terms = index.termStart.length - 1;
  return (termIds) => {
    const seen = new Set<number>();
    let postings = QUERY_OVERHEAD_POSTINGS;
    for (let i = 0; i < termIds.length; i++) {
      const t = termIds[i];
      // Words outside the vocabulary have ids past its end, and no postings.
      if (t < 0 || t >= terms || seen.has(t)) continue;
      seen.add(t);
      postings += index.docFreq(t);
    }
    return postings;
  };
}

/**
 * One worker's share of a batch: `scorer.searchIds` over `queries` in the worker (the index sent
 * once), or on this thread when the worker fails — a failure costs time, never results.
 *
 * @example
 * const theirs = searchInWorker(clients[0], scorer, part, 100, {});
 */
export function searchInWorker(client: WorkerClient, scorer: Bm25Scorer, queries: readonly Int32Array[], k: number, opts: SearchOptions = {}): Promise<TopK[]> {
  const id = pool.load(scorer.index, [client], (id) => ({ kind: "load", index: id, arrays: scorer.index.arrays() }));
  return client
    .call<{ offsets: Int32Array; docs: Int32Array; scores: Float64Array }>({ kind: "search", index: id, params: scorer.params, queries, k, positiveOnly: opts.positiveOnly === true })
    .then((t) => Array.from({ length: t.offsets.length - 1 }, (_, j) => ({ docs: t.docs.subarray(t.offsets[j], t.offsets[j + 1]), scores: t.scores.subarray(t.offsets[j], t.offsets[j + 1]) })))
    .catch(() => queries.map((q) => scorer.searchIds(q, k, opts)));
}

/**
 * `scorer.searchIds(q, k, opts)` for every query, the same results in the same order, over the
 * main thread and the workers of `workersFor` (`GBR_THREADS=1` keeps it on the main thread).
 *
 * @example
 * const tops = await searchMany(scorer, bench.queries.map((q) => Int32Array.from(corpus.analyze(q.text))), 100);
 */
export async function searchMany(scorer: Bm25Scorer, queries: readonly Int32Array[], k: number, opts: SearchOptions = {}): Promise<TopK[]> {
  const clients = workersFor(queries.length);
  if (!clients.length) return queries.map((q) => scorer.searchIds(q, k, opts));
  const chunks = guidedChunks<Int32Array>(queries, clients.length + 1, searchCost(scorer));
  const tops = await shareChunks(
    chunks,
    clients,
    (chunk) => chunk.map((q) => scorer.searchIds(q, k, opts)),
    (client, chunk) => searchInWorker(client, scorer, chunk, k, opts),
  );
  return tops.flat();
}

