import { test } from "node:test";
import assert from "node:assert/strict";
import { correlationHeatmap, perQueryChart, perQueryView, rankDistributionChart, winLossChart } from "../../../lib/figures/analysis-figures";
import { winLoss, firstGoldRankDistribution } from "../../../lib/eval/error-analysis";
import type { MetricValues } from "../../../lib/eval/metrics";

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
  const fig = perQueryChart(a, b, "Recall@100", "A", "B", meta);
  const points = (fig.data as { mode: string; x: number[] }[]).filter((t) => t.mode === "markers");
  assert.equal(points.reduce((s, t) => s + t.x.length, 0), 4);
  assert.match(fig.layout.title.text, /1 of 4 on the diagonal/);
});

test("correlation heatmap: symmetric with 1 on the diagonal", () => {
  const fig = correlationHeatmap([{ a: "A", b: "B", rho: 0.5, n: 4 }, { a: "A", b: "C", rho: -0.25, n: 4 }, { a: "B", b: "C", rho: NaN, n: 4 }], "Recall@100");
  const z = (fig.data[0] as { z: (number | null)[][] }).z;
  assert.deepEqual(z, [[1, 0.5, -0.25], [0.5, 1, null], [-0.25, null, 1]]);
});

// Issue 22, item 15: notebook 08 drew a 0/1 Recall@100 of 4,355 known-item questions as four overplotted points on
// an x axis from −1 to 2 (the square aspect widened the range to fill the plot).
const knownItem = (n: number, hitA: (i: number) => boolean, hitB: (i: number) => boolean) => {
  const ids = Array.from({ length: n }, (_, i) => `Q-${i}`);
  return [new Map(ids.map((q, i) => [q, m(hitA(i) ? 1 : 0)])), new Map(ids.map((q, i) => [q, m(hitB(i) ? 1 : 0)]))] as const;
};

test("issue 22, item 15: a 0/1 per-question metric is drawn as counts per pair of values, not 4 points", () => {
  const [ka, kb] = knownItem(4355, (i) => i % 10 < 7, (i) => i % 10 < 8 && i % 10 !== 0);
  const fig = perQueryChart(ka, kb, "Recall@100", "bm25", "lsi");
  const [cells] = fig.data as { type: string; x: string[]; y: string[]; z: (number | null)[][]; text: string[][] }[];
  assert.equal(cells.type, "heatmap");
  assert.deepEqual([cells.x, cells.y], [["0", "1"], ["0", "1"]], "one column per value taken, on both axes");
  // Rows by B's score, columns by A's: every question counted once.
  const total = cells.z.flat().reduce<number>((t, c) => t + (c ?? 0), 0);
  assert.equal(total, 4355);
  const count = (b: number, a: number) => cells.z[b][a];
  const expect = { both: 0, none: 0, aOnly: 0, bOnly: 0 };
  for (let i = 0; i < 4355; i++) {
    const ha = i % 10 < 7;
    const hb = i % 10 < 8 && i % 10 !== 0;
    if (ha && hb) expect.both++;
    else if (!ha && !hb) expect.none++;
    else if (ha) expect.aOnly++;
    else expect.bOnly++;
  }
  assert.deepEqual([count(1, 1), count(0, 0), count(0, 1), count(1, 0)], [expect.both, expect.none, expect.aOnly, expect.bOnly]);
  assert.match(cells.text[1][1], new RegExp(`^${expect.both.toLocaleString("en-US")}<br>\\(\\d+\\.\\d%\\)$`), "each cell prints its count");
  // A single question of thousands is not "0.0%".
  const [one] = knownItem(4355, (i) => i === 0, () => true);
  const rare = perQueryChart(one, knownItem(4355, () => true, () => true)[0], "Recall@100", "A", "B").data[0] as { text: string[][] };
  assert.equal(rare.text[1][1], "1<br>(<0.1%)");
  // Category axes hold only the values 0 and 1: no range past the metric's.
  const x = fig.layout.xaxis as { type: string; range?: number[] };
  assert.equal(x.type, "category");
  assert.equal(x.range, undefined);
  const note = (fig.layout.annotations as { text: string }[])[0].text.replace(/<br>/g, " ");
  assert.match(note, /^4,355 questions in 2 values per method; /);
  assert.match(note, new RegExp(`${expect.bOnly} questions above it \\(lsi better\\), ${expect.aOnly} questions below \\(bm25 better\\)`));
});

test("issue 22, item 15: continuous scores stay a scatter on 0…1, with the stacked points counted", () => {
  const fig = perQueryChart(a, b, "nDCG@10", "A", "B", meta);
  assert.ok(fig.data.every((t) => t.type === "scatter"), "four distinct points: nothing hidden, a scatter");
  for (const ax of ["xaxis", "yaxis"] as const) {
    const axis = fig.layout[ax] as { range: number[]; constrain: string };
    assert.deepEqual(axis.range, [0, 1], `${ax} spans the metric's range`);
    assert.equal(axis.constrain, "domain", "the square aspect shrinks the plot, it does not widen the range");
  }
  const points = fig.data.filter((t) => t.mode === "markers") as { marker: { opacity: number }; cliponaxis: boolean }[];
  assert.ok(points.every((t) => t.marker.opacity < 1 && t.cliponaxis === false));
  // Many values with repeats (what nDCG gives): still a scatter, the repeats counted in the note.
  const ids = Array.from({ length: 40 }, (_, i) => `q${i}`);
  const many = (f: (i: number) => number) => new Map(ids.map((q, i) => [q, m(f(i))]));
  const scatter = perQueryChart(many((i) => (i < 5 ? 0 : i / 40)), many((i) => (i < 5 ? 0 : 1 - i / 40)), "nDCG@10", "A", "B");
  assert.equal(scatter.data[0].type, "scatter");
  assert.match((scatter.layout.annotations as { text: string }[])[0].text.replace(/<br>/g, " "), /^40 questions, one point each; 4 questions on the same spot as another/);
});

test("per-question counts: values that print alike at four decimals stay apart", () => {
  const ids = ["q1", "q2", "q3", "q4"];
  const x = new Map(ids.map((q, i) => [q, m(i < 2 ? 0.33333 : 0.33334)]));
  const cells = perQueryChart(x, x, "nDCG@10", "A", "B").data[0] as { type: string; x: string[] };
  assert.equal(cells.type, "heatmap");
  assert.deepEqual(cells.x, ["0.33333", "0.33334"]);
});

test("perQueryView: counts only when both take few values and some questions share a point", () => {
  assert.equal(perQueryView([[0, 1], [1, 1], [1, 1]]), "counts");
  assert.equal(perQueryView([[0, 1], [1, 0], [0.5, 0.5]]), "points", "no two on one spot: a scatter hides nothing");
  const spread = Array.from({ length: 30 }, (_, i) => [i / 30, i / 30] as const);
  assert.equal(perQueryView([...spread, ...spread]), "points", "30 values: continuous");
  assert.equal(perQueryView([...spread, ...spread], 30), "counts");
});

test("correlation heatmap: an undefined rho reads n/a, with the reason", () => {
  const fig = correlationHeatmap([{ a: "A", b: "B", rho: NaN, n: 4 }], "Recall@100");
  assert.deepEqual((fig.data[0] as { text: string[][] }).text, [["1.0000", "n/a"], ["n/a", "1.0000"]]);
  assert.match((fig.layout.annotations as { text: string }[])[0].text.replace(/<br>/g, " "), /^n\/a: no rho, as one of the two runs has the same Recall@100 on every question/);
  assert.equal(correlationHeatmap([{ a: "A", b: "B", rho: 0.5, n: 4 }], "Recall@100").layout.annotations, undefined);
});
