/** Descriptive stats, a paired t-test (beside the paper's randomization.ts) and Spearman's rho on per-query values. */
import { max, mean, median, min, quantile, sampleCorrelation, sampleStandardDeviation } from "simple-statistics";
import type { Qrels, QueryId } from "../types";
import { comparedQueries, compareRuns, type CompareOptions } from "./compare-runs";
import type { Metric, MetricValues } from "./metrics";
import { resolveMetric, type MetricName } from "./metric-names";
import { bootstrapCI, bootstrapCIs } from "./bootstrap";
import { holm, pairedRandomizationTest } from "./randomization";
import { missingPairs, PAPER_TESTS, paperSignificance } from "./significance";

// jStat ships no types: only its Student t CDF is used, typed here.
const { studentt } = require("jstat") as { studentt: { cdf(t: number, df: number): number } };

// simple-statistics only reads its inputs, but its types ask for mutable arrays.
const mutable = (xs: readonly number[]) => xs as number[];

function checkFinite(xs: readonly number[], what: string): void {
  // NaN would flow silently through the library's sums and sorts into a plausible-looking number.
  for (let i = 0; i < xs.length; i++) if (!Number.isFinite(xs[i])) throw new RangeError(`${what}: value ${i} is not a finite number (${xs[i]})`);
}

function checkPaired(a: readonly number[], b: readonly number[], what: string): void {
  if (a.length !== b.length) throw new RangeError(`${what} needs equally long inputs, got ${a.length} and ${b.length}`);
  checkFinite(a, what);
  checkFinite(b, what);
}

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

/** n pairs, the mean of a − b, t, its n − 1 degrees of freedom and the two-sided p. */
export type PairedTTest = { n: number; meanDiff: number; t: number; df: number; p: number };

/**
 * Two-sided paired t-test on d = a − b (jStat's t CDF). Not simple-statistics' `tTest(d, 0)`: its population sd
 * inflates t by √(n/(n−1)). All-zero differences give t = 0, p = 1; equal non-zero ones t = ±Infinity, p = 0.
 */
export function pairedTTest(a: readonly number[], b: readonly number[]): PairedTTest {
  checkPaired(a, b, "pairedTTest");
  const n = a.length;
  if (n < 2) throw new RangeError(`pairedTTest needs at least two pairs, got ${n}`);
  const d = a.map((x, i) => x - b[i]);
  const meanDiff = mean(d);
  const df = n - 1;
  const t = meanDiff / (sampleStandardDeviation(d) / Math.sqrt(n));
  if (Number.isNaN(t)) return { n, meanDiff, t: 0, df, p: 1 };
  // 2·F(−|t|) rather than 2·(1 − F(|t|)): no cancellation for small p. jStat gives NaN at ±∞.
  const p = Number.isFinite(t) ? Math.min(1, 2 * studentt.cdf(-Math.abs(t), df)) : 0;
  return { n, meanDiff, t, df, p };
}

/** 1-based ranks, tied values sharing the mean of the ranks they span. */
function averageRanks(xs: readonly number[]): number[] {
  const order = xs.map((_, i) => i).sort((i, j) => xs[i] - xs[j]);
  const ranks = new Array<number>(xs.length);
  for (let lo = 0; lo < order.length; ) {
    let hi = lo + 1;
    while (hi < order.length && xs[order[hi]] === xs[order[lo]]) hi++;
    for (let k = lo; k < hi; k++) ranks[order[k]] = (lo + 1 + hi) / 2;
    lo = hi;
  }
  return ranks;
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
  const { tests } = compareRuns([...perQuery].map(([name, pq]) => ({ name, perQuery: pq })), qids, opts);
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
 */
export const stats = {
  describe,
  bootstrapCI,
  bootstrapCIs,
  pairedRandomizationTest,
  pairedTTest,
  pairedTests,
  holm,
  PAPER_TESTS,
  paperSignificance,
  missingPairs,
  spearman,
  perQueryCorrelation,
} as const;
