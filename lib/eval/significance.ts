/**
 * Significance testing as the paper does it: two-sided paired randomization (sign-flip) tests
 * on per-query differences, Holm–Bonferroni correction over every test reported, and
 * percentile bootstrap intervals.
 *
 * Unlike ranx (see ANCHORS.md), p counts the observed arrangement (the "+1", so p is never 0),
 * the Holm correction is built in, and every test is seeded on its own, so a test's p depends
 * only on its two runs, the metric, the swaps and the seed — never on which other tests ran
 * or in what order.
 */
import type { DocId, QueryId } from "../types";
import { formatFixed } from "../report/format";
import { METRICS, type Metric, type MetricValues } from "./metrics";
import { formatTable } from "../report/text-table";
import { rotl, seedState, Xoshiro128ss } from "../util/random";

// ---------------------------------------------------------------- the paired randomization test

/**
 * Result of one paired test: the two means, their difference (a − b) and the two-sided p.
 *
 * @example
 * const r: PairedTestResult = pairedRandomizationTest(a, b);
 * if (r.p < 0.05 && r.delta > 0) console.log("a is better");
 */
export interface PairedTestResult {
  meanA: number;
  meanB: number;
  delta: number;
  p: number;
}

/**
 * Options of the randomization test; the defaults are the paper's.
 *
 * @example
 * pairedRandomizationTest(a, b, { swaps: 10_000, seed: 7 } satisfies RandomizationOptions);
 */
export interface RandomizationOptions {
  /** Random sign-flip patterns drawn (default 100,000, the paper's). */
  swaps?: number;
  /** PRNG seed (default 42, the paper's). */
  seed?: number;
}

/** The paper's tolerance: a flipped mean counts as "at least as extreme" within 1e-12. */
const TIE_TOLERANCE = 1e-12;

/**
 * Two-sided paired randomization (sign-flip) test of H0 "a and b are exchangeable per query",
 * on the differences d = a − b:
 * p = (#{flips: |mean of s·d| ≥ |mean of d| − 1e-12} + 1) / (swaps + 1),
 * each flip drawing an independent random sign s_i per query.
 *
 * Why it is fast (the paper's 20 tests × 100,000 flips × 283 queries in well under a second):
 * the queries are cut into blocks of 8, and for each block a 256-entry table holds the signed
 * sum of that block for every sign pattern; a flip is then one 32-bit random word per 4 blocks
 * and one table lookup per block (36 lookups for 283 queries instead of 283 sign decisions).
 * The tolerance is absolute, as in the paper: right for metric values in [0, 1], where rounding
 * differences between summation orders are ~1e-15.
 *
 * @example
 * const { delta, p } = pairedRandomizationTest(ndcgReact, ndcgReform, { swaps: 100000, seed: 42 });
 * // identical inputs give p = 1 (every flip ties); a consistent large gain gives p = 1/100001
 */
export function pairedRandomizationTest(a: readonly number[], b: readonly number[], opts: RandomizationOptions = {}): PairedTestResult {
  const n = a.length;
  if (b.length !== n) throw new RangeError(`paired test needs equally long inputs, got ${n} and ${b.length}`);
  if (n === 0) throw new RangeError("paired test needs at least one query");
  const swaps = opts.swaps ?? 100_000;
  if (!Number.isInteger(swaps) || swaps < 1) throw new RangeError(`swaps must be a positive integer, got ${swaps}`);
  const seed = opts.seed ?? 42;

  const blocks = Math.ceil(n / 8);
  const words = Math.ceil(blocks / 4);
  // Padding with zero differences keeps the inner loop uniform (4 lookups per random word);
  // a zero contributes ±0 to every sum, so it changes nothing.
  const d = new Float64Array(words * 32);
  let sumA = 0;
  let sumB = 0;
  let sumD = 0;
  for (let i = 0; i < n; i++) {
    const x = a[i];
    const y = b[i];
    if (!Number.isFinite(x) || !Number.isFinite(y)) throw new RangeError(`query ${i}: values must be finite numbers, got ${x} and ${y}`);
    sumA += x;
    sumB += y;
    d[i] = x - y;
    sumD += d[i];
  }
  const meanA = sumA / n;
  const meanB = sumB / n;
  const threshold = Math.abs(sumD / n) - TIE_TOLERANCE;

  const table = signedBlockSums(d, words * 4);
  const st = seedState(seed);
  let s0 = st[0];
  let s1 = st[1];
  let s2 = st[2];
  let s3 = st[3];
  let extreme = 0;
  for (let f = 0; f < swaps; f++) {
    let sum = 0;
    for (let w = 0, base = 0; w < words; w++, base += 1024) {
      // xoshiro128** inlined (same steps as Xoshiro128ss.nextUint32): a call per word would cost
      // as much as the lookups themselves.
      const r = Math.imul(rotl(Math.imul(s1, 5), 7), 9);
      const t = s1 << 9;
      s2 ^= s0;
      s3 ^= s1;
      s1 ^= s2;
      s0 ^= s3;
      s2 ^= t;
      s3 = (s3 << 11) | (s3 >>> 21);
      sum += table[base + (r & 255)] + table[base + 256 + ((r >>> 8) & 255)] + table[base + 512 + ((r >>> 16) & 255)] + table[base + 768 + (r >>> 24)];
    }
    if (Math.abs(sum / n) >= threshold) extreme++;
  }
  return { meanA, meanB, delta: meanA - meanB, p: (extreme + 1) / (swaps + 1) };
}

/**
 * For each block of 8 differences, the signed sum for all 256 sign patterns: bit j of the
 * pattern set means difference j of the block is negated.
 */
function signedBlockSums(d: Float64Array, blocks: number): Float64Array {
  const table = new Float64Array(blocks * 256);
  for (let c = 0; c < blocks; c++) {
    for (let v = 0; v < 256; v++) {
      let s = 0;
      for (let j = 0; j < 8; j++) s += (v >>> j) & 1 ? -d[c * 8 + j] : d[c * 8 + j];
      table[c * 256 + v] = s;
    }
  }
  return table;
}

// ---------------------------------------------------------------- multiple comparisons

/**
 * Holm–Bonferroni adjusted p-values, in input order: sort ascending, multiply the i-th smallest
 * (0-based) by (m − i), carry the running maximum so adjusted values never decrease with the
 * raw ones, cap at 1. Reject at level α exactly when the adjusted p < α. Controls the
 * family-wise error over all m tests without assuming independence (the paper's 20 tests share
 * runs and queries, so they are far from independent).
 *
 * @example
 * holm([0.01, 0.04, 0.03, 0.005]); // [0.03, 0.06, 0.06, 0.02]
 */
export function holm(pValues: readonly number[]): number[] {
  const m = pValues.length;
  for (const p of pValues) if (!(p >= 0 && p <= 1)) throw new RangeError(`p-values must lie in [0, 1], got ${p}`);
  // Ties keep input order (stable sort), which does not change the result: tied raw p-values
  // get the same adjusted value through the running maximum.
  const order = pValues.map((_, i) => i).sort((i, j) => pValues[i] - pValues[j]);
  const out = new Array<number>(m);
  let running = 0;
  for (let r = 0; r < m; r++) {
    const i = order[r];
    running = Math.max(running, Math.min(1, (m - r) * pValues[i]));
    out[i] = running;
  }
  return out;
}

// ---------------------------------------------------------------- bootstrap

/**
 * Options of `bootstrapCI`.
 *
 * @example
 * bootstrapCI(values, { resamples: 2_000, level: 0.9 });
 */
export interface BootstrapOptions {
  /** Resamples drawn (default 10,000). */
  resamples?: number;
  /** PRNG seed (default 42). */
  seed?: number;
  /** Coverage of the interval (default 0.95). */
  level?: number;
}

/**
 * A percentile bootstrap interval of the mean, with the settings that produced it.
 *
 * @example
 * const { mean, lower, upper } = bootstrapCI(values); // lower ≤ mean ≤ upper
 */
export interface BootstrapInterval {
  mean: number;
  lower: number;
  upper: number;
  level: number;
  resamples: number;
}

/**
 * Percentile bootstrap confidence interval of the mean: resample the values with replacement
 * `resamples` times, and take the (1 − level)/2 and (1 + level)/2 quantiles of the resampled
 * means (linear interpolation between order statistics, numpy's default). Deterministic for a
 * seed. The percentile interval is the simplest one and fine for means of bounded metrics over
 * hundreds of queries; it is not the BCa interval.
 *
 * @example
 * const ci = bootstrapCI([...perQuery.values()].map((m) => m["Recall@100"]));
 * `${ci.mean.toFixed(2)} [${ci.lower.toFixed(2)}, ${ci.upper.toFixed(2)}]`;
 */
export function bootstrapCI(values: readonly number[], opts: BootstrapOptions = {}): BootstrapInterval {
  const n = values.length;
  if (n === 0) throw new RangeError("bootstrap needs at least one value");
  const resamples = opts.resamples ?? 10_000;
  const level = opts.level ?? 0.95;
  if (!Number.isInteger(resamples) || resamples < 1) throw new RangeError(`resamples must be a positive integer, got ${resamples}`);
  if (!(level > 0 && level < 1)) throw new RangeError(`level must lie strictly between 0 and 1, got ${level}`);
  const x = Float64Array.from(values);
  let total = 0;
  for (let i = 0; i < n; i++) total += x[i];
  const rng = Xoshiro128ss.fromSeed(opts.seed ?? 42);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += x[Math.floor(rng.nextFloat() * n)];
    means[r] = s / n;
  }
  means.sort();
  return { mean: total / n, lower: quantile(means, (1 - level) / 2), upper: quantile(means, (1 + level) / 2), level, resamples };
}

/** Quantile of sorted values, linear between order statistics (numpy "linear", R type 7). */
function quantile(sorted: Float64Array, q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

// ---------------------------------------------------------------- comparing runs

/**
 * One run's per-query metric values, as `evaluate(...).perQuery` gives them.
 *
 * @example
 * const scores: RunScores = { name: "bm25-greekstemmer", perQuery: evaluate(run.rankings, qrels).perQuery };
 */
export interface RunScores {
  name: string;
  perQuery: ReadonlyMap<QueryId, MetricValues>;
}

/**
 * One test, with exactly the fields (and order) of `gbr compare --json` (DESIGN.md §4).
 *
 * @example
 * // { a: "react-bm25", b: "dense:gemini-001", metric: "nDCG@10", meanA: 0.43, meanB: 0.41, delta: 0.02, p: 0.21, pHolm: 1 }
 */
export interface SignificanceTest {
  a: string;
  b: string;
  metric: Metric;
  meanA: number;
  meanB: number;
  /** meanA − meanB */
  delta: number;
  p: number;
  /** Holm-adjusted over every test of the comparison */
  pHolm: number;
}

/**
 * What `compareRuns` returns; `JSON.stringify` of it is the `gbr compare --json` output.
 *
 * @example
 * io.stdout(JSON.stringify(compareRuns(runs, qrels), null, 2));
 */
export interface Comparison {
  tests: SignificanceTest[];
}

/**
 * Options of `compareRuns`: which tests, and the randomization settings shared by all of them.
 *
 * @example
 * compareRuns(runs, qrels, { pairs: [["react-bm25", "bm25-greekstemmer"]], metrics: ["Recall@100"], swaps: 100_000, seed: 42 });
 */
export interface CompareOptions extends RandomizationOptions {
  /** Metrics to test (default all five, in METRICS order). */
  metrics?: readonly Metric[];
  /** Run-name pairs to test, a against b (default every pair, in the order the runs are given). */
  pairs?: readonly (readonly [string, string])[];
}

/**
 * The paper's 20 tests: five pairs × four metrics, each pair written as "method vs the system
 * it is claimed to improve on", so a positive delta is an improvement. Names are retriever
 * names (DESIGN.md §4); Holm runs over exactly these 20.
 *
 * @example
 * compareRuns(runs, qrels, { ...PAPER_TESTS }).tests.length; // 20
 */
export const PAPER_TESTS: { readonly pairs: readonly (readonly [string, string])[]; readonly metrics: readonly Metric[] } = {
  pairs: [
    ["reform:bm25-greekstemmer", "bm25-greekstemmer"],
    ["reform:dense:qwen3-8b", "dense:qwen3-8b"],
    ["react-bm25", "reform:bm25-greekstemmer"],
    ["react-bm25", "reform:dense:qwen3-8b"],
    ["react-bm25", "dense:gemini-001"],
  ],
  metrics: ["nDCG@10", "nDCG@100", "Recall@100", "MAP@100"],
};

/**
 * Paired randomization tests between runs, for every pair (or the given pairs) and every
 * metric, with Holm's correction over all tests returned. Queries are those of the qrels that
 * have a relevant document (as `evaluate` counts them), in qrels order; a query missing from a
 * run's per-query values scores 0 on every metric, as `evaluate` scores a missing ranking.
 * Every test is seeded with the same seed, so its p does not depend on the other tests.
 *
 * @example
 * const runs = files.map((f) => ({ name: path.parse(f).name, perQuery: evaluate(runOf(f), qrels).perQuery }));
 * const { tests } = compareRuns(runs, qrels, { swaps: 100000, seed: 42 });
 * JSON.stringify({ tests }); // the `gbr compare --json` output
 */
export function compareRuns(
  runs: readonly RunScores[],
  queries: ReadonlyMap<QueryId, ReadonlySet<DocId>> | Iterable<QueryId>,
  opts: CompareOptions = {},
): Comparison {
  const qids = comparedQueries(queries);
  const metrics = opts.metrics ?? METRICS;
  for (const m of metrics) if (!(METRICS as readonly string[]).includes(m)) throw new RangeError(`unknown metric '${m}' (known: ${METRICS.join(", ")})`);
  const byName = new Map<string, RunScores>();
  for (const r of runs) {
    if (byName.has(r.name)) throw new RangeError(`two runs are named '${r.name}'`);
    byName.set(r.name, r);
  }
  const pairs: (readonly [string, string])[] = [];
  if (opts.pairs) {
    for (const [a, b] of opts.pairs) {
      for (const name of [a, b]) if (!byName.has(name)) throw new RangeError(`pair ${a} vs ${b}: no run named '${name}' (runs: ${[...byName.keys()].join(", ")})`);
      pairs.push([a, b]);
    }
  } else {
    for (let i = 0; i < runs.length; i++) for (let j = i + 1; j < runs.length; j++) pairs.push([runs[i].name, runs[j].name]);
  }
  const column = (run: RunScores, m: Metric) => qids.map((q) => run.perQuery.get(q)?.[m] ?? 0);
  const raw: Omit<SignificanceTest, "pHolm">[] = [];
  for (const [a, b] of pairs) {
    const ra = byName.get(a)!;
    const rb = byName.get(b)!;
    for (const metric of metrics) {
      const r = pairedRandomizationTest(column(ra, metric), column(rb, metric), { swaps: opts.swaps, seed: opts.seed });
      raw.push({ a, b, metric, meanA: r.meanA, meanB: r.meanB, delta: r.delta, p: r.p });
    }
  }
  const adjusted = holm(raw.map((t) => t.p));
  // Build each object with its keys in the documented order: JSON output follows it.
  return { tests: raw.map((t, i) => ({ a: t.a, b: t.b, metric: t.metric, meanA: t.meanA, meanB: t.meanB, delta: t.delta, p: t.p, pHolm: adjusted[i] })) };
}

// ---------------------------------------------------------------- the paper's family, and significance.json

/** The swaps and seed of the paper (DESIGN.md §6), the defaults of the families below. */
const PAPER_SWAPS = 100_000;
const PAPER_SEED = 42;

/**
 * The run the exploratory family tests every other experiment against: the paper's BM25.
 *
 * @example
 * baselineSignificance(perQueryByExperiment, qrels, { baseline: BASELINE_RUN });
 */
export const BASELINE_RUN = "bm25-greekstemmer";

/**
 * Per-query metric values of every experiment that ran, keyed by experiment id (a retriever
 * name, as in PAPER_TESTS), as `gbr reproduce` collects them from `evaluate(...).perQuery`.
 *
 * @example
 * const byExperiment: PerQueryByExperiment = new Map([["bm25-greekstemmer", evaluate(run.rankings, qrels).perQuery]]);
 */
export type PerQueryByExperiment = ReadonlyMap<string, ReadonlyMap<QueryId, MetricValues>>;

/**
 * A test of the paper's family whose two runs exist: exactly what `compareRuns` gives for it
 * (same p, since every test is seeded on its own), with pHolm over the whole family of 20.
 *
 * @example
 * // { a: "reform:bm25-greekstemmer", b: "bm25-greekstemmer", metric: "Recall@100", status: "computed",
 * //   meanA: 0.6, meanB: 0.36, delta: 0.24, p: 0.00001, pHolm: 0.0002 }
 */
export interface ComputedPaperTest {
  a: string;
  b: string;
  metric: Metric;
  status: "computed";
  meanA: number;
  meanB: number;
  /** meanA − meanB */
  delta: number;
  p: number;
  /** Holm-adjusted over all 20 tests of the paper's family, missing ones at p = 1 */
  pHolm: number;
}

/**
 * A test of the paper's family that could not be computed because a run is absent. It enters
 * Holm's correction as p = 1, and its own p and pHolm are reported as 1.
 *
 * @example
 * // { a: "react-bm25", b: "dense:gemini-001", metric: "nDCG@10", status: "missing",
 * //   missing: ["react-bm25", "dense:gemini-001"], reason: "react-bm25 did not run (skipped: no chat model); no run of dense:gemini-001",
 * //   p: 1, pHolm: 1 }
 */
export interface MissingPaperTest {
  a: string;
  b: string;
  metric: Metric;
  status: "missing";
  /** The experiment ids of the pair that have no per-query values (a, b or both, in that order). */
  missing: string[];
  /** Why, in words: each missing id and, when known, why it did not run. */
  reason: string;
  p: 1;
  pHolm: 1;
}

/**
 * One of the paper's 20 tests; `status` tells which kind.
 *
 * @example
 * const sig = (t: PaperTest) => t.status === "computed" && t.pHolm < 0.05;
 */
export type PaperTest = ComputedPaperTest | MissingPaperTest;

/**
 * The paper's family: always its 20 tests (PAPER_TESTS' pairs × metrics, in that order), of
 * which `computed` could run; Holm over all 20, missing tests at p = 1.
 *
 * @example
 * const fam = paperSignificance(byExperiment, qrels);
 * `${fam.computed} of ${fam.of} tests computed`;
 */
export interface PaperSignificance {
  /** Tests whose two runs exist. */
  computed: number;
  /** Tests in the family: always 20. */
  of: number;
  /** The correction, in words, for whoever reads the JSON file alone. */
  correction: string;
  tests: PaperTest[];
}

/**
 * The exploratory family beyond the paper: every other experiment against one baseline run,
 * on the paper's four metrics, with its own Holm correction over these tests only.
 *
 * @example
 * const base = baselineSignificance(byExperiment, qrels);
 * base?.tests.filter((t) => t.pHolm < 0.05 && t.delta > 0).map((t) => t.a); // experiments that beat BM25
 */
export interface BaselineSignificance {
  /** The run every other experiment is tested against (b of every test). */
  against: string;
  /** Tests in this family (other experiments × 4 metrics). */
  of: number;
  correction: string;
  tests: SignificanceTest[];
}

/**
 * What `gbr reproduce` writes to significance.json (key order as listed):
 * `{ swaps, seed, queries, paper: { computed, of: 20, correction, tests: PaperTest[20] },
 * baseline: { against, of, correction, tests: SignificanceTest[] } | null }`.
 * `queries` counts the queries compared (those of the qrels with a relevant article);
 * `baseline` is null when the baseline run is absent. The two families are corrected
 * separately. (`gbr compare --json` keeps its own `{ tests }` shape.)
 *
 * @example
 * const report: SignificanceReport = significanceReport(byExperiment, qrels);
 * await fs.writeFile("significance.json", JSON.stringify(report, null, 2) + "\n");
 */
export interface SignificanceReport {
  swaps: number;
  seed: number;
  queries: number;
  paper: PaperSignificance;
  baseline: BaselineSignificance | null;
}

/**
 * Options of `paperSignificance` and `baselineSignificance`: the randomization settings (the
 * paper's by default) and, optionally, why experiments did not run, quoted in the reasons of
 * missing tests.
 *
 * @example
 * const notRun = new Map(outcomes.filter((o) => o.status !== "ok").map((o) => [o.id, `${o.status}: ${o.reason}`]));
 * paperSignificance(byExperiment, qrels, { swaps: 100_000, seed: 42, notRun });
 */
export interface SignificanceFamilyOptions extends RandomizationOptions {
  /** Experiment id → why it did not run (e.g. "skipped: no chat model configured"). */
  notRun?: ReadonlyMap<string, string>;
}

/**
 * Options of `significanceReport` and `baselineSignificance`.
 *
 * @example
 * significanceReport(byExperiment, qrels, { baseline: "bm25-grnlp" });
 */
export interface SignificanceReportOptions extends SignificanceFamilyOptions {
  /** The exploratory family's baseline run (default BASELINE_RUN, "bm25-greekstemmer"). */
  baseline?: string;
}

/** The queries a comparison runs over, in order: a qrels map's queries with a relevant document, or the ids as given. */
function comparedQueries(queries: ReadonlyMap<QueryId, ReadonlySet<DocId>> | Iterable<QueryId>): QueryId[] {
  return queries instanceof Map
    ? [...(queries as ReadonlyMap<QueryId, ReadonlySet<DocId>>)].filter(([, g]) => g.size > 0).map(([q]) => q)
    : [...(queries as Iterable<QueryId>)];
}

function runsOf(perQuery: PerQueryByExperiment, names: readonly string[]): RunScores[] {
  return names.map((name) => ({ name, perQuery: perQuery.get(name)! }));
}

/**
 * The paper's 20 significance tests (PAPER_TESTS: five pairs × four metrics, in that order),
 * always all 20. A test whose two runs exist is computed exactly as `compareRuns` computes it
 * (same queries, swaps and seed, so the same p); a test with a run absent is `missing`, names
 * the absent ids and why (from `notRun` when given), and enters Holm's correction as p = 1.
 *
 * Why p = 1 rather than a smaller family: Holm's adjusted p-values only grow when any raw p
 * grows, so counting a missing test as p = 1 gives every computed test the largest adjusted p
 * it could have whatever the missing test would have shown. A computed test significant here is
 * therefore significant in the paper's full family too, and the correction never weakens
 * because a run could not be made (Holm over the computed tests alone would).
 *
 * @example
 * const fam = paperSignificance(byExperiment, bench.qrels, { swaps: 100_000, seed: 42 });
 * fam.tests.length; // 20
 * fam.tests.filter((t) => t.status === "missing").map((t) => t.reason);
 */
export function paperSignificance(
  perQuery: PerQueryByExperiment,
  queries: ReadonlyMap<QueryId, ReadonlySet<DocId>> | Iterable<QueryId>,
  opts: SignificanceFamilyOptions = {},
): PaperSignificance {
  const qids = comparedQueries(queries);
  const present = PAPER_TESTS.pairs.filter(([a, b]) => perQuery.has(a) && perQuery.has(b));
  const computed = present.length
    ? compareRuns(runsOf(perQuery, [...new Set(present.flat())]), qids, { pairs: present, metrics: PAPER_TESTS.metrics, swaps: opts.swaps, seed: opts.seed }).tests
    : [];
  const key = (a: string, b: string, metric: Metric) => `${a}\u0000${b}\u0000${metric}`;
  const byKey = new Map(computed.map((t) => [key(t.a, t.b, t.metric), t]));
  const why = (id: string) => {
    const reason = opts.notRun?.get(id);
    return reason ? `${id} did not run (${reason})` : `no run of ${id}`;
  };
  const raw = PAPER_TESTS.pairs.flatMap(([a, b]) =>
    PAPER_TESTS.metrics.map((metric) => ({ a, b, metric, test: byKey.get(key(a, b, metric)), missing: [a, b].filter((id) => !perQuery.has(id)) })),
  );
  const adjusted = holm(raw.map((r) => r.test?.p ?? 1));
  // Objects built key by key: JSON output follows this order.
  const tests = raw.map((r, i): PaperTest => {
    const { a, b, metric, test } = r;
    if (!test) return { a, b, metric, status: "missing", missing: r.missing, reason: r.missing.map(why).join("; "), p: 1, pHolm: 1 };
    return { a, b, metric, status: "computed", meanA: test.meanA, meanB: test.meanB, delta: test.delta, p: test.p, pHolm: adjusted[i] };
  });
  return {
    computed: computed.length,
    of: tests.length,
    correction: `Holm over all ${tests.length} tests of the paper; each missing test counted as p = 1`,
    tests,
  };
}

/**
 * A pair of the paper's family whose tests are missing, with the metrics concerned and why.
 *
 * @example
 * // { a: "react-bm25", b: "dense:gemini-001", metrics: ["nDCG@10", "nDCG@100", "Recall@100", "MAP@100"], reason: "no run of react-bm25" }
 */
export interface MissingPair {
  a: string;
  b: string;
  metrics: Metric[];
  reason: string;
}

/**
 * The missing tests of a family, one entry per pair and reason (a pair's four metrics share
 * theirs), in the family's order: the short list to show a reader instead of up to 20 rows.
 *
 * @example
 * missingPairs(paperSignificance(byExperiment, qrels).tests).map((m) => `${m.a} vs ${m.b}: ${m.reason}`);
 */
export function missingPairs(tests: readonly PaperTest[]): MissingPair[] {
  const out: MissingPair[] = [];
  for (const t of tests) {
    if (t.status !== "missing") continue;
    const last = out[out.length - 1];
    if (last && last.a === t.a && last.b === t.b && last.reason === t.reason) last.metrics.push(t.metric);
    else out.push({ a: t.a, b: t.b, metrics: [t.metric], reason: t.reason });
  }
  return out;
}

/**
 * The exploratory family beyond the paper: every other experiment of `perQuery` (in its order)
 * against the baseline run (default BM25-GREEKSTEMMER), on the paper's four metrics, with Holm
 * over these tests alone. `null` when the baseline did not run; no tests when nothing else did.
 * The tests are `compareRuns`' with the same swaps and seed.
 *
 * @example
 * const base = baselineSignificance(byExperiment, bench.qrels);
 * base?.tests.length; // 4 × (experiments − 1)
 */
export function baselineSignificance(
  perQuery: PerQueryByExperiment,
  queries: ReadonlyMap<QueryId, ReadonlySet<DocId>> | Iterable<QueryId>,
  opts: SignificanceReportOptions = {},
): BaselineSignificance | null {
  const against = opts.baseline ?? BASELINE_RUN;
  if (!perQuery.has(against)) return null;
  const others = [...perQuery.keys()].filter((id) => id !== against);
  const tests = others.length
    ? compareRuns(runsOf(perQuery, [against, ...others]), comparedQueries(queries), {
        pairs: others.map((id) => [id, against] as const),
        metrics: PAPER_TESTS.metrics,
        swaps: opts.swaps,
        seed: opts.seed,
      }).tests
    : [];
  return {
    against,
    of: tests.length,
    correction: `Holm over these ${tests.length} tests only (exploratory, beyond the paper; not part of its family)`,
    tests,
  };
}

/**
 * The whole significance.json of `gbr reproduce` (shape: `SignificanceReport`): the swaps and
 * seed used (default the paper's 100,000 and 42), the number of queries compared, the paper's
 * family of 20 (`paperSignificance`) and, apart, the exploratory family against BM25
 * (`baselineSignificance`, null when that run is absent). Written even when nothing ran: then
 * the paper's 20 tests are all missing, with their reasons.
 *
 * @example
 * const notRun = new Map(outcomes.filter((o) => o.status !== "ok").map((o) => [o.id, `${o.status}: ${o.reason}`]));
 * const report = significanceReport(perQueryByExperiment, bench.qrels, { swaps: 100_000, seed: 42, notRun });
 * await fs.writeFile(path.join(outDir, "significance.json"), JSON.stringify(report, null, 2) + "\n");
 */
export function significanceReport(
  perQuery: PerQueryByExperiment,
  queries: ReadonlyMap<QueryId, ReadonlySet<DocId>> | Iterable<QueryId>,
  opts: SignificanceReportOptions = {},
): SignificanceReport {
  const swaps = opts.swaps ?? PAPER_SWAPS;
  const seed = opts.seed ?? PAPER_SEED;
  // Checked here too: with no test to run, nothing else would catch a bad value before it is written.
  if (!Number.isInteger(swaps) || swaps < 1) throw new RangeError(`swaps must be a positive integer, got ${swaps}`);
  if (!Number.isInteger(seed)) throw new RangeError(`seed must be an integer, got ${seed}`);
  const qids = comparedQueries(queries);
  const settings = { ...opts, swaps, seed };
  return { swaps, seed, queries: qids.length, paper: paperSignificance(perQuery, qids, settings), baseline: baselineSignificance(perQuery, qids, settings) };
}

// ---------------------------------------------------------------- the ranx-style table

/** ranx's superscript alphabet; Unicode has no superscript q, so q is skipped in labels too. */
const LETTERS = "abcdefghijklmnoprstuvwxyz";
const SUPERSCRIPTS = "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻ";

/**
 * Options of `formatComparison` (the swaps, seed and query count only feed the legend).
 *
 * @example
 * formatComparison(runs, comparison, METRICS, { alpha: 0.01, swaps: 100_000, seed: 42, queries: 283 });
 */
export interface ComparisonTableOptions {
  /** Family-wise level for the superscripts (default 0.05). */
  alpha?: number;
  /** Swaps and seed, for the legend. */
  swaps?: number;
  seed?: number;
  /** Number of queries, for the legend. */
  queries?: number;
}

/**
 * The human-readable comparison: a ranx-style table (one row per run, labelled a, b, c …;
 * after each value the superscript labels of the runs it beats significantly, i.e. p_Holm < α
 * with a higher mean), a legend, then every test with delta, p and p_Holm. Values have 4
 * decimals rounded half to even; p-values as many decimals as 1/(swaps+1) needs. With more
 * than 25 runs the superscripts run out, and beaten runs are listed in brackets instead.
 *
 * @example
 * io.stdout(formatComparison(runs.map((r) => ({ name: r.name, mean: r.mean })), comparison, METRICS, { swaps: 100000, seed: 42 }));
 */
export function formatComparison(
  runs: readonly { name: string; mean: MetricValues }[],
  comparison: Comparison,
  metrics: readonly Metric[],
  opts: ComparisonTableOptions = {},
): string {
  const alpha = opts.alpha ?? 0.05;
  const swaps = opts.swaps ?? 100_000;
  const ascii = runs.length > LETTERS.length;
  const label = (i: number) => (ascii ? spreadsheetLabel(i) : LETTERS[i]);
  const index = new Map(runs.map((r, i) => [r.name, i]));
  // beats[winner][metric] = indices of the runs it beats significantly on that metric
  const beats = runs.map(() => new Map<Metric, number[]>());
  for (const t of comparison.tests) {
    if (!(t.pHolm < alpha) || t.delta === 0) continue;
    const [w, l] = t.delta > 0 ? [t.a, t.b] : [t.b, t.a];
    const wi = index.get(w);
    const li = index.get(l);
    if (wi === undefined || li === undefined) continue;
    const list = beats[wi].get(t.metric) ?? [];
    list.push(li);
    beats[wi].set(t.metric, list);
  }
  const marks = (lost: number[] | undefined) => {
    if (!lost?.length) return "";
    const sorted = [...new Set(lost)].sort((x, y) => x - y);
    return ascii ? ` [${sorted.map(label).join(",")}]` : sorted.map((i) => SUPERSCRIPTS[i]).join("");
  };
  const rows = runs.map((r, i) => [label(i), r.name, ...metrics.map((m) => formatFixed(r.mean[m], 4) + marks(beats[i].get(m)))]);
  const pDigits = Math.max(4, Math.ceil(Math.log10(swaps + 1)));
  const what = [
    `two-sided paired randomization test, ${swaps.toLocaleString("en-US")} random sign flips`,
    opts.seed !== undefined ? `seed ${opts.seed}` : "",
    opts.queries !== undefined ? `${opts.queries} queries` : "",
    `Holm over all ${comparison.tests.length} tests`,
  ]
    .filter(Boolean)
    .join(", ");
  const legend = ascii
    ? `[x,y]: significantly better than runs x and y (${what}; p_Holm < ${alpha}).`
    : `Superscripts: significantly better than the run with that label (${what}; p_Holm < ${alpha}).`;
  const testRows = comparison.tests.map((t) => [t.a, t.b, t.metric, formatFixed(t.delta, 4), formatFixed(t.p, pDigits), formatFixed(t.pHolm, pDigits)]);
  return [formatTable(["#", "run", ...metrics], rows), legend, "", formatTable(["a", "b", "metric", "delta", "p", "pHolm"], testRows)].join("\n");
}

/** a … z, aa, ab … (q included: these labels are never superscripted). */
function spreadsheetLabel(i: number): string {
  let s = "";
  for (let k = i + 1; k > 0; k = Math.floor((k - 1) / 26)) s = String.fromCharCode(97 + ((k - 1) % 26)) + s;
  return s;
}
