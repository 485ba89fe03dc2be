/**
 * Descriptive statistics, a paired t-test and Spearman's rank correlation over per-query values,
 * computed by simple-statistics; jStat supplies the Student t distribution, which
 * simple-statistics lacks. The paper's test stays the randomization test (randomization.ts):
 * the t-test is here to set beside it, since readers of IR papers often expect one.
 */
import { max, mean, median, min, quantile, sampleCorrelation, sampleStandardDeviation } from "simple-statistics";
import type { DocId, QueryId } from "../types";
import { comparedQueries, compareRuns, type CompareOptions } from "./compare-runs";
import type { Metric, MetricValues } from "./metrics";
import { bootstrapCI } from "./bootstrap";
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

// ---------------------------------------------------------------- descriptive statistics

/**
 * What `describe` returns.
 */
export interface Descriptive {
  n: number;
  mean: number;
  /** Sample standard deviation (divides by n − 1); NaN when n = 1. */
  sd: number;
  median: number;
  /** First quartile, simple-statistics' `quantile(values, 0.25)` (see `describe`). */
  q1: number;
  /** Third quartile, simple-statistics' `quantile(values, 0.75)`. */
  q3: number;
  min: number;
  max: number;
}

/**
 * Count, mean, sample standard deviation, median, quartiles and range of a list of numbers.
 *
 * The sd is the sample one (n − 1): the values are almost always a sample (queries drawn from
 * an exam pool, a few seeds of an LLM), and the population formula understates their spread.
 * With one value it is NaN, not 0: one value says nothing about spread, and a 0 would read as
 * "perfectly stable".
 *
 * Quartiles are simple-statistics' `quantile`, the inverse of the empirical CDF averaged at its
 * jumps (R's type 2): with the n values sorted, the ⌈n·p⌉-th when n·p is not whole, else the
 * mean of the (n·p)-th and (n·p + 1)-th. (For odd n and whole n·p the library takes the
 * (n·p + 1)-th instead, which never happens for p = 0.25, 0.5, 0.75.) It is not numpy's default
 * linear interpolation (R's type 7, what bootstrap.ts uses): for [1, 2, 3, 4], q1 is 1.5 here
 * and 1.75 in numpy.
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

// ---------------------------------------------------------------- paired t-test

/**
 * What `pairedTTest` returns.
 */
export interface PairedTTest {
  /** Pairs (queries) tested. */
  n: number;
  /** Mean of a − b. */
  meanDiff: number;
  t: number;
  /** Degrees of freedom, n − 1. */
  df: number;
  /** Two-sided p. */
  p: number;
}

/**
 * Two-sided paired t-test of H0 "the mean of a − b is 0" on the per-query differences:
 * t = mean(d) / (s_d / √n) with s_d the sample standard deviation, df = n − 1, and
 * p = 2·F(−|t|) with F the Student t CDF (jStat).
 *
 * Why not simple-statistics' `tTest(d, 0)`: it divides by the POPULATION standard deviation
 * (its `standardDeviation`, divisor n), which inflates t by √(n/(n−1)) (12% at n = 5) and makes
 * p too small. The mean and the sample sd still come from the library.
 *
 * Edge cases: when every difference is 0 (identical runs), t is 0/0; we return t = 0 and p = 1,
 * because there is no evidence at all of a difference and the randomization test gives p = 1
 * there too (every flip ties), so the two tests agree on the one case both can decide exactly.
 * When the differences are all equal but not 0, there is no spread: t = ±Infinity, p = 0.
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

// ---------------------------------------------------------------- rank correlation

/** 1-based ranks, tied values sharing the mean of the ranks they span. */
function averageRanks(xs: readonly number[]): number[] {
  const order = xs.map((_, i) => i).sort((i, j) => xs[i] - xs[j]);
  const ranks = new Array<number>(xs.length);
  for (let lo = 0; lo < order.length; ) {
    let hi = lo + 1;
    while (hi < order.length && xs[order[hi]] === xs[order[lo]]) hi++;
    // Positions lo..hi−1 (ranks lo+1..hi) are tied: each gets their mean.
    for (let k = lo; k < hi; k++) ranks[order[k]] = (lo + 1 + hi) / 2;
    lo = hi;
  }
  return ranks;
}

/**
 * Spearman's rank correlation: Pearson's correlation (simple-statistics' `sampleCorrelation`)
 * of the two lists' ranks, tied values sharing the average of the ranks they span.
 *
 * Why not simple-statistics' `sampleRankCorrelation`: it ranks ties by their position in the
 * input (0, 1, 2, … in a stable sort), not by average ranks, so the result depends on query
 * order wherever values tie. Per-query IR metrics tie all the time (every query a run misses
 * scores 0), and there that ranking invents an order: [0, 0, 0.2, 0.5, 1] against
 * [0, 0.1, 0, 0.6, 0.6] gives 0.9 by position and 0.73 with average ranks.
 *
 * NaN when either list is constant (no ranks to correlate), e.g. a run that scores 0 everywhere.
 */
export function spearman(a: readonly number[], b: readonly number[]): number {
  checkPaired(a, b, "spearman");
  if (a.length < 2) throw new RangeError(`spearman needs at least two pairs, got ${a.length}`);
  return sampleCorrelation(averageRanks(a), averageRanks(b));
}

/**
 * Spearman's correlation of one metric between two runs, over the queries both have.
 */
export interface RunCorrelation {
  a: string;
  b: string;
  rho: number;
  /** Queries both runs have. */
  n: number;
}

/**
 * Spearman's rho of `metric` for every pair of runs (in the map's order, a before b), over the
 * queries both runs have (in a's order): do two methods find the same queries hard? rho is NaN
 * when fewer than two queries are shared or when either run is constant on them.
 */
export function perQueryCorrelation(perQuery: ReadonlyMap<string, ReadonlyMap<QueryId, MetricValues>>, metric: Metric): RunCorrelation[] {
  const runs = [...perQuery];
  const out: RunCorrelation[] = [];
  for (let i = 0; i < runs.length; i++) {
    for (let j = i + 1; j < runs.length; j++) {
      const [a, qa] = runs[i];
      const [b, qb] = runs[j];
      const shared = [...qa.keys()].filter((q) => qb.has(q));
      const n = shared.length;
      // A convenience over many pairs should not die on one pair that barely overlaps.
      const rho = n < 2 ? NaN : spearman(shared.map((q) => qa.get(q)![metric]), shared.map((q) => qb.get(q)![metric]));
      out.push({ a, b, rho, n });
    }
  }
  return out;
}

// ---------------------------------------------------------------- both tests side by side

/**
 * One row of `pairedTests`: the randomization test exactly as `gbr compare` gives it (p and
 * Holm's pHolm over all rows) beside the paired t-test on the same per-query values.
 */
export interface PairedTestRow {
  a: string;
  b: string;
  metric: Metric;
  meanA: number;
  meanB: number;
  /** meanA − meanB */
  delta: number;
  pRandomization: number;
  pTTest: number;
  /** The randomization p, Holm-adjusted over every row returned. */
  pHolm: number;
  /** One raw p is below 0.05 and the other is not. */
  disagree: boolean;
}

/**
 * The randomization test and the paired t-test for every pair (or the given pairs) × metric,
 * over the same queries as `compareRuns` (the qrels' queries with a relevant document; a query
 * missing from a run scores 0). The randomization side IS `compareRuns` (same swaps and seed,
 * defaults 100,000 and 42), so its p and pHolm equal `gbr compare`'s. `disagree` compares the
 * raw p-values: the t-test has no family correction here, and setting a Holm-adjusted p against
 * a raw one would flag the correction, not a disagreement between the tests.
 */
export function pairedTests(
  perQuery: ReadonlyMap<string, ReadonlyMap<QueryId, MetricValues>>,
  queries: ReadonlyMap<QueryId, ReadonlySet<DocId>> | Iterable<QueryId>,
  opts: CompareOptions = {},
): PairedTestRow[] {
  const qids = comparedQueries(queries);
  const { tests } = compareRuns([...perQuery].map(([name, pq]) => ({ name, perQuery: pq })), qids, opts);
  const column = (run: string, m: Metric) => qids.map((q) => perQuery.get(run)!.get(q)?.[m] ?? 0);
  return tests.map((t) => {
    const pTTest = pairedTTest(column(t.a, t.metric), column(t.b, t.metric)).p;
    return {
      a: t.a,
      b: t.b,
      metric: t.metric,
      meanA: t.meanA,
      meanB: t.meanB,
      delta: t.delta,
      pRandomization: t.p,
      pTTest,
      pHolm: t.pHolm,
      disagree: t.p < 0.05 !== pTTest < 0.05,
    };
  });
}

/**
 * The statistics of per-query scores, by name: descriptive (`describe`, `bootstrapCI`), paired
 * tests of two runs (`pairedRandomizationTest`, the paper's; `pairedTTest`; `pairedTests`, both
 * side by side for many pairs; `holm`), the paper's family of 20 tests (`PAPER_TESTS`,
 * `paperSignificance`, `missingPairs`) and rank correlation (`spearman`, `perQueryCorrelation`).
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
