/**
 * The paper's paired sign-flip test and Holm, drawn as the authors' notebook: numpy's `default_rng(seed)`, 100 batches
 * of `choice([-1, 1], size=(1000, n))` per test, one stream per family in order; unlike ranx (ANCHORS.md), p counts +1.
 */
import { Pcg64 } from "../numeric/random";

/** Flips (default 100,000), numpy seed (default 42; a bigint past 2^53), or the stream to continue (one per family). */
export type RandomizationOptions = { swaps?: number; seed?: number | bigint; rng?: Pcg64 };

/** The paper's tolerance: a flipped mean counts as "at least as extreme" within 1e-12. */
const TIE_TOLERANCE = 1e-12;

/** Flips drawn per call of the sign kernel: the authors' batch (the stream is the same for any batch). */
const BATCH = 1000;

/**
 * Two-sided paired sign-flip test on d = a − b: p = (#{flips: |mean of s·d| ≥ |mean of d| − 1e-12} + 1) / (swaps + 1),
 * flip r negating query i when numpy's `choice([-1, 1])` draws −1 for (r, i). Sums come from a 256-entry table per
 * block of 8 queries, differing from numpy's by rounding the 1e-12 absorbs (shared/oracles/numpy-rng: numpy's counts).
 */
export function pairedRandomizationTest(a: readonly number[], b: readonly number[], opts: RandomizationOptions = {}) {
  const n = a.length;
  if (b.length !== n) throw new RangeError(`paired test needs equally long inputs, got ${n} and ${b.length}`);
  if (n === 0) throw new RangeError("paired test needs at least one query");
  const swaps = opts.swaps ?? 100_000;
  if (!Number.isInteger(swaps) || swaps < 1) throw new RangeError(`swaps must be a positive integer, got ${swaps}`);
  const rng = opts.rng ?? Pcg64.fromSeed(opts.seed ?? 42);

  const blocks = Math.ceil(n / 8);
  const d = new Float64Array(blocks * 8);
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

  const table = signedBlockSums(d, blocks);
  let extreme = 0;
  for (let done = 0; done < swaps; done += BATCH) {
    const flips = Math.min(BATCH, swaps - done);
    const signs = rng.packedSigns(flips, n);
    for (let f = 0, at = 0; f < flips; f++) {
      let sum = 0;
      for (let c = 0, base = 0; c < blocks; c++, base += 256) sum += table[base + signs[at++]];
      if (Math.abs(sum / n) >= threshold) extreme++;
    }
  }
  return { meanA, meanB, delta: meanA - meanB, extreme, p: (extreme + 1) / (swaps + 1) };
}

/** Per block of 8 differences, the signed sum for all 256 sign patterns (bit j set: difference j negated). */
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

/** Holm–Bonferroni adjusted p in input order; no independence assumed (the paper's 20 tests share runs and queries). */
export function holm(pValues: readonly number[]): number[] {
  const m = pValues.length;
  for (const p of pValues) if (!(p >= 0 && p <= 1)) throw new RangeError(`p-values must lie in [0, 1], got ${p}`);
  // Stable sort; tied p-values get the same adjusted value through the running maximum anyway.
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
