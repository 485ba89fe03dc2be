/** Paired tests (the paper's randomization by default), run pairs × metrics, corrected over all: `gbr compare`. */
import { relevantCount, type Qrels, type QueryId } from "../types";
import { METRICS, type Metric, type MetricValues } from "./metrics";
import { resolveMetric, type MetricName } from "./metric-names";
import { holm, pairedRandomizationTest, type RandomizationOptions } from "./randomization";
import { ADJUSTED_P, correct, pairedTTest, wilcoxonTest, type Correction, type PairedTestName } from "./paired-tests";
import { Pcg64 } from "../numeric/random";
import { GbrError } from "../util/errors";
import { printable } from "../util/printable";
import path from "node:path";

export type RunScores = { name: string; perQuery: ReadonlyMap<QueryId, MetricValues> };

/** One test as `gbr compare --json` gives it (DESIGN.md §4): delta = meanA − meanB, pHolm over every test. */
export type SignificanceTest =
  { a: string; b: string; metric: Metric; meanA: number; meanB: number; delta: number; p: number; pHolm: number };

/** `JSON.stringify` of it is the `gbr compare --json` output. */
export type Comparison = { tests: SignificanceTest[] };

/** `metrics`: default all five, any spelling; `pairs`: tested a against b (default every pair, in run order); `test`: p's. */
export type CompareOptions = RandomizationOptions & {
  metrics?: readonly MetricName[];
  pairs?: readonly (readonly [string, string])[];
  test?: PairedTestName;
};

/**
 * Queries as `evaluate` counts them, in qrels order (it decides which flip meets which query). Tests run pair by
 * pair, metrics in order, on one numpy stream (`default_rng(seed)` or `opts.rng`), as the authors' notebook does.
 * `test` "t" or "wilcoxon" draws nothing; pHolm is Holm's either way (`chosenComparison` applies another).
 *
 * @example
 * compareRuns([{ name: "a", perQuery: a }, { name: "b", perQuery: b }], qrels, { test: "wilcoxon" }).tests[0].p;
 */
export function compareRuns(
  runs: readonly RunScores[],
  queries: Qrels | Iterable<QueryId>,
  opts: CompareOptions = {},
): Comparison {
  const qids = comparedQueries(queries);
  const metrics = [...new Set((opts.metrics ?? METRICS).map(resolveMetric))];
  const byName = new Map<string, RunScores>();
  for (const r of runs) {
    if (byName.has(r.name)) throw new RangeError(`two runs are named '${r.name}'`);
    byName.set(r.name, r);
  }
  for (const [a, b] of opts.pairs ?? []) {
    for (const name of [a, b]) if (!byName.has(name)) throw new RangeError(`pair ${a} vs ${b}: no run named '${name}' (runs: ${[...byName.keys()].join(", ")})`);
  }
  const pairs = opts.pairs ?? runs.flatMap((r, i) => runs.slice(i + 1).map((s) => [r.name, s.name] as const));
  const column = (run: RunScores, m: Metric) => qids.map((q) => run.perQuery.get(q)?.[m] ?? 0);
  const raw: Omit<SignificanceTest, "pHolm">[] = [];
  const rng = opts.rng ?? Pcg64.fromSeed(opts.seed ?? 42);
  for (const [a, b] of pairs) {
    const ra = byName.get(a)!;
    const rb = byName.get(b)!;
    for (const metric of metrics) {
      const [x, y] = [column(ra, metric), column(rb, metric)];
      const test = opts.test === "t" ? pairedTTest : opts.test === "wilcoxon" ? wilcoxonTest : undefined;
      const [meanA, meanB] = [x, y].map((v) => v.reduce((s, value) => s + value, 0) / v.length); // summed as the flips' test sums
      const r = test ? { meanA, meanB, delta: meanA - meanB, p: test(x, y).p } : pairedRandomizationTest(x, y, { swaps: opts.swaps, rng });
      raw.push({ a, b, metric, meanA: r.meanA, meanB: r.meanB, delta: r.delta, p: r.p });
    }
  }
  const adjusted = holm(raw.map((t) => t.p));
  // Keys in the documented order (raw's, then pHolm): JSON output follows it.
  return { tests: raw.map((t, i) => ({ ...t, pHolm: adjusted[i] })) };
}

/**
 * `gbr compare --json`'s object: with the defaults, the comparison as it is (DESIGN.md §4); otherwise the test and
 * correction named first and each test's corrected p keyed by ADJUSTED_P in place of pHolm (none: p alone).
 *
 * @example
 * chosenComparison(compareRuns(runs, qrels, { test: "t" }), "t", "bh").tests[0].pBH;
 */
export function chosenComparison(c: Comparison, test: PairedTestName, correction: Correction) {
  if (test === "randomization" && correction === "holm") return c;
  const key = ADJUSTED_P[correction];
  const adjusted = correct(c.tests.map((t) => t.p), correction);
  return { test, correction, tests: c.tests.map(({ pHolm: _, ...t }, i) => (key ? { ...t, [key]: adjusted[i] } : t)) };
}

/** A qrels map's queries with a relevant document (as `evaluate` counts them), or the ids as given. */
export function comparedQueries(queries: Qrels | Iterable<QueryId>): QueryId[] {
  return queries instanceof Map
    ? [...(queries as Qrels)].filter(([, g]) => relevantCount(g) > 0).map(([q]) => q)
    : [...(queries as Iterable<QueryId>)];
}

/** `--pair A,B` options as pairs of run names; a run is named by its name or its file's name without extension. */
export function pairsByName(specs: readonly string[], runs: readonly { file: string; name: string }[]): [string, string][] {
  const split = specs.map((p): [string, string] => {
    const parts = p.split(",").map((x) => x.trim());
    if (parts.length !== 2 || !parts[0] || !parts[1]) throw new GbrError(`--pair takes A,B (two run names), got '${printable(p)}'`, "USAGE");
    return [parts[0], parts[1]];
  });
  const names = runs.map((r) => r.name);
  const bases = runs.map((r) => path.parse(r.file).name);
  const nameOf = (n: string, pair: string) => {
    const i = names.includes(n) ? names.indexOf(n) : bases.indexOf(n);
    if (i < 0) throw new GbrError(`--pair ${printable(pair)}: no run named '${printable(n)}' (runs: ${printable(names.join(", "))})`, "USAGE");
    return names[i];
  };
  return split.map(([a, b]): [string, string] => [nameOf(a, `${a},${b}`), nameOf(b, `${a},${b}`)]);
}
