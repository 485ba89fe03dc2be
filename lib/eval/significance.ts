/** significance.json: the paper's 20 tests (Holm over all 20 even with runs missing) and an exploratory family. */
import type { Qrels, QueryId } from "../types";
import type { Metric, MetricValues } from "./metrics";
import { holm, type RandomizationOptions } from "./randomization";
import { comparedQueries, compareRuns, type RunScores, type SignificanceTest } from "./compare-runs";
import { rerankSignificance, type RerankSignificance } from "./rerank-significance";

/** The paper's 20 tests: five "method vs what it claims to improve on" pairs × four metrics (DESIGN.md §4). */
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

/** The run the exploratory family tests every other experiment against: the paper's BM25. */
export const BASELINE_RUN = "bm25-greekstemmer";

/** Per-query metric values of every experiment that ran, by experiment id (retriever name, as PAPER_TESTS). */
export type PerQueryByExperiment = ReadonlyMap<string, ReadonlyMap<QueryId, MetricValues>>;

/** A paper test whose runs exist: `compareRuns`' result for it, with pHolm over the whole family of 20. */
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

/** A paper test with a run absent: it enters Holm as p = 1, and its p and pHolm are reported as 1. */
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

export type PaperTest = ComputedPaperTest | MissingPaperTest;

/** The paper's family: always its 20 tests, in PAPER_TESTS order; Holm over all 20, missing tests at p = 1. */
export interface PaperSignificance {
  /** Tests whose two runs exist. */
  computed: number;
  /** Tests in the family: always 20. */
  of: number;
  /** The correction, in words, for whoever reads the JSON file alone. */
  correction: string;
  /** The computed tests drew their flips as the authors' notebook does (all 20 present, one stream in order). */
  authorsStream: boolean;
  /** How the flips were drawn, in words. */
  stream: string;
  tests: PaperTest[];
}

/** The exploratory family: every other experiment against one baseline run, Holm over these tests only. */
export interface BaselineSignificance {
  /** The run every other experiment is tested against (b of every test). */
  against: string;
  /** Tests in this family (other experiments × 4 metrics). */
  of: number;
  correction: string;
  tests: SignificanceTest[];
}

/** significance.json, keys in this order; `baseline` is null when its run is absent. */
export interface SignificanceReport {
  swaps: number;
  seed: number;
  queries: number;
  paper: PaperSignificance;
  baseline: BaselineSignificance | null;
  /** Each re-ranked run against its own first stage, Holm apart (null when none ran with its first stage). */
  rerank: RerankSignificance | null;
}

/** Randomization settings (the paper's by default) and why experiments did not run, quoted in missing tests. */
export interface SignificanceFamilyOptions extends Pick<RandomizationOptions, "swaps"> {
  /** numpy seed of each family's stream (default 42, the paper's). */
  seed?: number;
  /** Experiment id → why it did not run (e.g. "skipped: no chat model configured"). */
  notRun?: ReadonlyMap<string, string>;
}

export interface SignificanceReportOptions extends SignificanceFamilyOptions {
  /** The exploratory family's baseline run (default BASELINE_RUN, "bm25-greekstemmer"). */
  baseline?: string;
}

function runsOf(perQuery: PerQueryByExperiment, names: readonly string[]): RunScores[] {
  return names.map((name) => ({ name, perQuery: perQuery.get(name)! }));
}

/**
 * All 20 paper tests, computed as `compareRuns` does or `missing` (ids and why) at p = 1 in Holm. Not a smaller
 * family: adjusted p only grows with any raw p, so a test significant here is significant in the full family too.
 */
export function paperSignificance(
  perQuery: PerQueryByExperiment,
  queries: Qrels | Iterable<QueryId>,
  opts: SignificanceFamilyOptions = {},
): PaperSignificance {
  const qids = comparedQueries(queries);
  const present = PAPER_TESTS.pairs.filter(([a, b]) => perQuery.has(a) && perQuery.has(b));
  const computed = present.length
    ? compareRuns(runsOf(perQuery, [...new Set(present.flat())]), qids, { pairs: present, metrics: PAPER_TESTS.metrics, swaps: opts.swaps, seed: opts.seed }).tests
    : [];
  const authorsStream = present.length === PAPER_TESTS.pairs.length;
  const rng = `numpy default_rng(${opts.seed ?? PAPER_SEED}), ${(opts.swaps ?? PAPER_SWAPS).toLocaleString("en-US")} flips per test, the queries in the benchmark's order`;
  const stream = authorsStream
    ? `${rng}: one stream for the ${PAPER_TESTS.pairs.length * PAPER_TESTS.metrics.length} tests in the paper's order, as the authors' notebook (their p-values digit for digit)`
    : `${rng}: one stream for the ${computed.length} computed tests in the paper's order; with runs missing the authors' loop stops, so these p-values are not comparable with theirs digit for digit`;
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
    authorsStream,
    stream,
    tests,
  };
}

/** A pair of the paper's family whose tests are missing, with the metrics concerned and why. */
export interface MissingPair {
  a: string;
  b: string;
  metrics: Metric[];
  reason: string;
}

/** Missing tests, one entry per pair and reason, in family order: the short list to show instead of 20 rows. */
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

/** The exploratory family: every other experiment against the baseline on the paper's four metrics; null without it. */
export function baselineSignificance(
  perQuery: PerQueryByExperiment,
  queries: Qrels | Iterable<QueryId>,
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

/** significance.json of `gbr reproduce`; written even when nothing ran (all 20 paper tests missing, with reasons). */
export function significanceReport(
  perQuery: PerQueryByExperiment,
  queries: Qrels | Iterable<QueryId>,
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
