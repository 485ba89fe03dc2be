/**
 * Bootstrap benchmark: the report's whiskers for a full run, 67 experiments × 2 metrics over greeklaws-2021's 4,355
 * queries, 10,000 resamples, through `bootstrapCIs` (one set of resamples drawn once, the resampled sums in the
 * WebAssembly gather kernel), on synthetic values (the timing does not depend on them).
 *
 * Set against the same resampled sums in plain JavaScript (the kernel's loop, four entries at a time), timed on a
 * tenth of the resamples and multiplied by ten, after checking on a few resamples that both give the same sums.
 *
 * Run: node --expose-gc --import tsx bench/bootstrap.bench.ts [--quick] [--json FILE]
 */
import { writeFileSync } from "node:fs";
import { bootstrapCIs } from "../lib/eval/bootstrap";
import { Pcg64 } from "../lib/numeric/random";

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const jsonOut = args.includes("--json") ? args[args.indexOf("--json") + 1] : undefined;
const QUERIES = 4_355;
const SERIES = 67 * 2;
const RESAMPLES = 10_000;
const REPS = quick ? 1 : 3;

const rng = Pcg64.fromSeed(7);
const series = Array.from({ length: SERIES }, () => Float64Array.from({ length: QUERIES }, () => rng.nextDouble()));

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const times: { wall: number; cpu: number }[] = [];
for (let i = 0; i < REPS; i++) {
  (globalThis as { gc?: () => void }).gc?.();
  const c0 = cpuMs();
  const t0 = performance.now();
  bootstrapCIs(series, { resamples: RESAMPLES });
  times.push({ wall: performance.now() - t0, cpu: cpuMs() - c0 });
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/** The resampled sums of `resamples` resamples in JavaScript: counts per query, then Σ count · x row by row. */
function javascriptSums(resamples: number): { ms: number; sums: Float64Array } {
  const X = new Float64Array(QUERIES * SERIES);
  for (let k = 0; k < SERIES; k++) for (let i = 0; i < QUERIES; i++) X[i * SERIES + k] = series[k][i];
  const draw = Pcg64.fromSeed(42);
  const u = new Float64Array(QUERIES);
  const counts = new Int32Array(QUERIES);
  const sums = new Float64Array(resamples * SERIES);
  const t0 = performance.now();
  for (let r = 0; r < resamples; r++) {
    draw.fillDoubles(u);
    counts.fill(0);
    for (let i = 0; i < QUERIES; i++) counts[(u[i] * QUERIES) | 0]++;
    const o = r * SERIES;
    for (let i = 0; i < QUERIES; i++) {
      const c = counts[i];
      if (c === 0) continue;
      const x = i * SERIES;
      for (let k = 0; k < SERIES; k++) sums[o + k] += c * X[x + k];
    }
  }
  return { ms: performance.now() - t0, sums };
}

// Same intervals either way (the order of additions differs, so within float noise), then the JavaScript timing.
const few = 200;
const js = javascriptSums(few);
const fewCis = bootstrapCIs(series, { resamples: few });
/** numpy's linear quantile of sorted values, as lib/eval/bootstrap.ts takes it. */
function quantile(sorted: Float64Array, q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  return sorted[lo] + (h - lo) * (sorted[Math.min(lo + 1, sorted.length - 1)] - sorted[lo]);
}
for (let k = 0; k < SERIES; k++) {
  const means = Float64Array.from({ length: few }, (_, r) => js.sums[r * SERIES + k] / QUERIES).sort();
  const lower = quantile(means, 0.025);
  if (Math.abs(lower - fewCis[k].lower) > 1e-12) throw new Error(`series ${k}: JavaScript ${lower} vs kernel ${fewCis[k].lower}`);
}
const jsTenth = javascriptSums(RESAMPLES / 10);

const figures = {
  experiments: SERIES / 2,
  metrics: 2,
  queries: QUERIES,
  resamples: RESAMPLES,
  medianWallMs: Math.round(median(times.map((t) => t.wall))),
  medianCpuMs: Math.round(median(times.map((t) => t.cpu))),
  javascriptSumsMs: Math.round(jsTenth.ms * 10),
};
console.log(
  `bootstrapCIs, ${figures.experiments} experiments × 2 metrics × ${QUERIES.toLocaleString("en-US")} queries × ${RESAMPLES.toLocaleString("en-US")} resamples: ` +
    `${(figures.medianWallMs / 1000).toFixed(1)} s wall, ${(figures.medianCpuMs / 1000).toFixed(1)} s CPU (median of ${REPS}); ` +
    `the resampled sums alone in JavaScript: ${(figures.javascriptSumsMs / 1000).toFixed(1)} s`,
);
if (jsonOut) writeFileSync(jsonOut, JSON.stringify(figures, null, 2) + "\n");
