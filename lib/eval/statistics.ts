/** Descriptive stats, a paired t-test (beside the paper's randomization.ts) and Spearman's rho on per-query values. */
import { max, mean, median, min, quantile, sampleCorrelation, sampleStandardDeviation } from "simple-statistics";
import { averageRanks, checkFinite, checkPaired, correct, pairedTTest, wilcoxonTest } from "./paired-tests";
import type { Qrels, QueryId } from "../types";
import { comparedQueries, compareRuns, type CompareOptions } from "./compare-runs";
import type { Metric, MetricValues } from "./metrics";
import { resolveMetric, type MetricName } from "./metric-names";
import { bootstrapCI, bootstrapCIs } from "./bootstrap";
import { holm, pairedRandomizationTest } from "./randomization";
import { missingPairs, PAPER_TESTS, paperSignificance } from "./significance";

// simple-statistics only reads its inputs, but its types ask for mutable arrays.
const mutable = (xs: readonly number[]) => xs as number[];

export { pairedTTest, type PairedTTest } from "./paired-tests";

export type Descriptive = Record<"n" | "mean" | "sd" | "median" | "q1" | "q3" | "min" | "max", number>;

/**
 * The sd divides by n − 1 and is NaN for one value, not a 0 reading as "perfectly stable". Quartiles are
 * simple-statistics' R type 2, not numpy's linear type 7: for [1, 2, 3, 4], q1 is 1.5 here and 1.75 in numpy.
 */
export function describe(values: readonly number[]): Descriptive {
  if (values.length === 0) throw new RangeError("describe needs at least one value");
  checkFinite(values, "describe");
  const x = mutable(values);
  return {
    n: x.length,
    mean: mean(x),
    // The library throws below two values; NaN keeps describe total for any non-empty list.
    sd: x.length < 2 ? NaN : sampleStandardDeviation(x),
    median: median(x),
    q1: quantile(x, 0.25),
    q3: quantile(x, 0.75),
    min: min(x),
    max: max(x),
  };
}

/**
 * Pearson's r of average ranks; not `sampleRankCorrelation`, which ranks ties by position (per-query metrics tie:
 * [0, 0, 0.2, 0.5, 1] vs [0, 0.1, 0, 0.6, 0.6] is 0.9 by position, 0.73 averaged). NaN when either is constant.
 */
export function spearman(a: readonly number[], b: readonly number[]): number {
  checkPaired(a, b, "spearman");
  if (a.length < 2) throw new RangeError(`spearman needs at least two pairs, got ${a.length}`);
  return sampleCorrelation(averageRanks(a), averageRanks(b));
}

export type RunCorrelation = { a: string; b: string; rho: number; n: number };

/** Spearman's rho of `metric` per pair of runs over shared queries: do two methods find the same queries hard? */
export function perQueryCorrelation(perQuery: ReadonlyMap<string, ReadonlyMap<QueryId, MetricValues>>, name: MetricName): RunCorrelation[] {
  const metric = resolveMetric(name);
  const runs = [...perQuery];
  return runs.flatMap(([a, qa], i) =>
    runs.slice(i + 1).map(([b, qb]) => {
      const shared = [...qa.keys()].filter((q) => qb.has(q));
      // A convenience over many pairs should not die on one pair that barely overlaps.
      const of = (pq: ReadonlyMap<QueryId, MetricValues>) => shared.map((q) => pq.get(q)![metric]);
      const rho = shared.length < 2 ? NaN : spearman(of(qa), of(qb));
      return { a, b, rho, n: shared.length };
    }),
  );
}

/** A `pairedTests` row: the randomization test as `gbr compare` gives it, beside the paired t-test. */
export type PairedTestRow = ReturnType<typeof pairedTests>[number];

/** `gbr compare`'s randomization test and the paired t-test per pair × metric; `disagree`: raw p either side of 0.05. */
export function pairedTests(
  perQuery: ReadonlyMap<string, ReadonlyMap<QueryId, MetricValues>>,
  queries: Qrels | Iterable<QueryId>,
  opts: CompareOptions = {},
) {
  const qids = comparedQueries(queries);
  const { tests } = compareRuns([...perQuery].map(([name, pq]) => ({ name, perQuery: pq })), qids, { ...opts, test: "randomization" });
  const column = (run: string, m: Metric) => qids.map((q) => perQuery.get(run)!.get(q)?.[m] ?? 0);
  return tests.map(({ p, pHolm, ...test }) => {
    const pTTest = pairedTTest(column(test.a, test.metric), column(test.b, test.metric)).p;
    // Keys in this order (a, b, metric, means, delta, then the p-values): the notebook's table follows it.
    return { ...test, pRandomization: p, pTTest, pHolm, disagree: p < 0.05 !== pTTest < 0.05 };
  });
}

/**
 * The statistics of per-query scores by name: descriptive, paired tests, the paper's 20, rank correlation.
 *
 * @example
 * const pq = result.assessment.perQuery;                 // experiment -> query -> metrics
 * stats.pairedTests(pq, bench.qrels, { metrics: ["nDCG@10"] });
 * stats.describe([...pq.get("lsi")!.values()].map((m) => m["Recall@100"])).median;
 * stats.paperSignificance(pq, bench.qrels).computed;      // of 20
 * stats.correct([0.01, 0.04, 0.03], "bh");              // [0.03, 0.04, 0.04]
 */
export const stats = {
  describe,
  bootstrapCI,
  bootstrapCIs,
  pairedRandomizationTest,
  pairedTTest,
  wilcoxonTest,
  pairedTests,
  holm,
  correct,
  PAPER_TESTS,
  paperSignificance,
  missingPairs,
  spearman,
  perQueryCorrelation,
} as const;
