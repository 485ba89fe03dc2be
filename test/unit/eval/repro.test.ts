import { test } from "node:test";
import assert from "node:assert/strict";
import { deltaRI, effectRatio, kendallTauUnion, meanOverTopics, rankBiasedOverlap, reproMeasures, rmse } from "../../../lib/eval/repro";
import { METRICS } from "../../../lib/eval/metrics";
import type { Qrels, Run } from "../../../lib/types";

// Every expected value below is worked out by hand from the published definition (Breuer et al., SIGIR 2020, as
// repro_eval computes it; RBO from Webber et al., TOIS 2010, eq. 32), not by the code under test.

test("KTU: the two rankings' positions in their sorted union, Kendall's tau between them (repro_eval's recipe)", () => {
  // union [a, b, c]; orig → [0, 1, 2], rep → [1, 0, 2]: pairs (1,2) discordant, (1,3) and (2,3) concordant: (2 − 1) / 3.
  assert.equal(kendallTauUnion(["a", "b", "c"], ["b", "a", "c"], 1000), 1 / 3);
  // union [a, b, c, d]; orig → [0, 1, 2], rep [d, a, b] → [3, 0, 1]: two discordant, one concordant: (1 − 2) / 3.
  assert.equal(kendallTauUnion(["a", "b", "c"], ["d", "a", "b"], 1000), -1 / 3);
  assert.equal(kendallTauUnion(["x", "y", "z", "w"], ["x", "y", "z", "w"], 1000), 1);
});

test("KTU: unequal lists are compared to the shorter one's length, a repeated id counts at its first rank, depth cuts", () => {
  // repro_eval (scipy) cannot pair lists of unequal length: both are cut to 2, [a, b] vs [b, a]: one discordant pair.
  assert.equal(kendallTauUnion(["a", "b", "c", "d"], ["b", "a"], 1000), -1);
  // the tie of a repeated id: [a, a, b, c] is [a, b, c], so as the first case above.
  assert.equal(kendallTauUnion(["a", "a", "b", "c"], ["b", "a", "c"], 1000), 1 / 3);
  // depth 2: [a, b] vs [b, a].
  assert.equal(kendallTauUnion(["a", "b", "c"], ["b", "a", "c"], 2), -1);
  // one document: no pair, undefined (scipy's nan).
  assert.ok(Number.isNaN(kendallTauUnion(["a"], ["a", "b"], 1000)));
});

test("RBO: the extrapolated RBO, equal and unequal lengths", () => {
  const p = 0.8;
  // X1 = 0, X2 = 2, X3 = 3: (1 − p)/p · (0·p + 2/2·p² + 3/3·p³) + 3/3·p³ = 0.25 · 1.152 + 0.512 = 0.8.
  assert.ok(Math.abs(rankBiasedOverlap(["a", "b", "c"], ["b", "a", "c"], p, 1000) - 0.8) < 1e-12);
  assert.ok(Math.abs(rankBiasedOverlap(["a", "b", "c", "d"], ["a", "b", "c", "d"], p, 1000) - 1) < 1e-12);
  // S = [a, b] (s = 2), L = [b, c, a] (l = 3): X1 = 0, X2 = 1, X3 = 2; Σ X_d/d p^d = 1.984/3, Σ_{d>s} X_s(d−s)/(sd) p^d
  // = 0.256/3, ((X_l − X_s)/l + X_s/s) p^l = 1.28/3: 0.25 · 2.24/3 + 1.28/3 = 1.84/3.
  assert.ok(Math.abs(rankBiasedOverlap(["a", "b"], ["b", "c", "a"], p, 1000) - 1.84 / 3) < 1e-12);
  assert.ok(Math.abs(rankBiasedOverlap(["b", "c", "a"], ["a", "b"], p, 1000) - 1.84 / 3) < 1e-12);
  assert.equal(rankBiasedOverlap(["a", "b"], ["c", "d"], p, 1000), 0);
  // depth 1 of [a, b] vs [b, a]: X1 = 0.
  assert.equal(rankBiasedOverlap(["a", "b"], ["b", "a"], p, 1), 0);
});

test("meanOverTopics leaves out topics without a value", () => {
  assert.equal(meanOverTopics([1, NaN, 0.5]), 0.75);
  assert.ok(Number.isNaN(meanOverTopics([NaN])));
});

test("RMSE, ER and ΔRI on a small per-topic table", () => {
  // diffs 0.25, 0, −0.5: √((0.0625 + 0 + 0.25) / 3).
  assert.ok(Math.abs(rmse([0.5, 1, 0], [0.25, 1, 0.5]) - Math.sqrt(0.3125 / 3)) < 1e-15);
  assert.throws(() => rmse([1], [1, 2]), /equally long/);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const orig = { baseline: mean([0.2, 0.4, 0.6]), advanced: mean([0.4, 0.4, 0.9]) };
  const rep = { baseline: mean([0.1, 0.3, 0.5]), advanced: mean([0.2, 0.4, 0.5]) };
  // mean per-topic improvement: original (0.2 + 0 + 0.3)/3, reproduced (0.1 + 0.1 + 0)/3: ER = 0.2/0.5 = 0.4.
  assert.ok(Math.abs(effectRatio(orig, rep) - 0.4) < 1e-12);
  // RI_orig = (1.7 − 1.2)/1.2, RI_rep = (1.1 − 0.9)/0.9: ΔRI = 5/12 − 2/9 = 7/36.
  assert.ok(Math.abs(deltaRI(orig, rep) - 7 / 36) < 1e-12);
});

test("reproMeasures: per-topic scores of the qrels' queries, a missing ranking scoring 0", () => {
  const qrels: Qrels = new Map([["q1", new Set(["d1"])], ["q2", new Set(["d2"])]]);
  const run = (rows: Record<string, string[]>): Run => ({ rankings: new Map(Object.entries(rows)) });
  const baseline = run({ q1: ["d1", "x"], q2: ["x", "d2"] });
  const advanced = run({ q1: ["d1", "x"], q2: ["d2", "x"] });
  const repBaseline = run({ q1: ["x", "d1"], q2: ["x", "d2"] });
  const repAdvanced = run({ q1: ["d1", "x"] });
  const m = reproMeasures({ baseline, advanced, repBaseline, repAdvanced }, qrels, { metrics: [...METRICS] });
  // Recall@10 per topic: orig base [1, 1], adv [1, 1]; rep base [1, 1], adv [1, 0] (q2 missing).
  assert.equal(m.RMSE.baseline["Recall@10"], 0);
  assert.equal(m.RMSE.advanced["Recall@10"], Math.sqrt(1 / 2));
  // the original improves nothing on Recall@10: ER divides by 0.
  assert.ok(!Number.isFinite(m.ER["Recall@10"]));
  // nDCG@10: orig base [1, 1/log2 3], adv [1, 1]; rep base [1/log2 3, 1/log2 3], adv [1, 0].
  const g = 1 / Math.log2(3);
  assert.ok(Math.abs(m.ER["nDCG@10"]! - (1 - 2 * g) / 2 / ((1 - g) / 2)) < 1e-12);
  assert.ok(Math.abs(m.DeltaRI["nDCG@10"]! - ((2 - (1 + g)) / (1 + g) - (1 - 2 * g) / (2 * g))) < 1e-12);
  // rankings: q1 [d1, x] vs [x, d1]: KTU −1; q2 identical: 1; the advanced pair's q2 is in one run only.
  assert.equal(m.KTU.baseline, 0);
  assert.equal(m.KTU.advanced, 1);
  assert.deepEqual(Object.keys(m), ["KTU", "RBO", "RMSE", "ER", "DeltaRI", "pValues"]);
  assert.deepEqual(Object.keys(m.pValues.baseline), [...METRICS]);
});
