import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { bootstrapCIs } from "../../../lib/eval/bootstrap";
import { metricBarChart, pValueHeatmap, pValueText, type HeatmapTest } from "../../../lib/figures/figures";
import type { Figure } from "../../../lib/figures/figure-style";
import { reportFigures } from "../../../lib/report/html";
import { metricIntervals, REPORT_BOOTSTRAP } from "../../../lib/eval/metric-intervals";
import { ORACLE_LABEL, rowMarks } from "../../../lib/figures/labels";
import { Pcg64 } from "../../../lib/numeric/random";
import { toCsv } from "../../../lib/util/csv";

// Issue 23, item 7: the metric bars carry 95% bootstrap intervals (per-query.csv, sample 0, one set of resamples for
// every experiment), and the significance section shows p after Holm as a heatmap with the passing tests marked.

/** per-query.csv rows: `n` queries of each experiment, values from `value(experiment index, query index)`. */
function perQueryRows(ids: readonly string[], n: number, value: (e: number, q: number) => number, sample = 0): Record<string, string>[] {
  return ids.flatMap((experiment, e) => Array.from({ length: n }, (_, q) => ({ experiment, sample: String(sample), query: `Q${q}`, "Recall@100": String(value(e, q)), "nDCG@10": String(value(e, q) / 2) })));
}

/** Values in [0, 1) from the project's generator, so every run of the tests sees the same data. */
function uniform(seed: number): (e: number, q: number) => number {
  const rng = Pcg64.fromSeed(seed);
  const cache = new Map<string, number>();
  return (e, q) => {
    const key = `${e}:${q}`;
    if (!cache.has(key)) cache.set(key, rng.nextDouble());
    return cache.get(key)!;
  };
}

const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

describe("metricIntervals: bootstrap intervals of each experiment's mean from per-query.csv", () => {
  const ids = ["bm25-greekstemmer", "lsi", "oracle:bm25-greekstemmer"];

  test("each interval holds its mean; more queries, narrower intervals; the report's settings by default", () => {
    const value = uniform(1);
    const small = metricIntervals(perQueryRows(ids, 40, value), ["Recall@100", "nDCG@10"], { resamples: 2_000 });
    const large = metricIntervals(perQueryRows(ids, 1_000, value), ["Recall@100", "nDCG@10"], { resamples: 2_000 });
    for (const [metric, byId] of small) {
      for (const id of ids) {
        const s = byId.get(id)!;
        const l = large.get(metric)!.get(id)!;
        for (const ci of [s, l]) assert.ok(ci.lower < ci.mean && ci.mean < ci.upper, `${metric} ${id}: ${JSON.stringify(ci)}`);
        // The sd of a mean shrinks as 1/√n: 25× the queries, a fifth of the width (give or take the resampling).
        assert.ok(l.upper - l.lower < (s.upper - s.lower) / 3, `${metric} ${id}: ${l.upper - l.lower} vs ${s.upper - s.lower}`);
      }
    }
    assert.equal(small.get("Recall@100")!.get("lsi")!.mean, mean(Array.from({ length: 40 }, (_, q) => value(1, q))));
    const ci = metricIntervals(perQueryRows(ids.slice(0, 1), 30, value), ["Recall@100"]).get("Recall@100")!.get(ids[0])!;
    assert.deepEqual([ci.level, ci.resamples], [REPORT_BOOTSTRAP.level, REPORT_BOOTSTRAP.resamples]);
    assert.deepEqual(REPORT_BOOTSTRAP, { resamples: 10_000, seed: 42, level: 0.95 });
  });

  test("deterministic with the seed, and paired: the very intervals bootstrapCIs gives the series together", () => {
    const rows = perQueryRows(ids, 60, uniform(2));
    const a = metricIntervals(rows, ["Recall@100"], { resamples: 3_000 });
    assert.deepEqual(metricIntervals(rows, ["Recall@100"], { resamples: 3_000 }), a);
    assert.notDeepEqual(metricIntervals(rows, ["Recall@100"], { resamples: 3_000, seed: 7 }), a);
    const series = ids.map((id) => rows.filter((r) => r.experiment === id).map((r) => Number(r["Recall@100"])));
    assert.deepEqual(ids.map((id) => a.get("Recall@100")!.get(id)), bootstrapCIs(series, { resamples: 3_000, seed: 42, level: 0.95 }));
  });

  test("sample 0 only (as the tests of significance); experiments on other queries are bootstrapped apart; a filter of ids", () => {
    const value = uniform(3);
    const rows = [...perQueryRows(ids, 50, value), ...perQueryRows(ids, 50, () => 1, 1), ...perQueryRows(["other"], 20, value)];
    const cis = metricIntervals(rows, ["Recall@100"], { resamples: 1_000 }).get("Recall@100")!;
    assert.equal(cis.get("lsi")!.mean, mean(Array.from({ length: 50 }, (_, q) => value(1, q))), "sample 1 (all ones) left out");
    assert.equal(cis.get("other")!.mean, mean(Array.from({ length: 20 }, (_, q) => value(0, q))));
    assert.deepEqual([...metricIntervals(rows, ["Recall@100"], { resamples: 1_000, experiments: ["lsi"] }).get("Recall@100")!.keys()], ["lsi"]);
    assert.equal(metricIntervals([], ["Recall@100"]).get("Recall@100")!.size, 0);
  });
});

describe("metricBarChart: whiskers are the bootstrap interval, and the figure says so", () => {
  const summary = [
    { experiment: "bm25-greekstemmer", status: "ok", "Recall@100": "0.6", samples: "1" },
    { experiment: "lsi", status: "ok", "Recall@100": "0.5", samples: "1", standIn: "stand-in" },
    { experiment: "oracle:bm25-greekstemmer", status: "ok", "Recall@100": "0.7", samples: "1" },
    { experiment: "reform:bm25-greekstemmer", status: "ok", "Recall@100": "0.8", samples: "3", "sd Recall@100": "0.02" },
    { experiment: "old", status: "ok", "Recall@100": "0.3", samples: "2", "sd Recall@100": "0.05" },
  ];
  const ci = (mean: number, lower: number, upper: number) => ({ mean, lower, upper, level: 0.95, resamples: 10_000 });
  const intervals = new Map([
    ["bm25-greekstemmer", ci(0.6, 0.55, 0.66)],
    ["lsi", ci(0.5, 0.44, 0.57)],
    ["oracle:bm25-greekstemmer", ci(0.7, 0.64, 0.75)],
    ["reform:bm25-greekstemmer", ci(0.79, 0.74, 0.84)],
  ]);
  type Bars = { name: string; y: string[]; x: number[]; text: string[]; marker: { color: string; pattern?: { shape: string } }; error_x?: { symmetric?: boolean; array: number[]; arrayminus?: number[] }; customdata?: unknown[][]; hovertemplate: string };

  test("asymmetric whiskers from each interval; stand-in and oracle rows keep their marks; no interval, sd as before", () => {
    const fig = metricBarChart(summary, "Recall@100", { intervals, marks: rowMarks(summary) });
    const bars = fig.data as Bars[];
    // The trace of each experiment, cut down to its bar.
    const of = (id: string): Bars => {
      const t = bars.find((b) => b.y.includes(id))!;
      const i = t.y.indexOf(id);
      const error_x = t.error_x && { ...t.error_x, array: [t.error_x.array[i]], arrayminus: t.error_x.arrayminus && [t.error_x.arrayminus[i]] };
      return { ...t, y: [id], x: [t.x[i]], text: [t.text[i]], error_x, customdata: t.customdata && [t.customdata[i]] };
    };
    const near = (got: number[] | undefined, want: number[]) => want.forEach((w, i) => assert.ok(Math.abs(got![i] - w) < 1e-12, `${got} vs ${want}`));
    const plain = of("bm25-greekstemmer");
    assert.equal(plain.error_x!.symmetric, false);
    near(plain.error_x!.array, [0.06]);
    near(plain.error_x!.arrayminus, [0.05]);
    assert.deepEqual(plain.text, ["0.6000"]);
    // The repeated run: the bar is the mean over samples, ± sd in its label, the interval sample 0's.
    const reform = of("reform:bm25-greekstemmer");
    assert.deepEqual(reform.text, ["0.8000 ± 0.0200"]);
    near(reform.error_x!.array, [0.04]);
    near(reform.error_x!.arrayminus, [0.06]);
    assert.match(String(reform.customdata![0][3]), /the interval is sample 0's \(mean 0\.7900\)/);
    assert.equal(bars.find((b) => b.y.includes("reform:bm25-greekstemmer")), bars.find((b) => b.y.includes("bm25-greekstemmer")), "one trace for the plain results");
    // Marks kept: the stand-in hatched and grey, the oracle orange and named, both with whiskers.
    const lsi = of("lsi");
    assert.equal(lsi.marker.pattern?.shape, "/");
    near(lsi.error_x!.arrayminus, [0.06]);
    const oracle = of("oracle:bm25-greekstemmer");
    assert.equal(oracle.name, ORACLE_LABEL);
    assert.equal(oracle.marker.color, "#d97706");
    near(oracle.error_x!.array, [0.05]);
    // Without an interval (not in per-query.csv): ± sd whiskers, as before.
    const old = of("old");
    assert.deepEqual(old.error_x!.array, [0.05]);
    assert.equal(old.error_x!.arrayminus, undefined);
    assert.match(old.name, /mean ± sd/);
    assert.match(plain.hovertemplate, /95% bootstrap interval of the mean|%\{customdata\[2\]\}/);
    assert.equal(plain.customdata![0][2], "95% bootstrap interval of the mean");
  });

  test("the title says what the whiskers are; the axis reaches the farthest whisker", () => {
    const fig = metricBarChart(summary, "Recall@100", { intervals });
    const [first, second] = fig.layout.title.text.split("<br>");
    assert.equal(first, "Recall@100 by experiment (mean ± sd over samples)");
    assert.match(second, /whiskers: 95% bootstrap interval of the mean over queries, 10,000 resamples \(sample 0 of repeated runs; ± in the label: sd over samples\)/);
    assert.equal((fig.layout.xaxis as { range: number[] }).range[1], 0.84 * 1.15);
    // Without intervals, the chart is what it was.
    const bare = metricBarChart(summary.slice(0, 3), "Recall@100");
    assert.equal(bare.layout.title.text, "Recall@100 by experiment");
    assert.ok(bare.data.every((t) => t.error_x === undefined));
  });
});

describe("pValueHeatmap: Δ and p after Holm in each cell, coloured by direction and p, the tests that pass marked, the missing ones grey", () => {
  const test_ = (a: string, b: string, metric: string, p: number, pHolm: number, delta = 0.1): HeatmapTest => ({ a, b, metric, meanA: 0.5 + delta, meanB: 0.5, delta, p, pHolm });
  const missing = (a: string, b: string, metric: string): HeatmapTest => ({ a, b, metric, status: "missing", missing: [a], p: 1, pHolm: 1 });
  // The paper's layout: pairs × metrics, one pair run, one missing; pHolm 0.0499 passes, exactly 0.05 does not.
  const tests: HeatmapTest[] = [
    test_("reform:bm25-greekstemmer", "bm25-greekstemmer", "nDCG@10", 1e-5, 2e-4),
    test_("reform:bm25-greekstemmer", "bm25-greekstemmer", "Recall@100", 0.004, 0.0499),
    test_("reform:bm25-greekstemmer", "bm25-greekstemmer", "MAP@100", 0.01, 0.05),
    missing("react-bm25", "dense:gemini-001", "nDCG@10"),
    missing("react-bm25", "dense:gemini-001", "Recall@100"),
    missing("react-bm25", "dense:gemini-001", "MAP@100"),
    test_("lsi", "bm25-greekstemmer", "nDCG@10", 0.3, 0.9, -0.02),
  ];
  type Heat = { z: (number | null)[][]; text: string[][]; hovertext: string[][]; x: string[]; y: string[]; zmin?: number; zmax?: number; colorscale: [number, string][] };
  const fig = pValueHeatmap(tests, { family: "The paper's tests", swaps: 100_000 });
  const [grey, heat] = fig.data as unknown as Heat[];

  test("rows are the pairs in the family's order, columns the metrics; every cell once", () => {
    assert.deepEqual(heat.y, ["reform:bm25-greekstemmer<br> vs bm25-greekstemmer", "react-bm25<br> vs dense:gemini-001", "lsi<br> vs bm25-greekstemmer"]);
    assert.deepEqual(heat.x, ["nDCG@10", "Recall@100", "MAP@100"]);
    assert.deepEqual(grey.y, heat.y);
  });

  test("colour is −log10 of p after Holm signed by Δ, from −3 (or a larger power of ten) to +3, the colours breaking at ±α; no colour bar", () => {
    assert.deepEqual(heat.z, [
      [-Math.log10(2e-4), -Math.log10(0.0499), -Math.log10(0.05)],
      [null, null, null],
      [Math.log10(0.9), null, null],
    ]);
    assert.deepEqual([heat.zmin, heat.zmax], [-4, 4]);
    const cut = -Math.log10(0.05);
    const stops = heat.colorscale.map(([pos]) => pos);
    assert.deepEqual(stops, [0, (4 - cut) / 8, (4 - cut) / 8, 0.5, (4 + cut) / 8, (4 + cut) / 8, 1], "two colours meet at ±α: the threshold is an edge on both sides");
    assert.notEqual(heat.colorscale[1][1], heat.colorscale[2][1]);
    assert.notEqual(heat.colorscale[0][1], heat.colorscale[6][1], "a loss and a gain are different colours");
    // Each cell writes its numbers, so no colour bar: the title says what the colours are.
    assert.equal((heat as unknown as { showscale: boolean }).showscale, false);
    assert.match(fig.layout.title.text.replace(/<br>/g, " "), /blue: a gain, red: a loss, deeper as p is smaller, pale: p \(Holm\) ≥ α/);
  });

  test("each cell holds Δ with its sign and p; exactly the tests with p (Holm) < 0.05 are starred, bold and outlined", () => {
    assert.deepEqual(heat.text, [
      [`<b>+0.100\u2009★</b><br>${pValueText(2e-4)}`, "<b>+0.100\u2009★</b><br>0.0499", "+0.100<br>0.0500"],
      ["", "", ""],
      ["\u22120.020<br>0.9000", "", ""],
    ]);
    const shapes = fig.layout.shapes as { x0: number; x1: number; y0: number; y1: number }[];
    assert.deepEqual(
      shapes.map((s) => [Math.round((s.x0 + s.x1) / 2), Math.round((s.y0 + s.y1) / 2)]),
      [
        [0, 0],
        [1, 0],
      ],
    );
    assert.equal(pValueText(2e-4), "2.0×10<sup>−4</sup>");
    assert.match(heat.hovertext[0][0], /p \(Holm\) 2e-4 &lt; 0\.05: passes<br>p \(uncorrected\) 1e-5<br>mean A 0\.6000, mean B 0\.5000<br>Δ \(A − B\) \+0\.1000: A gains/);
    assert.match(heat.hovertext[0][2], /p \(Holm\) 0\.05 ≥ 0\.05: does not pass/);
    assert.match(heat.hovertext[2][0], /Δ \(A − B\) -0\.0200: A loses/);
  });

  test("missing tests and pairs × metrics never tested: grey, \"not run\", and why in the hover", () => {
    assert.deepEqual(grey.z, [
      [null, null, null],
      [1, 1, 1],
      [null, 1, 1],
    ]);
    assert.deepEqual(grey.text[1], ["not run", "not run", "not run"]);
    assert.deepEqual(grey.text[2], ["", "not run", "not run"]);
    assert.match(grey.hovertext[1][0], /not run: react-bm25 absent; counted as p = 1 in Holm/);
    assert.match(grey.hovertext[2][1], /not run: no test of this pair on this metric/);
  });

  test("the title says what the colour is and which way Δ goes", () => {
    const lines = fig.layout.title.text.split("<br>");
    assert.equal(lines[0], "The paper's tests");
    assert.match(fig.layout.title.text, /Δ = A minus B \(a row: A vs B\), over p \(Holm\); blue: a gain, red: a loss/);
    assert.match(fig.layout.title.text.replace(/<br>/g, " "), /Holm-corrected p of a two-sided paired randomization test, 100,000 sign flips; ★, bold and outlined: p \(Holm\) &lt; α = 0\.05; grey: not run \(counted as p = 1 in Holm\)/);
  });

  test("one baseline for all: rows are the experiments, the title names the baseline Δ is taken from; stand-ins marked; a repeated test gets a row of its own", () => {
    const marks = rowMarks([{ experiment: "lsi", standIn: "stand-in" }]);
    const f = pValueHeatmap([test_("lsi", "bm25", "nDCG@10", 0.01, 0.02), test_("prf", "bm25", "nDCG@10", 0.5, 0.5), test_("lsi", "bm25", "nDCG@10", 0.2, 0.4)], { marks });
    const h = f.data[1] as unknown as Heat;
    assert.deepEqual(h.y, ["lsi [stand-in]", "prf", "lsi [stand-in] #2"]);
    assert.match(f.layout.title.text, /^Paired tests<br>Δ = row minus bm25, over p \(Holm\)/);
    assert.doesNotMatch(f.layout.title.text, /grey/, "no grey cell, no word about it");
  });

  test("issue 28, item 5: a significant loss is not drawn as a gain: Δ signed in the cell, opposite colours, the title says row minus baseline", () => {
    // greeklaws-2021's exploratory family: lsi loses 0.154 nDCG@10 against BM25 (p Holm 1e-4); a made-up gain beside it.
    const f = pValueHeatmap([test_("lsi", "bm25-greekstemmer", "nDCG@10", 1e-5, 1e-4, -0.154), test_("rrf", "bm25-greekstemmer", "nDCG@10", 1e-5, 1e-4, 0.154)], { family: "Every experiment against bm25-greekstemmer" });
    const h = f.data[1] as unknown as Heat;
    const [loss, gain] = [h.z[0][0]!, h.z[1][0]!];
    assert.ok(loss < 0 && gain > 0 && loss === -gain, `a loss and a gain of the same p sit on opposite sides: ${loss}, ${gain}`);
    assert.match(h.text[0][0], /^<b>\u22120\.154\u2009★<\/b>/);
    assert.match(h.text[1][0], /^<b>\+0\.154\u2009★<\/b>/);
    assert.match(f.layout.title.text, /Δ = row minus bm25-greekstemmer/);
    assert.match(f.layout.title.text, /red: a loss/);
    // A test without its means shows no direction rather than a guessed one.
    const blind = pValueHeatmap([{ a: "lsi", b: "bm25", metric: "nDCG@10", p: 1e-5, pHolm: 1e-4 }]);
    assert.deepEqual((blind.data[1] as unknown as Heat).z, [[null]]);
    assert.deepEqual((blind.data[0] as unknown as Heat).text, [[pValueText(1e-4)]]);
    assert.match(blind.layout.title.text.replace(/<br>/g, " "), /light grey: Δ not recorded/);
  });
});

test("the report: bars with intervals from per-query.csv, heatmaps under the p-value figures' names", async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-report-uncertainty-"));
  try {
    const ids = ["bm25-greekstemmer", "lsi"];
    const rows = perQueryRows(ids, 30, uniform(5));
    const means = ids.map((id) => mean(rows.filter((r) => r.experiment === id).map((r) => Number(r["Recall@100"]))));
    await fs.writeFile(path.join(dir, "summary.csv"), toCsv(["experiment", "status", "Recall@100", "nDCG@10", "samples"], ids.map((id, i) => [id, "ok", means[i], means[i] / 2, 1])));
    await fs.writeFile(path.join(dir, "per-query.csv"), toCsv(["experiment", "sample", "query", "Recall@100", "nDCG@10"], rows.map((r) => [r.experiment, r.sample, r.query, r["Recall@100"], r["nDCG@10"]])));
    const tests = [{ a: "lsi", b: "bm25-greekstemmer", metric: "nDCG@10", meanA: 0.3, meanB: 0.2, delta: 0.1, p: 0.01, pHolm: 0.01 }];
    await fs.writeFile(path.join(dir, "significance.json"), JSON.stringify({ swaps: 1000, seed: 42, paper: { computed: 0, of: 20, tests: [] }, baseline: { against: "bm25-greekstemmer", of: tests.length, tests: tests }, rerank: null }));
    const named = await reportFigures(dir);
    assert.deepEqual(named.map((f) => f.name), ["recall100-by-experiment", "ndcg10-by-experiment", "p-values-baseline"]);
    const bars = named[0].fig.data[0] as { error_x: { array: number[]; arrayminus: number[] } };
    const cis = metricIntervals(rows, ["Recall@100"]).get("Recall@100")!;
    ids.forEach((id, i) => {
      assert.ok(Math.abs(bars.error_x.array[i] - (cis.get(id)!.upper - means[i])) < 1e-12);
      assert.ok(Math.abs(bars.error_x.arrayminus[i] - (means[i] - cis.get(id)!.lower)) < 1e-12);
    });
    const heat: Figure = named[2].fig;
    assert.equal(heat.data[1].type, "heatmap");
    assert.match(heat.layout.title.text.replace(/<br>/g, " "), /Holm-corrected p of a two-sided paired randomization test, 1,000 sign flips/);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});
