/** significance.json: the paper's 20 tests (Holm over all 20 even with runs missing) and an exploratory family. */
import type { Qrels, QueryId } from "../types";
import type { Metric, MetricValues } from "./metrics";
import { holm, type RandomizationOptions } from "./randomization";
import { comparedQueries, compareRuns, type SignificanceTest } from "./compare-runs";

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

/** The paper's swaps and seed (DESIGN.md §6). */
const PAPER_SWAPS = 100_000;
const PAPER_SEED = 42;

/** The run the exploratory family tests every other experiment against: the paper's BM25. */
export const BASELINE_RUN = "bm25-greekstemmer";

export type PerQueryByExperiment = ReadonlyMap<string, ReadonlyMap<QueryId, MetricValues>>;

/** A paper test whose runs exist, pHolm over the whole family of 20 (missing ones at p = 1). */
export type ComputedPaperTest = SignificanceTest & { status: "computed" };

/** A paper test with a run absent (`missing`: its ids; `reason`: why, in words): p and pHolm are 1. */
export type MissingPaperTest = Pick<SignificanceTest, "a" | "b" | "metric"> &
  { status: "missing"; missing: string[]; reason: string; p: 1; pHolm: 1 };

export type PaperTest = ComputedPaperTest | MissingPaperTest;

/** The paper's 20 tests in PAPER_TESTS order; `authorsStream`: all 20 present, drawn as the authors' notebook draws them. */
export type PaperSignificance = ReturnType<typeof paperSignificance>;

/** A family beyond the paper, Holm over its own `of` tests only. */
export type SignificanceFamily = { of: number; correction: string; tests: SignificanceTest[] };

/** significance.json; `baseline` and `rerank` are null when their runs are absent. */
export type SignificanceReport = ReturnType<typeof significanceReport>;

/** Randomization settings (the paper's by default); `notRun`: experiment id → why it did not run, quoted. */
type SignificanceOptions = Pick<RandomizationOptions, "swaps"> & { seed?: number; notRun?: ReadonlyMap<string, string> };

/** All 20 paper tests, computed or `missing` at p = 1 in Holm: a test significant here is so in the full family too. */
export function paperSignificance(
  perQuery: PerQueryByExperiment,
  queries: Qrels | Iterable<QueryId>,
  opts: SignificanceOptions = {},
) {
  const qids = comparedQueries(queries);
  const present = PAPER_TESTS.pairs.filter(([a, b]) => perQuery.has(a) && perQuery.has(b));
  const computed = family(perQuery, qids, present, opts);
  const authorsStream = present.length === PAPER_TESTS.pairs.length;
  const rng = `numpy default_rng(${opts.seed ?? PAPER_SEED}), ${(opts.swaps ?? PAPER_SWAPS).toLocaleString("en-US")} flips per test, the queries in the benchmark's order`;
  const stream = authorsStream
    ? `${rng}: one stream for the ${PAPER_TESTS.pairs.length * PAPER_TESTS.metrics.length} tests in the paper's order, as the authors' notebook (their p-values digit for digit)`
    : `${rng}: one stream for the ${computed.length} computed tests in the paper's order; with runs missing the authors' loop stops, so these p-values are not comparable with theirs digit for digit`;
  const key = (a: string, b: string, metric: Metric) => `${a}\u0000${b}\u0000${metric}`;
  const byKey = new Map(computed.map((t) => [key(t.a, t.b, t.metric), t]));
  const why = (id: string) => (opts.notRun?.get(id) ? `${id} did not run (${opts.notRun.get(id)})` : `no run of ${id}`);
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

/** Missing tests, one entry per pair and reason, in family order. */
export function missingPairs(tests: readonly PaperTest[]): { a: string; b: string; metrics: Metric[]; reason: string }[] {
  const out: ReturnType<typeof missingPairs> = [];
  for (const t of tests) {
    if (t.status !== "missing") continue;
    const last = out[out.length - 1];
    if (last && last.a === t.a && last.b === t.b && last.reason === t.reason) last.metrics.push(t.metric);
    else out.push({ a: t.a, b: t.b, metrics: [t.metric], reason: t.reason });
  }
  return out;
}

/** The pairs' tests on the paper's four metrics, on one stream, Holm over these only. */
function family(
  perQuery: PerQueryByExperiment,
  qids: QueryId[],
  pairs: (readonly [string, string])[],
  opts: SignificanceOptions,
) {
  if (!pairs.length) return [];
  const runs = [...new Set(pairs.flat())].map((name) => ({ name, perQuery: perQuery.get(name)! }));
  return compareRuns(runs, qids, { pairs, metrics: PAPER_TESTS.metrics, swaps: opts.swaps, seed: opts.seed }).tests;
}

/** The exploratory family: every other experiment against BASELINE_RUN; null without it. */
export function baselineSignificance(
  perQuery: PerQueryByExperiment,
  queries: Qrels | Iterable<QueryId>,
  opts: SignificanceOptions = {},
) {
  const against = BASELINE_RUN;
  if (!perQuery.has(against)) return null;
  const pairs = [...perQuery.keys()].filter((id) => id !== against).map((id) => [id, against] as const);
  const tests = family(perQuery, comparedQueries(queries), pairs, opts);
  const correction = `Holm over these ${tests.length} tests only (exploratory, beyond the paper; not part of its family)`;
  return { against, of: tests.length, correction, tests };
}

/** First stage of a `rerank:<reranker>:<first stage>` id, else undefined; first stages may hold colons. */
export function firstStageOf(id: string): string | undefined {
  return /^rerank:[^:]+:(.+)$/.exec(id)?.[1];
}

/** Each re-ranked run whose first stage also ran, against it (what it adds, not vs BM25); null if none. */
export function rerankSignificance(
  perQuery: PerQueryByExperiment,
  queries: Qrels | Iterable<QueryId>,
  opts: SignificanceOptions = {},
): SignificanceFamily | null {
  const pairs = [...perQuery.keys()].flatMap((id) => {
    const first = firstStageOf(id);
    return first !== undefined && perQuery.has(first) ? [[id, first] as const] : [];
  });
  if (!pairs.length) return null;
  const tests = family(perQuery, comparedQueries(queries), pairs, opts);
  const correction =
    `Holm over these ${tests.length} tests only (each re-ranked run against its own first stage; beyond the paper)`;
  return { of: tests.length, correction, tests };
}

/** significance.json of `gbr reproduce`; written even when nothing ran (all 20 paper tests missing, with reasons). */
export function significanceReport(
  perQuery: PerQueryByExperiment,
  queries: Qrels | Iterable<QueryId>,
  opts: SignificanceOptions = {},
) {
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
    rerank: rerankSignificance(perQuery, qids, settings),
  };
}
