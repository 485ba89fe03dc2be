/** Percentile bootstrap intervals of means, drawn from the project's seeded generator. */
import { GatherKernel } from "../numeric/gather-kernel";
import { Pcg64 } from "../numeric/random";

/** Resamples (default 10,000), seed (default 42) and coverage (default 0.95). */
export type BootstrapOptions = { resamples?: number; seed?: number; level?: number };

export type BootstrapInterval = { mean: number; lower: number; upper: number; level: number; resamples: number };

/** Percentile bootstrap CI of the mean (numpy's linear quantiles of the resampled means), seeded; not BCa. */
export function bootstrapCI(values: ArrayLike<number>, opts: BootstrapOptions = {}): BootstrapInterval {
  return bootstrapCIs([values], opts)[0];
}

/** Resampled index entries held at once (16 bytes each with the doubles they come from): about 32 MB. */
const BLOCK_ENTRIES = 1 << 21;

/**
 * `bootstrapCI` of paired series (same items, same order): one set of resamples, each series the interval it gets
 * alone. As numpy's `(default_rng(seed).random((resamples, n)) * n).astype(int)`, up to the summation's last bits.
 */
export function bootstrapCIs(series: readonly ArrayLike<number>[], opts: BootstrapOptions = {}): BootstrapInterval[] {
  const resamples = opts.resamples ?? 10_000;
  const level = opts.level ?? 0.95;
  if (!Number.isInteger(resamples) || resamples < 1) throw new RangeError(`resamples must be a positive integer, got ${resamples}`);
  if (!(level > 0 && level < 1)) throw new RangeError(`level must lie strictly between 0 and 1, got ${level}`);
  const s = series.length;
  if (s === 0) return [];
  const n = series[0].length;
  if (n === 0) throw new RangeError("bootstrap needs at least one value");
  for (const [k, v] of series.entries()) if (v.length !== n) throw new RangeError(`paired series must have the same length: series ${k} has ${v.length}, series 0 has ${n}`);
  // Row i of X: item i's value in every series (the kernel gathers whole rows).
  const X = new Float64Array(n * s);
  const means = new Float64Array(s);
  for (let k = 0; k < s; k++) {
    const v = series[k];
    let total = 0;
    for (let i = 0; i < n; i++) {
      X[i * s + k] = v[i];
      total += v[i];
    }
    means[k] = total / n;
  }

  const rng = Pcg64.fromSeed(opts.seed ?? 42);
  const kernel = new GatherKernel();
  const block = Math.max(1, Math.min(resamples, Math.floor(BLOCK_ENTRIES / n)));
  const u = new Float64Array(block * n);
  const counts = new Int32Array(n);
  const starts = new Int32Array(block + 1);
  const index = new Int32Array(block * n);
  const weight = new Float64Array(block * n);
  const sums = new Float64Array(block * s);
  // Resampled means by series (column k of the resamples × series product), then sorted for the quantiles.
  const resampled = Array.from({ length: s }, () => new Float64Array(resamples));
  for (let r0 = 0; r0 < resamples; r0 += block) {
    const rows = Math.min(block, resamples - r0);
    const draws = u.subarray(0, rows * n);
    rng.fillDoubles(draws);
    let e = 0;
    for (let r = 0; r < rows; r++) {
      counts.fill(0);
      const at = r * n;
      // u < 1 - 2^-53, so u · n rounds below n: ⌊u · n⌋ is an item.
      for (let i = 0; i < n; i++) counts[(draws[at + i] * n) | 0]++;
      // Items in order (X's rows read forwards); written whether drawn or not, kept only if drawn: no branch to miss.
      for (let i = 0; i < n; i++) {
        const c = counts[i];
        index[e] = i;
        weight[e] = c;
        e += c === 0 ? 0 : 1;
      }
      starts[r + 1] = e;
    }
    if (!kernel.rows(starts, index, weight, X, s, sums, 0, rows)) throw new RangeError(`bootstrap of ${n} items × ${s} series does not fit the kernel's memory (4 GiB)`);
    for (let r = 0; r < rows; r++) for (let k = 0; k < s; k++) resampled[k][r0 + r] = sums[r * s + k] / n;
  }
  return resampled.map((m, k) => {
    m.sort();
    return { mean: means[k], lower: quantile(m, (1 - level) / 2), upper: quantile(m, (1 + level) / 2), level, resamples };
  });
}

// numpy "linear" (R type 7), not simple-statistics' quantileSorted (type 2): that would move every interval.
function quantile(sorted: Float64Array, q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}
