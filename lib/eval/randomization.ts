/**
 * The paper's significance test and its correction: two-sided paired randomization (sign-flip)
 * tests on per-query differences, and Holm–Bonferroni over every test reported.
 *
 * Unlike ranx (see ANCHORS.md), p counts the observed arrangement (the "+1", so p is never 0),
 * the Holm correction is built in, and every test is seeded on its own, so a test's p depends
 * only on its two runs, the metric, the swaps and the seed — never on which other tests ran
 * or in what order.
 */
import { rotl, seedState } from "../util/random";

// ---------------------------------------------------------------- the paired randomization test

/**
 * Result of one paired test: the two means, their difference (a − b) and the two-sided p.
 */
export interface PairedTestResult {
  meanA: number;
  meanB: number;
  delta: number;
  p: number;
}

/**
 * Options of the randomization test; the defaults are the paper's.
 */
export interface RandomizationOptions {
  /** Random sign-flip patterns drawn (default 100,000, the paper's). */
  swaps?: number;
  /** PRNG seed (default 42, the paper's). */
  seed?: number;
}

/** The paper's tolerance: a flipped mean counts as "at least as extreme" within 1e-12. */
const TIE_TOLERANCE = 1e-12;

/**
 * Two-sided paired randomization (sign-flip) test of H0 "a and b are exchangeable per query",
 * on the differences d = a − b:
 * p = (#{flips: |mean of s·d| ≥ |mean of d| − 1e-12} + 1) / (swaps + 1),
 * each flip drawing an independent random sign s_i per query.
 *
 * Why it is fast (the paper's 20 tests × 100,000 flips × 283 queries in well under a second):
 * the queries are cut into blocks of 8, and for each block a 256-entry table holds the signed
 * sum of that block for every sign pattern; a flip is then one 32-bit random word per 4 blocks
 * and one table lookup per block (36 lookups for 283 queries instead of 283 sign decisions).
 * The tolerance is absolute, as in the paper: right for metric values in [0, 1], where rounding
 * differences between summation orders are ~1e-15.
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
  // Padding with zero differences keeps the inner loop uniform (4 lookups per random word);
  // a zero contributes ±0 to every sum, so it changes nothing.
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
      // xoshiro128** inlined (same steps as Xoshiro128ss.nextUint32): a call per word would cost
      // as much as the lookups themselves.
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

/**
 * For each block of 8 differences, the signed sum for all 256 sign patterns: bit j of the
 * pattern set means difference j of the block is negated.
 */
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

// ---------------------------------------------------------------- multiple comparisons

/**
 * Holm–Bonferroni adjusted p-values, in input order: sort ascending, multiply the i-th smallest
 * (0-based) by (m − i), carry the running maximum so adjusted values never decrease with the
 * raw ones, cap at 1. Reject at level α exactly when the adjusted p < α. Controls the
 * family-wise error over all m tests without assuming independence (the paper's 20 tests share
 * runs and queries, so they are far from independent).
 */
export function holm(pValues: readonly number[]): number[] {
  const m = pValues.length;
  for (const p of pValues) if (!(p >= 0 && p <= 1)) throw new RangeError(`p-values must lie in [0, 1], got ${p}`);
  // Ties keep input order (stable sort), which does not change the result: tied raw p-values
  // get the same adjusted value through the running maximum.
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
