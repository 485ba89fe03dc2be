/** The tests `gbr compare --test` offers beside the paper's randomization.ts, and the corrections of `--correction`. */
import { mean, sampleStandardDeviation } from "simple-statistics";
import { holm } from "./randomization";

// jStat ships no types: only its Student t and normal CDFs are used, typed here.
const { studentt, normal } = require("jstat") as Record<"studentt" | "normal", { cdf(x: number, ...params: number[]): number }>;

export const PAIRED_TESTS = ["randomization", "t", "wilcoxon"] as const;
export type PairedTestName = (typeof PAIRED_TESTS)[number];
export const CORRECTIONS = ["holm", "bonferroni", "bh", "none"] as const;
export type Correction = (typeof CORRECTIONS)[number];
/** How outputs name them; a corrected p is keyed and headed by ADJUSTED_P (none: p alone). */
export const TEST_NAMES = { randomization: "paired randomization test", t: "paired t-test", wilcoxon: "Wilcoxon signed-rank test" } as const;
export const CORRECTION_NAMES = { holm: "Holm", bonferroni: "Bonferroni", bh: "Benjamini–Hochberg", none: "no correction" } as const;
export const ADJUSTED_P = { holm: "pHolm", bonferroni: "pBonferroni", bh: "pBH", none: undefined } as const;

export function checkFinite(xs: readonly number[], what: string): void {
  // NaN would flow silently through the library's sums and sorts into a plausible-looking number.
  for (let i = 0; i < xs.length; i++) if (!Number.isFinite(xs[i])) throw new RangeError(`${what}: value ${i} is not a finite number (${xs[i]})`);
}

export function checkPaired(a: readonly number[], b: readonly number[], what: string): void {
  if (a.length !== b.length) throw new RangeError(`${what} needs equally long inputs, got ${a.length} and ${b.length}`);
  checkFinite(a, what);
  checkFinite(b, what);
}

/** n pairs, the mean of a − b, t, its n − 1 degrees of freedom and the two-sided p. */
export type PairedTTest = { n: number; meanDiff: number; t: number; df: number; p: number };

/**
 * Two-sided paired t-test on d = a − b (jStat's t CDF). Not simple-statistics' `tTest(d, 0)`: its population sd
 * inflates t by √(n/(n−1)). All-zero differences give t = 0, p = 1; equal non-zero ones t = ±Infinity, p = 0.
 */
export function pairedTTest(a: readonly number[], b: readonly number[]): PairedTTest {
  checkPaired(a, b, "pairedTTest");
  const n = a.length;
  if (n < 2) throw new RangeError(`pairedTTest needs at least two pairs, got ${n}`);
  const d = a.map((x, i) => x - b[i]);
  const meanDiff = mean(d);
  const df = n - 1;
  const t = meanDiff / (sampleStandardDeviation(d) / Math.sqrt(n));
  if (Number.isNaN(t)) return { n, meanDiff, t: 0, df, p: 1 };
  // 2·F(−|t|) rather than 2·(1 − F(|t|)): no cancellation for small p. jStat gives NaN at ±∞.
  const p = Number.isFinite(t) ? Math.min(1, 2 * studentt.cdf(-Math.abs(t), df)) : 0;
  return { n, meanDiff, t, df, p };
}

/** 1-based ranks, tied values sharing the mean of the ranks they span. */
export function averageRanks(xs: readonly number[]): number[] {
  const order = xs.map((_, i) => i).sort((i, j) => xs[i] - xs[j]);
  const ranks = new Array<number>(xs.length);
  for (let lo = 0; lo < order.length; ) {
    let hi = lo + 1;
    while (hi < order.length && xs[order[hi]] === xs[order[lo]]) hi++;
    for (let k = lo; k < hi; k++) ranks[order[k]] = (lo + 1 + hi) / 2;
    lo = hi;
  }
  return ranks;
}

/**
 * Two-sided Wilcoxon signed-rank test on d = a − b with scipy.stats.wilcoxon's defaults (zero_method "wilcox",
 * correction False, method "auto"): zero differences dropped, |d| ranked (ties averaged), statistic min(R+, R−).
 * As scipy's "auto" chooses (counting pairs with zeros): up to 50 pairs with no zero and no tie, the exact null
 * distribution; up to 13 with either, all 2^n sign flips (its exact permutation test); else the normal approximation
 * with the tie correction. All differences zero: p = 1, as the other tests (scipy: NaN past 13 pairs).
 *
 * @example
 * wilcoxonTest([1, 2, 3, 4, 5], [0, 0, 0, 0, 0]).p; // 0.0625 = 2 · 1/32
 */
export function wilcoxonTest(a: readonly number[], b: readonly number[]): { n: number; statistic: number; p: number } {
  checkPaired(a, b, "wilcoxonTest");
  const d = a.map((x, i) => x - b[i]).filter((x) => x !== 0);
  const n = d.length;
  const ranks = averageRanks(d.map(Math.abs));
  const plus = ranks.reduce((s, r, i) => s + (d[i] > 0 ? r : 0), 0);
  const statistic = Math.min(plus, (n * (n + 1)) / 2 - plus);
  if (n === 0) return { n, statistic, p: 1 };
  const ties = [...new Set(ranks)].map((r) => ranks.filter((x) => x === r).length).reduce((s, t) => s + t ** 3 - t, 0);
  if (a.length <= 13 || (a.length <= 50 && n === a.length && ties === 0)) return { n, statistic, p: signFlipP(ranks, plus) };
  const z = (plus - (n * (n + 1)) / 4) / Math.sqrt((n * (n + 1) * (2 * n + 1) - ties / 2) / 24);
  return { n, statistic, p: Math.min(1, 2 * normalTail(Math.abs(z))) };
}

/** 2·min(P(R+ ≤ r), P(R+ ≥ r)) over the 2^n signs of the ranks (half-ranks doubled to count sums exactly). */
function signFlipP(ranks: readonly number[], plus: number): number {
  let counts = [1];
  for (const r of ranks) {
    const next = [...counts, ...new Array<number>(2 * r).fill(0)];
    counts.forEach((c, s) => (next[s + 2 * r] += c));
    counts = next;
  }
  const below = counts.slice(0, 2 * plus + 1).reduce((s, c) => s + c, 0);
  const above = counts.slice(2 * plus).reduce((s, c) => s + c, 0);
  return Math.min(1, (2 * Math.min(below, above)) / 2 ** ranks.length);
}

/** Φ(−z), z ≥ 0: jStat's CDF; past 3, where its 1 + erf(−x) cancels, the continued fraction of Mills' ratio. */
function normalTail(z: number): number {
  if (z < 3) return normal.cdf(-z, 0, 1);
  let f = z;
  for (let k = 100; k >= 1; k--) f = z + k / f;
  return Math.exp((-z * z) / 2) / Math.sqrt(2 * Math.PI) / f;
}

/**
 * Corrected p-values in input order: Holm (step-down), Bonferroni min(1, m·p), Benjamini–Hochberg (step-up,
 * statsmodels' fdr_bh: the running minimum of m/i · p₍ᵢ₎ from the largest down, at most 1), or none.
 *
 * @example
 * correct([0.01, 0.04, 0.03], "bh"); // [0.03, 0.04, 0.04]
 */
export function correct(pValues: readonly number[], correction: Correction): number[] {
  if (correction === "holm") return holm(pValues);
  for (const p of pValues) if (!(p >= 0 && p <= 1)) throw new RangeError(`p-values must lie in [0, 1], got ${p}`);
  const m = pValues.length;
  if (correction !== "bh") return pValues.map((p) => (correction === "none" ? p : Math.min(1, m * p)));
  const order = pValues.map((_, i) => i).sort((i, j) => pValues[i] - pValues[j]);
  const out = new Array<number>(m);
  let running = 1;
  for (let r = m - 1; r >= 0; r--) out[order[r]] = running = Math.min(running, (m / (r + 1)) * pValues[order[r]]);
  return out;
}
