/**
 * The worker thread of `bm25SweepMany` (./sweep-run.ts): holds the corpora it was sent (index
 * arrays and doc ids, by id) and sweeps the chunks of queries it is handed with `packQueries`,
 * the very computation of the main thread, so the numbers are the same to the bit.
 */
import { serveRequests } from "../util/worker";
import { Bm25Index, type Bm25IndexArrays } from "../sparse/bm25";
import { PositionalEvaluator } from "../eval/metrics";
import { QuerySweep } from "../sparse/sweep";
import { packQueries } from "./sweep-run";

const corpora = new Map<number, { index: Bm25Index; docIds: string[] }>();
/** The engine of the last sweep, reused by its next chunks. */
let last: { key: string; engine: QuerySweep; evaluator: PositionalEvaluator } | undefined;

serveRequests((m) => {
  if (m.kind === "load") {
    corpora.set(m.corpus as number, { index: Bm25Index.fromArrays(m.arrays as Bm25IndexArrays), docIds: m.docIds as string[] });
    return true;
  }
  if (m.kind === "sweep") {
    const corpus = corpora.get(m.corpus as number);
    if (!corpus) throw new Error(`no corpus ${String(m.corpus)} loaded in this worker`);
    const queries = (m.queries as { termIds: Int32Array; gold: string[] }[]).map((q) => ({ termIds: q.termIds, gold: new Set(q.gold) }));
    const settings = m.settings as { k1: number; b: number }[];
    const key = JSON.stringify([m.corpus, m.epsilon, settings]);
    if (last?.key !== key) last = { key, engine: new QuerySweep(corpus, settings, m.epsilon as number), evaluator: new PositionalEvaluator(corpus.docIds) };
    return packQueries(last.engine, last.evaluator, settings.length, queries);
  }
  throw new Error(`unknown request kind '${String(m.kind)}'`);
});
