/**
 * BM25 over both cores: a large batch of queries is split between the main thread and worker
 * threads (lib/sparse/bm25-worker.ts) that run the same scorer on a copy of the index, sent
 * once per index and kept while the process lives. Small batches stay on the main thread,
 * where a worker's start (about 50 ms) and the index copy would cost more than they save.
 */
import { startWorker, threads, WorkerClient } from "../util/worker";
import type { TopK } from "../util/top-k";
import type { Bm25Index, Bm25Scorer, SearchOptions } from "./bm25";

/** Batches of fewer queries stay on the main thread. */
export const PARALLEL_MIN_QUERIES = 1000;

let pool: WorkerClient[] = [];
const loaded = new WeakMap<Bm25Index, { id: number; clients: Set<WorkerClient> }>();
let nextIndexId = 0;

/** The workers besides the main thread (`threads() - 1`), started on first use and kept. */
function workers(): WorkerClient[] {
  const want = threads() - 1;
  pool = pool.filter((c) => c.alive);
  while (pool.length < want) pool.push(new WorkerClient(startWorker(__filename, "bm25-worker")));
  return pool.slice(0, want);
}

/** The index's id in the workers, sending it (copied: the main thread keeps using it) to any that lack it. */
function loadInto(index: Bm25Index, clients: readonly WorkerClient[]): number {
  let entry = loaded.get(index);
  if (!entry) loaded.set(index, (entry = { id: nextIndexId++, clients: new Set() }));
  for (const c of clients) {
    if (entry.clients.has(c)) continue;
    entry.clients.add(c);
    void c.call({ kind: "load", index: entry.id, arrays: index.arrays() }).catch(() => entry!.clients.delete(c));
  }
  return entry.id;
}

/**
 * Contiguous parts in order, the first (the main thread's) smaller by MAIN_SHARE: the main
 * thread also turns every result into a ranking of ids afterwards.
 */
function split<T>(items: readonly T[], parts: number): T[][] {
  const first = Math.floor((items.length * MAIN_SHARE) / (MAIN_SHARE + parts - 1));
  const out: T[][] = [items.slice(0, first)];
  const rest = items.length - first;
  for (let i = 0; i < parts - 1; i++) out.push(items.slice(first + Math.floor((i * rest) / (parts - 1)), first + Math.floor(((i + 1) * rest) / (parts - 1))));
  return out;
}

/** The main thread's part relative to a worker's (measured on 2 cores: 0.8 balances them). */
const MAIN_SHARE = 0.8;

/**
 * `scorer.searchIds(q, k, opts)` for every query, the same results in the same order, over the
 * main thread and `threads() - 1` workers when the batch has at least PARALLEL_MIN_QUERIES
 * queries (`GBR_THREADS=1` keeps it on the main thread).
 *
 * @example
 * const tops = await searchMany(scorer, bench.queries.map((q) => Int32Array.from(corpus.analyze(q.text))), 100);
 */
export async function searchMany(scorer: Bm25Scorer, queries: readonly Int32Array[], k: number, opts: SearchOptions = {}): Promise<TopK[]> {
  const clients = queries.length >= PARALLEL_MIN_QUERIES ? workers() : [];
  if (!clients.length) return queries.map((q) => scorer.searchIds(q, k, opts));
  const id = loadInto(scorer.index, clients);
  const chunks = split(queries, clients.length + 1);
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
