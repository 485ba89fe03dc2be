/**
 * The paper's significance test: two-sided paired randomization (sign-flip) tests, with Holm–Bonferroni. Unlike
 * ranx (ANCHORS.md), p counts the observed arrangement (+1, never 0) and every test is seeded on its own.
 */
import { rotl, seedState } from "../util/random";

/** Result of one paired test: the two means, their difference (a − b) and the two-sided p. */
export interface PairedTestResult {
  meanA: number;
  meanB: number;
  delta: number;
  p: number;
}

/** Options of the randomization test; the defaults are the paper's. */
export interface RandomizationOptions {
  /** Random sign-flip patterns drawn (default 100,000, the paper's). */
  swaps?: number;
  /** PRNG seed (default 42, the paper's). */
  seed?: number;
}

/** The paper's tolerance: a flipped mean counts as "at least as extreme" within 1e-12. */
const TIE_TOLERANCE = 1e-12;

/**
 * Two-sided paired sign-flip test on d = a − b, each flip drawing a random sign per query:
 * p = (#{flips: |mean of s·d| ≥ |mean of d| − 1e-12} + 1) / (swaps + 1).
 * Fast: per block of 8 queries a 256-entry table of signed sums, so a flip is one 32-bit random word per 4
 * blocks and one lookup per block. The tolerance is absolute, as in the paper (right for values in [0, 1]).
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
  // Zero-difference padding keeps the loop uniform (4 lookups per word) and adds ±0 to every sum.
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
      // xoshiro128** inlined (as Xoshiro128ss.nextUint32): a call per word would cost as much as the lookups.
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

/**
 * Holm–Bonferroni adjusted p-values in input order (sorted, i-th smallest × (m − i), running max, capped at 1).
 * Controls family-wise error without assuming independence: the paper's 20 tests share runs and queries.
 */
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
