/** Percentile bootstrap intervals of a mean, drawn from the project's seeded generator. */
import { Pcg64 } from "../util/random";

export interface BootstrapOptions {
  /** Resamples drawn (default 10,000). */
  resamples?: number;
  /** PRNG seed (default 42). */
  seed?: number;
  /** Coverage of the interval (default 0.95). */
  level?: number;
}

/** A percentile bootstrap interval of the mean, with the settings that produced it. */
export interface BootstrapInterval {
  mean: number;
  lower: number;
  upper: number;
  level: number;
  resamples: number;
}

/** Percentile bootstrap CI of the mean (numpy's linear quantiles of the resampled means), seeded; not BCa. */
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
  const rng = Pcg64.fromSeed(opts.seed ?? 42);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += x[rng.integers(n)];
    means[r] = s / n;
  }
  means.sort();
  return { mean: total / n, lower: quantile(means, (1 - level) / 2), upper: quantile(means, (1 + level) / 2), level, resamples };
}

// numpy "linear" (R type 7), not simple-statistics' quantileSorted (type 2): that would move every interval.
function quantile(sorted: Float64Array, q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}
