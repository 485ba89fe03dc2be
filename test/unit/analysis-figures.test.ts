import { test } from "node:test";
import assert from "node:assert/strict";
import { correlationHeatmap, perQueryScatter, rankDistributionChart, winLossChart } from "../../lib/report/analysis-figures";
import { winLoss, firstGoldRankDistribution } from "../../lib/eval/error-analysis";
import type { MetricValues } from "../../lib/eval/metrics";

const m = (r: number): MetricValues => ({ "nDCG@10": r, "nDCG@100": r, "Recall@10": r, "Recall@100": r, "MAP@100": r });
const a = new Map([["q1", m(1)], ["q2", m(0.5)], ["q3", m(0)], ["q4", m(0.2)]]);
const b = new Map([["q1", m(0.5)], ["q2", m(0.5)], ["q3", m(1)], ["q4", m(0)]]);
const meta = new Map([["q1", { area: "civil" }], ["q2", { area: "civil" }], ["q3", { area: "criminal" }], ["q4", {}]]);

test("win/loss bars: one per group, shares of its questions, counts in the hover data", () => {
  const fig = winLossChart(winLoss(a, b, "Recall@100", { meta }), "A", "B");
  const [wins, ties, losses] = fig.data as { y: string[]; x: number[]; customdata: number[] }[];
  assert.deepEqual(wins.y, ["all questions (4)", "(no area) (1)", "civil (2)", "criminal (1)"]);
  // all: q1 and q4 won, q2 tied, q3 lost.
  assert.deepEqual([wins.customdata[0], ties.customdata[0], losses.customdata[0]], [2, 1, 1]);
  wins.y.forEach((_, i) => assert.ok(Math.abs(wins.x[i] + ties.x[i] + losses.x[i] - 1) < 1e-12));
});

test("rank distribution: shares per bucket for each run", () => {
  const dist = firstGoldRankDistribution(new Map([["A", new Map([["q1", 1], ["q2", 5], ["q3", null]])]]));
  const [trace] = rankDistributionChart(dist).data as { x: string[]; y: number[]; customdata: number[] }[];
  assert.equal(trace.x.length, dist.buckets.length);
  assert.equal(trace.customdata.reduce((s, c) => s + c, 0), 3);
  assert.ok(Math.abs(trace.y.reduce((s, c) => s + c, 0) - 1) < 1e-12);
});

test("per-query scatter: every shared question once, by area, and the count on the diagonal", () => {
  const fig = perQueryScatter(a, b, "Recall@100", "A", "B", meta);
  const points = (fig.data as { mode: string; x: number[] }[]).filter((t) => t.mode === "markers");
  assert.equal(points.reduce((s, t) => s + t.x.length, 0), 4);
  assert.match(fig.layout.title.text, /1 of 4 on the diagonal/);
});

test("correlation heatmap: symmetric with 1 on the diagonal", () => {
  const fig = correlationHeatmap([{ a: "A", b: "B", rho: 0.5, n: 4 }, { a: "A", b: "C", rho: -0.25, n: 4 }, { a: "B", b: "C", rho: NaN, n: 4 }], "Recall@100");
  const z = (fig.data[0] as { z: (number | null)[][] }).z;
  assert.deepEqual(z, [[1, 0.5, -0.25], [0.5, 1, null], [-0.25, null, 1]]);
});
