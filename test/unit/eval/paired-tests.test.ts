/**
 * lib/eval/paired-tests.ts against values worked by hand from the published definitions (in the comments), brute-force
 * enumerations written out here, scipy's documentation (scipy.stats.wilcoxon's corn-plant example) and scipy 1.17.1's
 * `wilcoxon(d).pvalue` on the data shown; never the code under test.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { correct, wilcoxonTest } from "../../../lib/eval/paired-tests";
import { chosenComparison, compareRuns } from "../../../lib/eval/compare-runs";
import { holm, pairedRandomizationTest } from "../../../lib/eval/randomization";
import { pairedTTest } from "../../../lib/eval/statistics";
import type { MetricValues } from "../../../lib/eval/metrics";

const close = (got: number, want: number, rel: number, label = "") =>
  assert.ok(Math.abs(got - want) <= rel * Math.abs(want), `${label}: got ${got}, want ${want} (±${rel} relative)`);
const zeros = (n: number) => new Array<number>(n).fill(0);
/** Φ(−z) = ∫ φ from z to ∞, by Simpson's rule over [z, z + 12] (what lies beyond is below 1e-30 of it). */
const normalTail = (z: number) => {
  const steps = 20_000;
  const h = 12 / steps;
  const phi = (t: number) => Math.exp((-t * t) / 2) / Math.sqrt(2 * Math.PI);
  let s = phi(z) + phi(z + 12);
  for (let i = 1; i < steps; i++) s += (i % 2 ? 4 : 2) * phi(z + i * h);
  return (s * h) / 3;
};

test("wilcoxon: scipy's documented corn-plant example (exact, 15 pairs): statistic 24, p 0.041259765625", () => {
  // scipy.stats.wilcoxon's docstring: d = [6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75] gives
  // (24.0, 0.041259765625). By hand: |d| ranks 1..15 in order, the negatives (48, 67) rank 10 and 14: R− = 24.
  const d = [6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75];
  const r = wilcoxonTest(d, zeros(15));
  assert.equal(r.statistic, 24);
  assert.equal(r.p, 0.041259765625);
  // The same by enumeration: the 2^15 subsets of ranks 1..15 with a sum of at most 24, doubled, over 2^15.
  let atMost = 0;
  for (let mask = 0; mask < 2 ** 15; mask++) {
    let sum = 0;
    for (let i = 0; i < 15; i++) if ((mask >>> i) & 1) sum += i + 1;
    if (sum <= 24) atMost++;
  }
  assert.equal(r.p, (2 * atMost) / 2 ** 15);
  // Its normal approximation (docstring: 0.04088813291185591) is z = (96 − 60)/√(15·16·31/24) = 36/√310.
  close(2 * normalTail(36 / Math.sqrt(310)), 0.04088813291185591, 1e-12, "the docstring's approximation, by hand");
});

test("wilcoxon: ties or zeros within 13 pairs: all 2^n sign flips of the averaged ranks (scipy's exact permutation)", () => {
  // [0, 1, 1, 2, 3]: the zero dropped; ranks 1.5, 1.5, 3, 4, all positive, R+ = 10 is the largest of 16 sums: p = 2/16.
  assert.deepEqual(wilcoxonTest([0, 1, 1, 2, 3], zeros(5)), { n: 4, statistic: 0, p: 0.125 });
  // 13 pairs [1, −1, 2, 2, 3 … 11]: ranks 1.5, 1.5, 3.5, 3.5, 5 … 13; R− = 1.5. Sums ≤ 1.5: {}, {1.5}, {1.5'}: 3 of
  // 8192, p = 6/8192 = 0.000732421875 (scipy 1.17.1 the same).
  const d = [1, -1, 2, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
  assert.deepEqual(wilcoxonTest(d, zeros(13)), { n: 13, statistic: 1.5, p: 6 / 8192 });
  // A swap negates every difference: the same two-sided p.
  assert.equal(wilcoxonTest(zeros(13), d).p, 6 / 8192);
});

test("wilcoxon: ties past 13 pairs or more than 50 pairs: the normal approximation with the tie correction", () => {
  // 14 pairs [1, −1, 2, 2, 3 … 12]: R+ = 105 − 1.5 = 103.5, mean 14·15/4 = 52.5; variance (14·15·29 − (6 + 6)/2)/24
  // = 6084/24 = 253.5 (two ties of two: t³ − t = 6 each). z = 51/√253.5. scipy 1.17.1: 0.001359195205804541.
  const tied = [1, -1, 2, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
  const r = wilcoxonTest(tied, zeros(14));
  close(r.p, 2 * normalTail(51 / Math.sqrt(253.5)), 1e-12, "by hand");
  close(r.p, 0.001359195205804541, 1e-12, "scipy");
  // 51 distinct pairs, −1 … −10 then 11 … 51: R− = 55, R+ = 1326 − 55 = 1271, mean 663, variance 51·52·103/24 = 11381.5.
  const d51 = [...Array.from({ length: 10 }, (_, i) => -(i + 1)), ...Array.from({ length: 41 }, (_, i) => i + 11)];
  close(wilcoxonTest(d51, zeros(51)).p, 2 * normalTail(608 / Math.sqrt(11381.5)), 1e-9, "by hand");
  close(wilcoxonTest(d51, zeros(51)).p, 1.204642740368099e-8, 1e-12, "scipy");
  // Far in the tail the p keeps its digits: 1 … 60 all positive, z = 915/√18452.5 ≈ 6.74; scipy 1.6295557943119345e-11.
  close(wilcoxonTest(Array.from({ length: 60 }, (_, i) => i + 1), zeros(60)).p, 1.6295557943119345e-11, 1e-12, "tail");
});

test("wilcoxon: up to 50 distinct non-zero pairs use the exact distribution (scipy 1.17.1's values)", () => {
  // −1 … −15 then 16 … 50: R− = 120; p = 2·P(R+ ≤ 120) over 2^50 sign patterns.
  const d = [...Array.from({ length: 15 }, (_, i) => -(i + 1)), ...Array.from({ length: 35 }, (_, i) => i + 16)];
  close(wilcoxonTest(d, zeros(50)).p, 4.578190981874286e-8, 1e-12, "n = 50");
});

test("wilcoxon: no non-zero difference gives p = 1 (scipy: NaN past 13 pairs); bad input is refused", () => {
  assert.deepEqual(wilcoxonTest([0.2, 0.5, 0.5], [0.2, 0.5, 0.5]), { n: 0, statistic: 0, p: 1 });
  assert.equal(wilcoxonTest(zeros(40), zeros(40)).p, 1);
  assert.throws(() => wilcoxonTest([1, 2], [1]), /equally long inputs, got 2 and 1/);
  assert.throws(() => wilcoxonTest([1, NaN], [0, 0]), /value 1 is not a finite number/);
});

test("correct: Holm, Bonferroni, Benjamini–Hochberg and none on a hand-worked family, in input order", () => {
  const p = [0.01, 0.04, 0.03, 0.005];
  // Bonferroni: 4·p.
  const bonferroni = correct(p, "bonferroni");
  [0.04, 0.16, 0.12, 0.02].forEach((want, i) => close(bonferroni[i], want, 1e-12, `bonferroni ${i}`));
  // Holm, ascending 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 → running max 0.06.
  const h = correct(p, "holm");
  [0.03, 0.06, 0.06, 0.02].forEach((want, i) => close(h[i], want, 1e-12, `holm ${i}`));
  assert.deepEqual(h, holm(p));
  // BH, ascending m/i·p: 4·0.005 = 0.02, 2·0.01 = 0.02, 4/3·0.03 = 0.04, 1·0.04 = 0.04; running min from the top.
  const bh = correct(p, "bh");
  [0.02, 0.04, 0.04, 0.02].forEach((want, i) => close(bh[i], want, 1e-12, `bh ${i}`));
  assert.deepEqual(correct(p, "none"), p);
  // Clipped at 1; BH's step-up can lower a value below m/i·p (0.5·2 = 1 becomes 0.6), Holm's step-down cannot.
  assert.deepEqual(correct([0.5, 0.6], "bonferroni"), [1, 1]);
  assert.deepEqual(correct([0.5, 0.6], "bh"), [0.6, 0.6]);
  assert.deepEqual(correct([0.5, 0.6], "holm"), [1, 1]);
  assert.deepEqual(correct([], "bh"), []);
  assert.throws(() => correct([0.2, 1.5], "bh"), /p-values must lie in \[0, 1\], got 1.5/);
  assert.throws(() => correct([NaN], "bonferroni"), /got NaN/);
});

test("correct: Benjamini and Hochberg's (1995) worked example of 15 p-values: BH rejects 4 at 0.05, Bonferroni and Holm 3", () => {
  // J. R. Stat. Soc. B 57(1), the example of section 4 (a trial's 15 hypotheses).
  const p = [0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459, 0.324, 0.4262, 0.5719, 0.6528, 0.759, 1];
  const rejected = (adjusted: number[]) => adjusted.filter((x) => x < 0.05).length;
  const bh = correct(p, "bh");
  assert.equal(rejected(bh), 4);
  assert.equal(rejected(correct(p, "bonferroni")), 3);
  assert.equal(rejected(correct(p, "holm")), 3);
  // By hand: the 4th is 15/4·0.0095 = 0.035625; the 5th min(15/5·0.0201, 15/7·0.0298, …) = 0.0603.
  close(bh[3], 0.035625, 1e-12, "4th");
  close(bh[4], 0.0603, 1e-12, "5th");
  close(bh[5], (15 / 7) * 0.0298, 1e-12, "6th, from the 7th");
  // Monotone: adjusted values follow the order of the raw ones.
  for (let i = 1; i < p.length; i++) assert.ok(bh[i] >= bh[i - 1]);
});

test("compareRuns --test t | wilcoxon: each p is that test on the per-query columns, the means as the randomization test's", () => {
  // Dyadic values, so the tied differences are tied in binary floating point too.
  const a = [0.75, 0.25, 0.625, 0.5, 0.875, 0.25, 0.875, 0.75];
  const b = [0.25, 0.25, 0.5, 0.125, 0.5, 0.375, 0.25, 0.25];
  const run = (name: string, xs: number[]) => ({ name, perQuery: new Map(xs.map((x, i) => [`q${i}`, { "nDCG@10": x } as MetricValues])) });
  const qids = a.map((_, i) => `q${i}`);
  const opts = { metrics: ["nDCG@10"] as const };
  const randomization = compareRuns([run("x", a), run("y", b)], qids, { ...opts, swaps: 1000 }).tests[0];
  for (const [test, p] of [["t", pairedTTest(a, b).p], ["wilcoxon", wilcoxonTest(a, b).p]] as const) {
    const [t] = compareRuns([run("x", a), run("y", b)], qids, { ...opts, test }).tests;
    assert.equal(t.p, p, test);
    assert.deepEqual([t.meanA, t.meanB, t.delta], [randomization.meanA, randomization.meanB, randomization.delta]);
  }
  // The wilcoxon one by hand: d = 0.5, 0, 0.125, 0.375, 0.375, −0.125, 0.625, 0.5 (the zero dropped, 7 left, ≤ 13
  // with ties): |d| ranks 0.125 → 1.5, 1.5; 0.375 → 3.5, 3.5; 0.5 → 5.5, 5.5; 0.625 → 7. R− = 1.5; sums ≤ 1.5 are
  // 3 of 128: p = 6/128.
  assert.equal(compareRuns([run("x", a), run("y", b)], qids, { ...opts, test: "wilcoxon" }).tests[0].p, 6 / 128);
  assert.deepEqual(randomization.p, pairedRandomizationTest(a, b, { swaps: 1000 }).p);
});

test("chosenComparison: the defaults give the comparison itself; another choice names itself and keys its p", () => {
  const tests = [0.01, 0.04].map((p, i) => ({ a: "x", b: "y", metric: `m${i}` as "nDCG@10", meanA: 1, meanB: 0, delta: 1, p, pHolm: holm([0.01, 0.04])[i] }));
  const comparison = { tests };
  assert.equal(chosenComparison(comparison, "randomization", "holm"), comparison);
  const bh = chosenComparison(comparison, "randomization", "bh");
  assert.deepEqual(Object.keys(bh), ["test", "correction", "tests"]);
  assert.deepEqual(bh.tests.map((t) => Object.keys(t)), tests.map(() => ["a", "b", "metric", "meanA", "meanB", "delta", "p", "pBH"]));
  assert.deepEqual(bh.tests.map((t) => (t as { pBH?: number }).pBH), [0.02, 0.04]); // 2·0.01, 1·0.04
  const none = chosenComparison(comparison, "wilcoxon", "none");
  assert.deepEqual([none.tests[0], Object.keys(none)], [{ a: "x", b: "y", metric: "m0", meanA: 1, meanB: 0, delta: 1, p: 0.01 }, ["test", "correction", "tests"]]);
  assert.equal((chosenComparison(comparison, "t", "holm").tests[1] as { pHolm?: number }).pHolm, 0.04);
});
