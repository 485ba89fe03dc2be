/** k-fold CV tuning: the honest estimate beside the paper's oracle, an upper bound (+0.05/+0.01, DESIGN.md §7). */
import type { QueryId } from "../types";
import { meanOf, type MetricValues } from "./metrics";
import { firstBest, type SweepEntry, type SweepResult } from "./sweep-result";
import { Pcg64 } from "../numeric/random";

/** A fold: the setting chosen on the other folds' queries, its value there, and its mean on the held-out queries. */
type CvFold = { fold: number; k1: number; b: number; trainValue: number; testQueryIds: QueryId[]; testMean: MetricValues };

/** The honest estimate next to the oracle (best on all queries, the paper's number) and the default (1.5, 0.75). */
export type CvResult = ReturnType<typeof crossValidatedTuning>;

/** Folds (default 5) and shuffle seed (default 42); the metric tuned is the sweep's. */
export type CvOptions = { folds?: number; seed?: number };

/** Queries shuffled as numpy's `default_rng(seed)`, dealt round-robin into k folds, each scored by the others' best. */
export function crossValidatedTuning(sweep: SweepResult, queryIds: readonly QueryId[], opts: CvOptions = {}) {
  const k = opts.folds ?? 5;
  const seed = opts.seed ?? 42;
  const metric = sweep.metric;
  if (!Number.isInteger(k) || k < 2) throw new RangeError(`folds must be an integer >= 2, got ${k}`);
  if (queryIds.length < k) throw new RangeError(`${queryIds.length} queries cannot fill ${k} folds`);
  if (new Set(queryIds).size !== queryIds.length) throw new RangeError("queryIds has duplicates");
  if (sweep.grid.length === 0) throw new RangeError("the sweep has no settings");
  const unseen = queryIds.find((q) => !sweep.grid[0].perQuery.has(q));
  if (unseen !== undefined) throw new RangeError(`query '${unseen}' was not evaluated by the sweep`);

  const foldOf = new Map<QueryId, number>();
  Pcg64.fromSeed(seed).shuffle(queryIds.slice()).forEach((q, i) => foldOf.set(q, i % k));

  const meanOver = (entry: SweepEntry, ids: readonly QueryId[]): MetricValues => meanOf(ids.map((q) => entry.perQuery.get(q)!));
  const perQuery = new Map<QueryId, MetricValues>();
  const folds: CvFold[] = [];
  for (let f = 0; f < k; f++) {
    // Both sides keep the order of `queryIds`, so the sums (and any float tie) do not depend on the shuffle.
    const train = queryIds.filter((q) => foldOf.get(q) !== f);
    const test = queryIds.filter((q) => foldOf.get(q) === f);
    const chosen = firstBest(sweep.grid, (e) => meanOver(e, train)[metric], sweep.defaultEntry);
    for (const q of test) perQuery.set(q, chosen.perQuery.get(q)!);
    folds.push({ fold: f, k1: chosen.k1, b: chosen.b, trainValue: meanOver(chosen, train)[metric], testQueryIds: test, testMean: meanOver(chosen, test) });
  }
  const pooled = new Map(queryIds.map((q) => [q, perQuery.get(q)!] as const));

  const oracleEntry = firstBest(sweep.grid, (e) => meanOver(e, queryIds)[metric], sweep.defaultEntry);
  const oracleMean = meanOver(oracleEntry, queryIds);
  const defaultMean = meanOver(sweep.defaultEntry, queryIds);
  return {
    metric,
    folds,
    // Pooled held-out means, each query once (the mean of fold means would over-weigh small folds).
    mean: meanOf([...pooled.values()]),
    perQuery: pooled,
    oracle: { k1: oracleEntry.k1, b: oracleEntry.b, value: oracleMean[metric], mean: oracleMean },
    default: { k1: sweep.defaultEntry.k1, b: sweep.defaultEntry.b, value: defaultMean[metric], mean: defaultMean },
  };
}
