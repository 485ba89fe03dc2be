import { test } from "node:test";
import assert from "node:assert/strict";
import { lengthBins, lengthHistograms } from "../../../lib/figures/dataset-figures";
import { figures } from "../../../lib/figures/figures";

// Issue 22, item 15: notebook 01 drew questions and articles as two histograms on one axis with shared bins, so on a
// set of short queries (greeklaws: article titles of a few words) and long articles every query fell in the first bin.
const queries = Array.from({ length: 4355 }, (_, i) => 3 + (i % 13)); // 3 to 15 words
const articles = Array.from({ length: 5692 }, (_, i) => Math.round(20 * Math.exp((i % 100) / 25))); // 20 to ~1,000 words
articles.push(9000, 12000, 25000); // and a few very long ones

type Bar = { name: string; xaxis: string; yaxis: string; x: number[]; y: number[]; width: number[]; showlegend?: boolean };

test("issue 22, item 15: questions and articles get their own panels and bins, and no series sits in one bin", () => {
  const fig = figures.lengthHistograms([{ name: "articles", lengths: articles }, { name: "questions", lengths: queries }], "words");
  const bars = fig.data as Bar[];
  const [art, artTail, que] = bars;
  assert.deepEqual([art.xaxis, artTail.xaxis, que.xaxis], ["x", "x", "x2"], "one x axis per kind of text");
  assert.equal(que.width[0], 1, "a bin per word count for texts of a few words");
  assert.equal(que.y.filter((c) => c > 0).length, 13);
  for (const b of [art, que]) {
    const total = b.y.reduce((t, c) => t + c, 0);
    assert.ok(Math.max(...b.y) < 0.25 * total, `${b.name}: no bin holds most of the series`);
  }
  // Every text counted once, the long tail in one bar of its own, named.
  assert.equal(art.y.reduce((t, c) => t + c, 0) + artTail.y[0], articles.length);
  assert.equal(que.y.reduce((t, c) => t + c, 0), queries.length);
  assert.match(artTail.name, /^3 articles of [\d,]+ to 25,000 words, in one bar$/);
  // The axes say the unit and what is counted.
  const layout = fig.layout as unknown as Record<string, { title: { text: string }; domain?: number[] }>;
  assert.match(layout.xaxis.title.text, /^articles: length in words \(median \d+\)$/);
  assert.match(layout.xaxis2.title.text, /^questions: length in words \(median 9\)$/);
  assert.equal(layout.yaxis.title.text, "number of articles");
  assert.equal(layout.yaxis2.title.text, "number of questions");
  assert.ok(layout.yaxis.domain![0] > layout.yaxis2.domain![1], "panels do not overlap");
});

test("lengthBins: round widths over the series' own range; the tail past the 99th percentile gathered", () => {
  assert.deepEqual(lengthBins([3, 4, 4, 5]), { start: 3, size: 1, counts: [1, 2, 1] });
  const b = lengthBins(Array.from({ length: 1000 }, (_, i) => i));
  assert.equal(b.size, 50);
  assert.equal(b.overflow, undefined, "an even spread has no tail");
  assert.equal(b.counts.reduce((t, c) => t + c, 0), 1000);
  assert.deepEqual(lengthBins([]), { start: 0, size: 1, counts: [] });
  const tail = lengthBins([...Array.from({ length: 200 }, (_, i) => 100 + i), 5000]);
  assert.deepEqual(tail.overflow, { from: tail.start + tail.counts.length * tail.size, count: 1, max: 5000 });
  assert.equal(lengthHistograms([{ name: "x", lengths: [1, 2, 3] }]).layout.showlegend, false, "no tail, no legend");
});
