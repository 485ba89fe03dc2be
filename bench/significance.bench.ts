/**
 * Significance-test benchmark: the paper's 20 paired randomization tests (PAPER_TESTS: 5 run
 * pairs × 4 metrics) with 100,000 sign flips each over 283 queries, on synthetic per-query
 * values (the timing does not depend on the values), through `compareRuns` exactly as
 * `gbr compare` and the report call it.
 *
 * Set against a baseline measured in the same process: the same test written the direct way
 * (one numpy sign per query per flip, drawn in JavaScript), timed on one test and multiplied by
 * 20. Both give identical p-values; the bench checks that too.
 *
 * Run: node --expose-gc --import tsx bench/significance.bench.ts [--quick] [--json FILE]
 */
import { writeFileSync } from "node:fs";
import { METRICS, type MetricValues } from "../lib/eval/metrics";
import { compareRuns, type RunScores } from "../lib/eval/compare-runs";
import { pairedRandomizationTest } from "../lib/eval/randomization";
import { PAPER_TESTS } from "../lib/eval/significance";
import { Pcg64 } from "../lib/numeric/random";

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const jsonOut = args.includes("--json") ? args[args.indexOf("--json") + 1] : undefined;
const QUERIES = 283;
const SWAPS = 100_000;
const REPS = quick ? 3 : 7;

/** Per-query values for the six runs the paper's tests involve, seeded. */
function syntheticRuns(): RunScores[] {
  const names = ["bm25-greekstemmer", "reform:bm25-greekstemmer", "dense:qwen3-8b", "reform:dense:qwen3-8b", "react-bm25", "dense:gemini-001"];
  const qids = Array.from({ length: QUERIES }, (_, i) => `q${i + 1}`);
  return names.map((name, k) => {
    const rng = Pcg64.fromSeed(1000 + k);
    const perQuery = new Map<string, MetricValues>(qids.map((q) => [q, Object.fromEntries(METRICS.map((m) => [m, rng.nextDouble() * (0.5 + 0.08 * k)])) as MetricValues]));
    return { name, perQuery };
  });
}

/** The direct way, as the authors' notebook: n signs of numpy's `choice([-1, 1])` per flip, one query at a time. */
function naiveP(a: number[], b: number[], swaps: number, seed: number): number {
  const n = a.length;
  const d = a.map((x, i) => x - b[i]);
  const observed = Math.abs(d.reduce((s, x) => s + x, 0) / n);
  const rng = Pcg64.fromSeed(seed);
  let extreme = 0;
  for (let f = 0; f < swaps; f++) {
    const signs = rng.choiceSigns(n);
    let s = 0;
    for (let i = 0; i < n; i++) s += signs[i] * d[i];
    if (Math.abs(s / n) >= observed - 1e-12) extreme++;
  }
  return (extreme + 1) / (swaps + 1);
}

function time<T>(reps: number, fn: () => T): { first: number; median: number; value: T } {
  const times: number[] = [];
  let value!: T;
  for (let i = 0; i < reps; i++) {
    (globalThis as { gc?: () => void }).gc?.();
    const t0 = performance.now();
    value = fn();
    times.push(performance.now() - t0);
  }
  const rest = times.slice(1).sort((x, y) => x - y);
  return { first: times[0], median: rest.length ? rest[rest.length >> 1] : times[0], value };
}

const runs = syntheticRuns();
const fast = time(REPS, () => compareRuns(runs, runs[0].perQuery.keys(), { ...PAPER_TESTS, swaps: SWAPS, seed: 42 }));
const column = (r: RunScores, m: (typeof METRICS)[number]) => [...r.perQuery.values()].map((v) => v[m]);
const [a, b] = [runs.find((r) => r.name === "react-bm25")!, runs.find((r) => r.name === "reform:bm25-greekstemmer")!];
const one = time(quick ? 1 : 3, () => naiveP(column(a, "nDCG@10"), column(b, "nDCG@10"), SWAPS, 42));
const fastOne = pairedRandomizationTest(column(a, "nDCG@10"), column(b, "nDCG@10"), { swaps: SWAPS, seed: 42 }).p;
if (fastOne !== one.value) throw new Error(`fast and direct p differ: ${fastOne} vs ${one.value}`);

const figures = {
  tests: fast.value.tests.length,
  swaps: SWAPS,
  queries: QUERIES,
  firstMs: Math.round(fast.first),
  medianMs: Math.round(fast.median),
  perTestMs: +(fast.median / fast.value.tests.length).toFixed(2),
  directOneTestMs: Math.round(one.median),
  directTwentyTestsMs: Math.round(one.median * 20),
  speedup: +((one.median * 20) / fast.median).toFixed(1),
};
console.log(`significance: ${figures.tests} tests × ${SWAPS.toLocaleString("en-US")} swaps × ${QUERIES} queries (PAPER_TESTS, compareRuns)`);
console.log(`  compareRuns        ${figures.medianMs} ms (median of ${REPS - 1}; first call ${figures.firstMs} ms), ${figures.perTestMs} ms per test`);
console.log(`  direct, per query  ${figures.directTwentyTestsMs} ms (one test ${figures.directOneTestMs} ms × 20): ${figures.speedup}× slower; same p`);
if (jsonOut) writeFileSync(jsonOut, JSON.stringify(figures, null, 2) + "\n");
