/**
 * lib/eval/statistics.ts against values worked by hand (in the comments) or from closed forms of
 * the Student t CDF and t-tables, never from the code under test; plus properties.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { sampleRankCorrelation, tTest } from "simple-statistics";
import { METRICS, type MetricValues } from "../../../lib/eval/metrics";
import { compareRuns } from "../../../lib/eval/compare-runs";
import { holm } from "../../../lib/eval/randomization";
import { describe, pairedTests, pairedTTest, perQueryCorrelation, spearman } from "../../../lib/eval/statistics";

const close = (got: number, want: number, eps: number, label = "") => assert.ok(Math.abs(got - want) <= eps, `${label}: got ${got}, want ${want} (±${eps})`);

/** Two-sided p of Student's t from its closed-form CDF for df = 2: F(t) = 1/2 + t / (2√(2 + t²)). */
const p2 = (t: number) => 1 - Math.abs(t) / Math.sqrt(2 + t * t);
/** Two-sided p for df = 4: F(t) = 1/2 + (3/8)·(t/√(1 + t²/4))·(1 − (1/12)·t²/(1 + t²/4)). */
const p4 = (t: number) => {
  const u = 1 + (t * t) / 4;
  return 1 - (3 / 4) * (Math.abs(t) / Math.sqrt(u)) * (1 - (t * t) / 12 / u);
};

// ---------------------------------------------------------------- describe

test("describe: an even list, checked by hand (sample sd, R type 2 quartiles)", () => {
  // Sorted: 2 4 4 4 5 5 7 9. Mean 40/8 = 5; squared deviations 9 1 1 1 0 0 4 16 = 32; sample
  // variance 32/7, sd √(32/7) ≈ 2.138. Median (4 + 5)/2 = 4.5. q1: n·p = 2 is whole, so the mean
  // of the 2nd and 3rd values, (4 + 4)/2 = 4; q3: n·p = 6, mean of the 6th and 7th, (5 + 7)/2 = 6.
  const d = describe([9, 2, 5, 4, 7, 4, 5, 4]);
  assert.deepEqual({ ...d, sd: 0 }, { n: 8, mean: 5, sd: 0, median: 4.5, q1: 4, q3: 6, min: 2, max: 9 });
  close(d.sd, Math.sqrt(32 / 7), 1e-12, "sd");
  // numpy's linear quartiles differ (4 and 5.5 here; 1.75 and 3.25 for [1, 2, 3, 4]), as the doc says.
  assert.deepEqual([describe([1, 2, 3, 4]).q1, describe([1, 2, 3, 4]).q3], [1.5, 3.5]);
});

test("describe: an odd list, checked by hand", () => {
  // Sorted: 1 3 7 8 20. Mean 39/5 = 7.8; deviations −6.8 −4.8 −0.8 0.2 12.2, squares
  // 46.24 + 23.04 + 0.64 + 0.04 + 148.84 = 218.8; sample variance 218.8/4 = 54.7.
  // q1: n·p = 1.25 → the ⌈1.25⌉ = 2nd value, 3; median: 2.5 → 3rd, 7; q3: 3.75 → 4th, 8.
  const d = describe([20, 7, 1, 8, 3]);
  assert.equal(d.n, 5);
  close(d.mean, 7.8, 1e-12, "mean");
  close(d.sd, Math.sqrt(54.7), 1e-12, "sd");
  assert.deepEqual([d.median, d.q1, d.q3, d.min, d.max], [7, 3, 8, 1, 20]);
});

test("describe: one value has sd NaN (no spread to estimate); empty and non-finite input are errors", () => {
  assert.deepEqual(describe([0.3]), { n: 1, mean: 0.3, sd: NaN, median: 0.3, q1: 0.3, q3: 0.3, min: 0.3, max: 0.3 });
  assert.equal(describe([0.3, 0.3]).sd, 0);
  assert.throws(() => describe([]), /at least one value/);
  assert.throws(() => describe([1, NaN]), /value 1 is not a finite number/);
  const xs = [3, 1, 2];
  describe(xs);
  assert.deepEqual(xs, [3, 1, 2], "input untouched");
});

// ---------------------------------------------------------------- paired t-test

test("pairedTTest: a 5-pair example worked by hand, p from the df = 4 closed form and the t-table", () => {
  // d = a − b = 0.20 0.05 0.30 −0.05 0.20; mean 0.70/5 = 0.14; deviations 0.06 −0.09 0.16 −0.19
  // 0.06, squares 0.0036 + 0.0081 + 0.0256 + 0.0361 + 0.0036 = 0.077; s² = 0.077/4 = 0.01925;
  // se = √(0.01925/5) = √0.00385 ≈ 0.062048; t = 0.14/0.062048 ≈ 2.2563, df = 4.
  // t-table, df = 4: 2.132 (p = 0.10) < 2.2563 < 2.776 (p = 0.05).
  const r = pairedTTest([0.6, 0.5, 0.9, 0.4, 0.7], [0.4, 0.45, 0.6, 0.45, 0.5]);
  assert.equal(r.n, 5);
  assert.equal(r.df, 4);
  close(r.meanDiff, 0.14, 1e-12, "meanDiff");
  close(r.t, 0.14 / Math.sqrt(0.00385), 1e-9, "t");
  close(r.t, 2.2563, 1e-4, "t by hand");
  assert.ok(r.p > 0.05 && r.p < 0.1, `p ${r.p} between the table's 0.05 and 0.10`);
  close(r.p, p4(0.14 / Math.sqrt(0.00385)), 1e-9, "p (closed form, df 4)");
});

test("pairedTTest: a 3-pair example with an exact p (df = 2)", () => {
  // d = 1 2 6: mean 3; deviations −2 −1 3, squares 4 + 1 + 9 = 14; s² = 7; se = √(7/3);
  // t = 3/√(7/3) = √(27/7); p = 1 − t/√(2 + t²) = 1 − √(27/7)/√(41/7) = 1 − √(27/41) ≈ 0.18850.
  const r = pairedTTest([1, 2, 6], [0, 0, 0]);
  close(r.t, Math.sqrt(27 / 7), 1e-12, "t");
  close(r.p, 1 - Math.sqrt(27 / 41), 1e-9, "p");
  close(r.p, p2(r.t), 1e-9, "p via the closed form");
});

test("pairedTTest: p at the t-table's 5% critical values (df 4: 2.776; df 10: 2.228)", () => {
  // Differences m + k with k = −2..2 (n = 5): Σk = 0, Σk² = 10, s² = 10/4 = 2.5, se = √(2.5/5) =
  // √0.5, so t = m/√0.5 = m·√2: m = 2.776/√2 gives t = 2.776.
  const k5 = [-2, -1, 0, 1, 2];
  const r4 = pairedTTest(k5.map((k) => 2.776 / Math.SQRT2 + k), [0, 0, 0, 0, 0]);
  assert.equal(r4.df, 4);
  close(r4.t, 2.776, 1e-9, "t, df 4");
  close(r4.p, 0.05, 1e-3, "p, df 4");
  // k = −5..5 (n = 11): Σk² = 110, s² = 110/10 = 11, se = √(11/11) = 1, so t = m.
  const k11 = Array.from({ length: 11 }, (_, i) => i - 5);
  const r10 = pairedTTest(k11.map((k) => 2.228 + k), new Array(11).fill(0));
  assert.equal(r10.df, 10);
  close(r10.t, 2.228, 1e-9, "t, df 10");
  close(r10.p, 0.05, 1e-3, "p, df 10");
  // The other way round: b better gives t < 0, the same p.
  const neg = pairedTTest(new Array(11).fill(0), k11.map((k) => 2.228 + k));
  close(neg.t, -2.228, 1e-9, "t negated");
  assert.equal(neg.p, r10.p);
});

test("simple-statistics' tTest divides by the population sd: why pairedTTest does not call it", () => {
  // If the library ever switches to the sample sd, this fails and pairedTTest could use tTest.
  const d = [1, 2, 6];
  close(tTest(d, 0), Math.sqrt(27 / 7) * Math.sqrt(3 / 2), 1e-12, "tTest = t·√(n/(n − 1))");
});

test("pairedTTest: identical runs give t = 0, p = 1; constant non-zero differences give p = 0", () => {
  assert.deepEqual(pairedTTest([0.2, 0.5, 0.9], [0.2, 0.5, 0.9]), { n: 3, meanDiff: 0, t: 0, df: 2, p: 1 });
  const shift = pairedTTest([1, 2, 3], [0, 1, 2]);
  assert.equal(shift.p, 0);
  assert.equal(shift.t, Infinity);
});

test("pairedTTest: errors name the lengths; fewer than two pairs and non-finite values are refused", () => {
  assert.throws(() => pairedTTest([1, 2, 3], [1, 2]), (e: Error) => e instanceof Error && /3 and 2/.test(e.message));
  assert.throws(() => pairedTTest([1], [2]), /at least two pairs, got 1/);
  assert.throws(() => pairedTTest([], []), /at least two pairs, got 0/);
  assert.throws(() => pairedTTest([1, Infinity], [0, 0]), /not a finite number/);
});

test("pairedTTest is antisymmetric: swapping a and b negates t and keeps p", () => {
  const pairs = fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true })), { minLength: 2, maxLength: 60 });
  fc.assert(
    fc.property(pairs, (rows) => {
      const a = rows.map((r) => r[0]);
      const b = rows.map((r) => r[1]);
      const ab = pairedTTest(a, b);
      const ba = pairedTTest(b, a);
      assert.ok(ba.t === -ab.t, `t ${ab.t} and ${ba.t}`);
      assert.equal(ba.p, ab.p);
      assert.ok(ab.p >= 0 && ab.p <= 1, `p ${ab.p}`);
    }),
  );
});

// ---------------------------------------------------------------- Spearman

test("spearman without ties: 1 − 6Σd²/(n(n² − 1))", () => {
  // Ranks 1 2 3 4 5 and 2 1 4 3 5: d = −1 1 −1 1 0, Σd² = 4; 1 − 24/(5·24) = 0.8.
  close(spearman([1, 2, 3, 4, 5], [2, 1, 4, 3, 5]), 0.8, 1e-12);
  // Ranks 1 3 2 4 and 2 1 4 3: d = −1 2 −2 1, Σd² = 10; 1 − 60/(4·15) = 0.
  close(spearman([0.1, 0.4, 0.35, 0.8], [0.3, 0.2, 0.9, 0.7]), 0, 1e-12);
  close(spearman([1, 2, 3, 4], [40, 30, 20, 10]), -1, 1e-12);
});

test("spearman with ties uses average ranks, worked by hand", () => {
  // a = 0 0 0.2 0.5 1 → ranks 1.5 1.5 3 4 5; b = 0 0.1 0 0.6 0.6 → ranks 1.5 3 1.5 4.5 4.5.
  // Both rank means are 3; deviations −1.5 −1.5 0 1 2 and −1.5 0 −1.5 1.5 1.5;
  // Σ products 2.25 + 0 + 0 + 1.5 + 3 = 6.75; Σ squares 9.5 and 9; rho = 6.75/√(9.5·9) = 6.75/√85.5.
  const a = [0, 0, 0.2, 0.5, 1];
  const b = [0, 0.1, 0, 0.6, 0.6];
  close(spearman(a, b), 6.75 / Math.sqrt(85.5), 1e-12, "rho");
  // The library's own rank correlation ranks ties by position (b: 0 2 1 3 4, Σd² = 2, 1 − 12/120):
  // 0.9. If this ever changes to average ranks, spearman could call it directly.
  close(sampleRankCorrelation(a, b), 0.9, 1e-12, "sampleRankCorrelation");
  // With average ranks the answer does not depend on query order.
  close(spearman([...a].reverse(), [...b].reverse()), 6.75 / Math.sqrt(85.5), 1e-12, "reversed");
});

test("spearman: a constant list gives NaN; errors name the lengths", () => {
  assert.ok(Number.isNaN(spearman([0, 0, 0], [0.1, 0.5, 0.2])));
  assert.ok(Number.isNaN(spearman([0.1, 0.5, 0.2], [1, 1, 1])));
  assert.throws(() => spearman([1, 2, 3, 4], [1, 2, 3]), (e: Error) => e instanceof Error && /4 and 3/.test(e.message));
  assert.throws(() => spearman([1], [1]), /at least two pairs/);
});

test("spearman is invariant under strictly increasing transforms (ties included)", () => {
  // Small integers: many ties, and transforms that map distinct values to distinct doubles exactly.
  const ints = fc.array(fc.tuple(fc.integer({ min: -20, max: 20 }), fc.integer({ min: -20, max: 20 })), { minLength: 2, maxLength: 40 });
  fc.assert(
    fc.property(ints, (rows) => {
      const a = rows.map((r) => r[0]);
      const b = rows.map((r) => r[1]);
      const rho = spearman(a, b);
      const cube = (x: number) => x ** 3 + 2 * x;
      const exp = (x: number) => Math.exp(x / 4);
      for (const got of [spearman(a.map(cube), b), spearman(a, b.map(exp)), spearman(a.map(exp), b.map(cube))]) assert.ok(Object.is(got, rho), `rho ${rho} became ${got}`);
      assert.ok(Number.isNaN(rho) || (rho >= -1 - 1e-12 && rho <= 1 + 1e-12), `rho ${rho}`);
    }),
  );
});

// ---------------------------------------------------------------- runs

const values = (v: number): MetricValues => Object.fromEntries(METRICS.map((m) => [m, v])) as MetricValues;
const perQueryOf = (xs: Record<string, number>) => new Map(Object.entries(xs).map(([q, v]) => [q, values(v)]));

test("perQueryCorrelation: every pair in map order, over shared queries", () => {
  const byRun = new Map([
    ["x", perQueryOf({ q1: 0.1, q2: 0.4, q3: 0.35, q4: 0.8 })],
    ["y", perQueryOf({ q1: 0.3, q2: 0.2, q3: 0.9, q4: 0.7 })],
    ["z", perQueryOf({ q2: 1, q4: 0, q9: 0.5 })],
  ]);
  const got = perQueryCorrelation(byRun, "nDCG@10");
  assert.deepEqual(
    got.map((r) => [r.a, r.b, r.n]),
    [
      ["x", "y", 4],
      ["x", "z", 2],
      ["y", "z", 2],
    ],
  );
  close(got[0].rho, 0, 1e-12, "x/y (the no-tie example above)");
  // Shared with z: q2 and q4, where x (0.4, 0.8) and y (0.2, 0.7) rise and z (1, 0) falls.
  close(got[1].rho, -1, 1e-12, "x/z");
  close(got[2].rho, -1, 1e-12, "y/z");
  const lonely = perQueryCorrelation(new Map([["x", perQueryOf({ q1: 1 })], ["y", perQueryOf({ q1: 0, q2: 1 })]]), "MAP@100");
  assert.deepEqual(lonely, [{ a: "x", b: "y", rho: NaN, n: 1 }]);
});

test("pairedTests: the randomization side equals compareRuns, the t side pairedTTest; disagreement flagged", () => {
  const qids = ["q1", "q2", "q3", "q4", "q5"];
  const byRun = new Map([
    // A steady gain on all five queries: the t-test finds it (tiny sd), but the randomization
    // test cannot go below 2/2^5 = 0.0625 with five queries.
    ["steady", perQueryOf({ q1: 0.5, q2: 0.61, q3: 0.52, q4: 0.63, q5: 0.54 })],
    ["base", perQueryOf({ q1: 0.3, q2: 0.4, q3: 0.3, q4: 0.4, q5: 0.3 })],
    // q5 missing: scores 0, as compareRuns and evaluate do.
    ["other", perQueryOf({ q1: 0.3, q2: 0.1, q3: 0.9, q4: 0.2 })],
  ]);
  const opts = { pairs: [["steady", "base"], ["other", "base"]] as const, metrics: ["nDCG@10", "Recall@100"] as const, swaps: 10_000, seed: 7 };
  const rows = pairedTests(byRun, qids, opts);
  const ref = compareRuns([...byRun].map(([name, perQuery]) => ({ name, perQuery })), qids, opts).tests;
  assert.equal(rows.length, 4);
  assert.deepEqual(Object.keys(rows[0]), ["a", "b", "metric", "meanA", "meanB", "delta", "pRandomization", "pTTest", "pHolm", "disagree"]);
  rows.forEach((r, i) => {
    assert.deepEqual([r.a, r.b, r.metric, r.meanA, r.meanB, r.delta, r.pRandomization, r.pHolm], [ref[i].a, ref[i].b, ref[i].metric, ref[i].meanA, ref[i].meanB, ref[i].delta, ref[i].p, ref[i].pHolm]);
  });
  assert.deepEqual(rows.map((r) => r.pHolm), holm(rows.map((r) => r.pRandomization)));
  const steady = rows[0];
  assert.equal(steady.pTTest, pairedTTest([0.5, 0.61, 0.52, 0.63, 0.54], [0.3, 0.4, 0.3, 0.4, 0.3]).p);
  assert.ok(steady.pTTest < 0.001, `t-test p ${steady.pTTest}`);
  assert.ok(steady.pRandomization > 0.05, `randomization p ${steady.pRandomization}`);
  assert.equal(steady.disagree, true);
  const other = rows[2];
  assert.equal(other.pTTest, pairedTTest([0.3, 0.1, 0.9, 0.2, 0], [0.3, 0.4, 0.3, 0.4, 0.3]).p);
  assert.equal(other.disagree, false);
});
