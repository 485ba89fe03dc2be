/**
 * The significance the paper reports, and significance.json: the paper's family of 20 tests
 * (PAPER_TESTS, Holm over all 20 even when some runs are missing) and, apart, an exploratory
 * family of every other experiment against BM25. The tests themselves are `compareRuns`'.
 */
import type { DocId, QueryId } from "../types";
import type { Metric, MetricValues } from "./metrics";
import { holm, type RandomizationOptions } from "./randomization";
import { comparedQueries, compareRuns, type RunScores, type SignificanceTest } from "./compare-runs";
import { rerankSignificance, type RerankSignificance } from "./rerank-significance";

/**
 * The paper's 20 tests: five pairs × four metrics, each pair written as "method vs the system
 * it is claimed to improve on", so a positive delta is an improvement. Names are retriever
 * names (DESIGN.md §4); Holm runs over exactly these 20.
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

/** The swaps and seed of the paper (DESIGN.md §6), the defaults of the families below. */
const PAPER_SWAPS = 100_000;
const PAPER_SEED = 42;

/**
 * The run the exploratory family tests every other experiment against: the paper's BM25.
 */
export const BASELINE_RUN = "bm25-greekstemmer";

/**
 * Per-query metric values of every experiment that ran, keyed by experiment id (a retriever
 * name, as in PAPER_TESTS), as `gbr reproduce` collects them from `evaluate(...).perQuery`.
 */
export type PerQueryByExperiment = ReadonlyMap<string, ReadonlyMap<QueryId, MetricValues>>;

/**
 * A test of the paper's family whose two runs exist: exactly what `compareRuns` gives for it
 * (same p, since every test is seeded on its own), with pHolm over the whole family of 20.
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
 */
export type PaperTest = ComputedPaperTest | MissingPaperTest;

/**
 * The paper's family: always its 20 tests (PAPER_TESTS' pairs × metrics, in that order), of
 * which `computed` could run; Holm over all 20, missing tests at p = 1.
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
 * baseline: { against, of, correction, tests: SignificanceTest[] } | null,
 * rerank: { of, correction, tests: SignificanceTest[] } | null }`.
 * `queries` counts the queries compared (those of the qrels with a relevant article);
 * `baseline` is null when the baseline run is absent. The two families are corrected
 * separately. (`gbr compare --json` keeps its own `{ tests }` shape.)
 */
export interface SignificanceReport {
  swaps: number;
  seed: number;
  queries: number;
  paper: PaperSignificance;
  baseline: BaselineSignificance | null;
  /** Each re-ranked run against its own first stage, Holm apart (null when none ran with its first stage). */
  rerank: RerankSignificance | null;
}

/**
 * Options of `paperSignificance` and `baselineSignificance`: the randomization settings (the
 * paper's by default) and, optionally, why experiments did not run, quoted in the reasons of
 * missing tests.
 */
export interface SignificanceFamilyOptions extends RandomizationOptions {
  /** Experiment id → why it did not run (e.g. "skipped: no chat model configured"). */
  notRun?: ReadonlyMap<string, string>;
}

/**
 * Options of `significanceReport` and `baselineSignificance`.
 */
export interface SignificanceReportOptions extends SignificanceFamilyOptions {
  /** The exploratory family's baseline run (default BASELINE_RUN, "bm25-greekstemmer"). */
  baseline?: string;
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
  return {
    swaps,
    seed,
    queries: qids.length,
    paper: paperSignificance(perQuery, qids, settings),
    baseline: baselineSignificance(perQuery, qids, settings),
    rerank: rerankSignificance(perQuery, qids, PAPER_TESTS.metrics, settings),
  };
}
