import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { areaBreakdownChart, metricBarChart, reactRoundsChart, sweepHeatmap, valueAxisTop } from "../../../lib/figures/figures";
import { costAxis, qualityCostScatter } from "../../../lib/figures/cost-figures";
import { costMeasure, costText, costValue, qualityCostFront } from "../../../lib/eval/quality-cost";
import { fittedRange, ROLE_COLOURS, type Figure } from "../../../lib/figures/figure-style";
import { buildReport, reportSubject } from "../../../lib/report/html";
import { testDeltaCell } from "../../../lib/report/html-blocks";
import { escapeHtml } from "../../../lib/report/html-inline";
import { areaLabel, COLUMN_LABELS, columnLabel, isStandInValue, markedName, ORACLE_LABEL, rowMarks, STAND_IN_BANNER, TUNED_LABEL } from "../../../lib/figures/labels";
import { NO_AREA } from "../../../lib/types";
import { areaStats, datasetStats } from "../../../lib/data/stats";
import { costTable } from "../../../lib/eval/cost";
import { zeroWork } from "../../../lib/eval/run-cost";
import * as notebook from "../../../lib/report/notebook";
import { formatStats } from "../../../lib/cli/print-stats";
import { toCsv } from "../../../lib/util/csv";

// The report's fixes of issue 10: metric axes fitted to the data, legends clear of labels, the
// significance table coloured by the test's verdict, the title naming the queries file, one
// name for queries without an area, and the stand-in and oracle/cross-validated marks of
// `gbr reproduce`'s newer outputs (hand-made here), with older folders still read as before.

const METRICS = ["nDCG@10", "nDCG@100", "Recall@10", "Recall@100", "MAP@100"];
/** summary.csv as `gbr reproduce` writes it now: standIn and provenance after setup. */
const NEW_HEADER = ["experiment", "section", "status", ...METRICS, "samples", ...METRICS.map((m) => `sd ${m}`), "seconds", "reason", "setup", "standIn", "provenance"];
/** …and as older versions wrote it. */
const OLD_HEADER = NEW_HEADER.slice(0, -2);
const PROVENANCE = "chat openai at 127.0.0.1:9: openai/gpt-oss-120b (served as double-gpt) [test double]";

function row(experiment: string, values: number[], o: { standIn?: boolean; status?: string; setup?: string; provenance?: string; section?: string } = {}): unknown[] {
  return [
    experiment,
    o.section ?? "4.1",
    o.status ?? "ok",
    ...(values.length ? values : METRICS.map(() => "")),
    values.length ? 1 : "",
    ...METRICS.map(() => ""),
    0.5,
    "",
    o.setup ?? "BM25 k1 1.5 b 0.75",
    o.standIn ? "stand-in" : "",
    o.provenance ?? "",
  ];
}

// nDCG@10 values of a few hundredths: on a 0–1 axis, slivers.
const NEW_SUMMARY = [
  row("bm25-greekstemmer", [0.041, 0.2, 0.3, 0.4, 0.1]),
  row("lsi", [0.035, 0.25, 0.3, 0.45, 0.12], { standIn: true, provenance: PROVENANCE }),
  row("oracle:bm25-greekstemmer", [0.052, 0.21, 0.31, 0.5, 0.11], { section: "4.4", standIn: true }),
  row("tuned:bm25-greekstemmer", [0.043, 0.2, 0.3, 0.42, 0.1], { section: "4.4" }),
  row("reform:bm25-greekstemmer", [], { status: "skipped" }),
];

const perQueryRows = (ids: string[], areas: string[]) =>
  ids.flatMap((experiment, e) => areas.map((area, q) => ({ experiment, sample: 0, query: `Q${q}`, area, "Recall@100": 0.1 * (q + 1) + 0.01 * e, "nDCG@10": 0.04 })));

const visible = (html: string) => html.replace(/<script\b[^>]*>[\s\S]*?<\/script\s*>/gi, "");
const specs = (html: string) => [...html.matchAll(/<script type="application\/json" id="fig-\d+-spec">([\s\S]*?)<\/script>/g)].map((m) => JSON.parse(m[1]) as Figure);
const sectionOf = (page: string, id: string) => {
  const start = page.indexOf(`<section id="${id}">`);
  return page.slice(start, page.indexOf("</section>", start));
};
type Range = { range: number[]; title: { text: string } };

describe("labels", () => {
  test("one name for queries without an area: blanks and the evaluation's 'unknown' alike", () => {
    assert.equal(NO_AREA, "(no area)");
    for (const blank of ["", "  ", undefined, null, "unknown"]) assert.equal(areaLabel(blank), NO_AREA, String(blank));
    assert.equal(areaLabel(" ποινικό "), "ποινικό");
    // And the text Table 6 that `gbr stats` and `gbr reproduce` print.
    const t1 = { queries: 3, unjudged: 0, articles: 9, sources: 2, judgments: 4, distinctRelevant: 4, relevantShareOfPool: 0.44, goldPerQuery: 1.33, multiGoldShare: 0.33, medianArticleWords: 80, medianQueryWords: 20 };
    const text = formatStats("x", t1, [{ area: "unknown", queries: 2, goldArticles: 3, relevantPerQuery: 1.5, medianGoldWords: 70 }]);
    assert.match(text, /^\(no area\) +2 +3 +1\.50 +70$/m);
    assert.doesNotMatch(text, /unknown/);
  });

  test("rowMarks: oracle: and tuned: rows, stand-ins; older folders' tuned: row is the oracle", () => {
    const marks = rowMarks([{ experiment: "oracle:x", standIn: "" }, { experiment: "tuned:x", standIn: "" }, { experiment: "lsi", standIn: "stand-in" }]);
    assert.equal(marks.tuning("oracle:x"), "oracle");
    assert.equal(marks.tuning("tuned:x"), "tuned");
    assert.equal(marks.tuning("lsi"), undefined);
    assert.equal(marks.standIn("lsi"), true);
    assert.equal(marks.standIn("oracle:x"), false);
    assert.equal(marks.anyStandIn, true);
    // Ids known from elsewhere (metadata.json).
    assert.deepEqual(["stand-in", " Stand-in", true, "", "no", false, undefined].map(isStandInValue), [true, true, true, false, false, false, false]);
    assert.equal(markedName("oracle:x", marks), `oracle:x — ${ORACLE_LABEL}`);
    assert.equal(markedName("tuned:x", marks), `tuned:x — ${TUNED_LABEL}`);
    assert.equal(markedName("lsi", marks), "lsi — stand-in (test doubles)");
    assert.equal(markedName("bm25", marks), "bm25");
  });
});

describe("figures: axes fitted to the data, legends clear of the labels", () => {
  test("valueAxisTop and fittedRange", () => {
    assert.ok(Math.abs(valueAxisTop(0.04) - 0.046) < 1e-12);
    assert.equal(valueAxisTop(0.95), 1);
    assert.equal(valueAxisTop(1), 1);
    assert.equal(valueAxisTop(1.03), 1.03, "a mean plus its sd past 1 stays on the axis");
    assert.equal(valueAxisTop(0), 1);
    assert.deepEqual(fittedRange([0.31, 0.62]), [0.279, 0.651]);
    assert.deepEqual(fittedRange([0.05, 0.4]), [0, 0.435]);
    assert.deepEqual(fittedRange([]), [0, 1]);
  });

  test("metric bars start at 0 and end a little above the largest bar, not at 1", () => {
    const rows = NEW_SUMMARY.map((r) => Object.fromEntries(NEW_HEADER.map((h, i) => [h, String(r[i])])));
    const ndcg = metricBarChart(rows, "nDCG@10");
    const x = ndcg.layout.xaxis as Range;
    assert.deepEqual(x.range, [0, valueAxisTop(0.052)]);
    assert.ok(x.range[1] < 0.06);
    assert.equal(x.title.text, "nDCG@10", "bars start at 0: nothing to say in the axis title");
    // With sd bars the top covers the whisker.
    const sd = metricBarChart([{ experiment: "a", status: "ok", "Recall@100": "0.5", samples: "3", "sd Recall@100": "0.1" }], "Recall@100");
    assert.deepEqual((sd.layout.xaxis as Range).range, [0, valueAxisTop(0.6)]);
  });

  test("the other value axes follow the data too", () => {
    const area = areaBreakdownChart(perQueryRows(["a"], ["civil", "criminal"]), undefined, "nDCG@10");
    assert.deepEqual((area.layout.yaxis as Range).range, [0, valueAxisTop(0.04)]);
    const react = reactRoundsChart([{ round: 1, keptRecall100: 0.2, candidateRecall100: 0.3 }]);
    assert.deepEqual((react.layout.yaxis as Range).range, [0, valueAxisTop(0.3)]);
    // The scatter reads by position: its axis fits the points and says where it starts.
    const summary = [
      { experiment: "a", status: "ok", "Recall@100": "0.61" },
      { experiment: "b", status: "ok", "Recall@100": "0.72" },
    ];
    const scatter = qualityCostScatter(summary, [{ method: "a", costPerQuery: "0" }, { method: "b", costPerQuery: "0.01" }]);
    const y = scatter.layout.yaxis as Range;
    assert.deepEqual(y.range, fittedRange([0.61, 0.72]));
    assert.equal(y.title.text, "Recall@100 (axis from 0.59, not 0)");
    const low = qualityCostScatter([{ experiment: "a", status: "ok", "Recall@100": "0.05" }], [{ method: "a", costPerQuery: "0.001" }]);
    assert.equal((low.layout.yaxis as Range).range[0], 0);
    assert.equal((low.layout.yaxis as Range).title.text, "Recall@100");
  });

  test("every legend sits at the bottom of the figure, against the container (plotly reserves its own margin)", () => {
    const rows = NEW_SUMMARY.map((r) => Object.fromEntries(NEW_HEADER.map((h, i) => [h, String(r[i])])));
    const figures: Figure[] = [
      metricBarChart(rows, "Recall@100"),
      areaBreakdownChart(perQueryRows(["a", "b"], ["civil"])),
      sweepHeatmap({ k1s: [1.2, 1.5], bs: [0.75], z: [[0.4, 0.5]], oracle: { k1: 1.5, b: 0.75, value: 0.5 } }),
      reactRoundsChart([{ round: 1, keptRecall100: 0.2, candidateRecall100: 0.3 }]),
      qualityCostScatter(rows, [{ method: "lsi", costPerQuery: "0.001" }]),
    ];
    for (const f of figures) {
      const legend = f.layout.legend as Record<string, unknown>;
      assert.ok(legend, f.layout.title.text);
      assert.deepEqual([legend.orientation, legend.yref, legend.y, legend.yanchor], ["h", "container", 0, "bottom"], f.layout.title.text);
    }
  });
});

describe("figures: oracle, cross-validated and stand-in rows", () => {
  const rows = () => NEW_SUMMARY.map((r) => Object.fromEntries(NEW_HEADER.map((h, i) => [h, String(r[i])])));

  test("bars: one trace per kind, named in the legend; stand-ins grey and hatched (an oracle row too)", () => {
    const fig = metricBarChart(rows(), "Recall@100");
    type Bars = { name: string; y: string[]; marker: { color: string; pattern?: { shape: string } } };
    const traces = fig.data as Bars[];
    assert.deepEqual(
      traces.map((t) => [t.y, t.name, t.marker.pattern?.shape ?? ""]),
      [
        [["bm25-greekstemmer"], "Recall@100", ""],
        [["lsi"], "stand-in (test doubles: mechanics, not results)", "/"],
        [["tuned:bm25-greekstemmer"], `tuned: ${TUNED_LABEL}`, ""],
        [["oracle:bm25-greekstemmer"], `${ORACLE_LABEL}, stand-in (test doubles: mechanics, not results)`, "/"],
      ],
    );
    assert.equal(fig.layout.showlegend, true);
    // Rows keep the summary's order on the category axis.
    assert.deepEqual((fig.layout.yaxis as { categoryarray: string[] }).categoryarray, ["bm25-greekstemmer", "lsi", "oracle:bm25-greekstemmer", "tuned:bm25-greekstemmer"]);
    // Plain results only: no legend, as before.
    assert.equal(metricBarChart(rows().slice(0, 1), "Recall@100").layout.showlegend, false);
  });

  test("area bars, the cost scatter and p-value labels carry the marks", () => {
    const marks = rowMarks(rows());
    const area = areaBreakdownChart(perQueryRows(["lsi", "oracle:bm25-greekstemmer", "tuned:bm25-greekstemmer"], ["civil"]), undefined, "Recall@100", { marks });
    assert.deepEqual(area.data.map((t) => t.name), ["lsi — stand-in (test doubles)", `oracle:bm25-greekstemmer — ${ORACLE_LABEL}, stand-in (test doubles)`, `tuned:bm25-greekstemmer — ${TUNED_LABEL}`]);
    assert.equal((area.data[0].marker as { pattern: { shape: string } }).pattern.shape, "/");
    assert.deepEqual(area.data[2].marker, { color: ROLE_COLOURS.tuned }, "the cross-validated row in its role's colour, not hatched");
    const scatter = qualityCostScatter(rows(), [{ method: "lsi", costPerQuery: "0.001" }, { method: "oracle:bm25-greekstemmer", costPerQuery: "0.002" }]);
    assert.deepEqual(scatter.data.map((t) => t.name), ["lsi — stand-in (test doubles)", `oracle:bm25-greekstemmer — ${ORACLE_LABEL}, stand-in (test doubles)`, "Pareto front"]);
  });

  test("issue 28, item 9: a colour means one experiment or one role in every figure", () => {
    const ids = ["bm25-greekstemmer", "bm25-grnlp", "lsi", "oracle:bm25-greekstemmer", "tuned:bm25-greekstemmer"];
    const summary = ids.map((experiment, i) => ({ experiment, status: "ok", "Recall@100": String(0.5 + i / 20), "nDCG@10": "0.3" }));
    const marks = rowMarks(summary);
    const colourOf = (fig: Figure, id: string) => {
      const t = fig.data.find((d) => String(d.name).startsWith(id) && !String(d.name).startsWith(`${id}:`))!;
      return (t.marker as { color: string }).color;
    };
    // Each figure is given a different part of the experiments, as the notebooks do.
    const area = areaBreakdownChart(perQueryRows(ids, ["civil"]), ["lsi", "oracle:bm25-greekstemmer", "bm25-grnlp"], "Recall@100", { marks });
    const cost = qualityCostScatter(summary, ids.slice(1).map((method, i) => ({ method, costPerQuery: String(0.001 * (i + 1)) })), "Recall@100", { marks });
    const bars = metricBarChart(summary, "Recall@100", { marks });
    for (const id of ["bm25-grnlp", "lsi", "oracle:bm25-greekstemmer"]) assert.equal(colourOf(area, id), colourOf(cost, id), `${id}: one colour in the area chart and the cost scatter`);
    assert.equal(colourOf(cost, "tuned:bm25-greekstemmer"), ROLE_COLOURS.tuned);
    const barColour = (name: RegExp) => (bars.data.find((t) => name.test(String(t.name)))!.marker as { color: string }).color;
    assert.equal(barColour(/^oracle/), colourOf(area, "oracle:bm25-greekstemmer"), "the oracle's colour in the bars too");
    assert.equal(barColour(/^tuned/), ROLE_COLOURS.tuned);
    // No experiment wears a role's colour, nor the bar chart's plain-result colour: amber is the oracle's only.
    const plain = ["bm25-grnlp", "lsi"].map((id) => colourOf(area, id));
    assert.equal(new Set(plain).size, 2);
    for (const c of plain) assert.ok(!Object.values(ROLE_COLOURS).includes(c as never) && c !== barColour(/^Recall@100/), c);
  });

  test("the sweep heatmap marks the oracle upper bound, from sweep.json's oracle or an older best", () => {
    const z = [[0.4, 0.5]];
    for (const key of ["oracle", "best"]) {
      const fig = sweepHeatmap({ k1s: [1.2, 1.5], bs: [0.75], z, [key]: { k1: 1.5, b: 0.75, value: 0.5 } });
      assert.match(String(fig.data[1].name), new RegExp(`^${ORACLE_LABEL.replace(/[()]/g, "\\$&")}: k1 1\\.5, b 0\\.75`));
    }
  });
});

describe("the significance table: coloured by the test's verdict", () => {
  test("testDeltaCell: green for a significant gain, red for a significant loss, neutral otherwise", () => {
    assert.deepEqual(testDeltaCell(0.067, 0.01), { html: "+0.0670", cls: "num delta gain", title: "significant gain of A over B (p Holm < 0.05)" });
    assert.equal(testDeltaCell(-0.2381, 0.00004).cls, "num delta loss");
    assert.equal(testDeltaCell(0.067, 0.3).cls, "num delta ns", "a large gain that is not significant is not coloured as one");
    assert.equal(testDeltaCell(0.001, 0.049).cls, "num delta gain", "a small significant gain is");
    assert.equal(testDeltaCell("", 0.01).html, "–");
  });
});

describe("buildReport: stand-ins, tuning rows, the queries file, areas", () => {
  let tmp = "";
  let marked = "";
  let legacy = "";
  before(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-report-marks-"));
    // A folder as `gbr reproduce --queries queries-sample.jsonl` names it, with the newer columns.
    marked = path.join(tmp, "greeklaws-2021--queries-sample");
    legacy = path.join(tmp, "legacy");
    await fs.mkdir(marked, { recursive: true });
    await fs.mkdir(legacy, { recursive: true });
    await fs.writeFile(path.join(marked, "summary.csv"), toCsv(NEW_HEADER, NEW_SUMMARY));
    await fs.writeFile(
      path.join(marked, "reproduction.csv"),
      toCsv(
        ["experiment", "metric", "paper", "scope", "ours", "diff", "status", "dataset", "setup", "reason", "standIn"],
        [
          ["bm25-greekstemmer", "Recall@100", 0.36, "paper-283", 0.4, 0.04, "ok", "d", "", "", ""],
          ["oracle:bm25-greekstemmer", "Recall@100", 0.41, "paper-283", 0.5, 0.09, "ok", "d", "", "", "stand-in"],
        ],
      ),
    );
    await fs.writeFile(
      path.join(marked, "metadata.json"),
      JSON.stringify({
        dataset: "greeklaws-2021",
        standIn: true,
        standInNote: "Some results were produced through the project's own test doubles.",
        queries: 3,
        experiments: [
          { id: "lsi", status: "ok", standIn: true, provenance: [{ kind: "chat", provider: "openai", endpoint: "127.0.0.1:9", requestedModel: "openai/gpt-oss-120b", servedModel: "double-gpt" }] },
          { id: "bm25-greekstemmer", status: "ok", standIn: false, provenance: [] },
        ],
      }),
    );
    await fs.writeFile(
      path.join(marked, "per-query.csv"),
      toCsv(["experiment", "sample", "query", "area", ...METRICS], perQueryRows(["bm25-greekstemmer", "lsi"], ["civil", "", "unknown"]).map((r) => [r.experiment, 0, r.query, r.area, 0.04, 0.5, 0.5, r["Recall@100"], 0.5])),
    );
    await fs.writeFile(path.join(marked, "table6.csv"), "area,queries,goldArticles,relevantPerQuery,medianGoldWords\ncivil,1,2,2,80\nunknown,2,3,1.5,70\n");
    // The +0.067 gain that used to show red: significant here, so green; a loss red; a gain that is not significant neutral.
    const tests = [
      { a: "tuned:bm25-greekstemmer", b: "bm25-greekstemmer", metric: "Recall@100", meanA: 0.467, meanB: 0.4, delta: 0.067, p: 0.001, pHolm: 0.003 },
      { a: "lsi", b: "bm25-greekstemmer", metric: "nDCG@10", meanA: 0.035, meanB: 0.041, delta: -0.006, p: 0.001, pHolm: 0.004 },
      { a: "oracle:bm25-greekstemmer", b: "bm25-greekstemmer", metric: "nDCG@10", meanA: 0.052, meanB: 0.041, delta: 0.011, p: 0.2, pHolm: 0.4 },
    ];
    await fs.writeFile(path.join(marked, "significance.json"), JSON.stringify({ swaps: 999, seed: 42, paper: { computed: 0, of: 20, tests: [] }, baseline: { against: "bm25-greekstemmer", of: tests.length, tests: tests }, rerank: null }));
    await fs.writeFile(
      path.join(marked, "sweep.json"),
      JSON.stringify({ metric: "Recall@100", k1s: [1.2, 1.5], bs: [0.75], z: [[0.5, 0.4]], oracle: { k1: 1.2, b: 0.75, value: 0.5 }, default: { k1: 1.5, b: 0.75, value: 0.4 }, cv: { mean: { "Recall@100": 0.42 }, folds: [1, 2, 3, 4, 5].map((fold) => ({ fold, k1: 1.2, b: 0.75 })) } }),
    );

    // An older folder: no standIn or provenance columns, the sweep's one row named tuned:, sweep.json's best.
    await fs.writeFile(
      path.join(legacy, "summary.csv"),
      toCsv(OLD_HEADER, [row("bm25-greekstemmer", [0.5, 0.6, 0.5, 0.9, 0.4]).slice(0, -2), row("tuned:bm25-greekstemmer", [0.52, 0.6, 0.5, 0.95, 0.4], { section: "4.4" }).slice(0, -2)]),
    );
    await fs.writeFile(path.join(legacy, "sweep.json"), JSON.stringify({ metric: "Recall@100", k1s: [1.2], bs: [0.75], z: [[0.95]], best: { k1: 1.2, b: 0.75, value: 0.95 }, cv: { folds: 5, mean: { "Recall@100": 0.93 } } }));
  });
  after(async () => {
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  test("the title names the queries file of a <dataset>--<queries file> folder", async () => {
    const page = visible(await buildReport(marked));
    assert.match(page, /<title>GreekBarRetrieval report — greeklaws-2021 — queries-sample \(stand-in: test doubles\)<\/title>/);
    assert.match(page, /<h1>GreekBarRetrieval reproduction — greeklaws-2021 — queries-sample<\/h1>/);
    assert.equal(reportSubject("outputs/hf--queries-sample", { dataset: "greeklaws-2021" }), "greeklaws-2021 — queries-sample");
    assert.equal(reportSubject("outputs/sample", { dataset: "sample" }), "sample");
    assert.equal(reportSubject("outputs/my-set--q2024", undefined), "my-set — q2024");
    assert.match(visible(await buildReport(legacy)), /<title>GreekBarRetrieval report — legacy<\/title>/);
  });

  test("a banner at the top when the numbers come from the test doubles", async () => {
    const page = visible(await buildReport(marked));
    const banner = page.match(/<div class="banner stand-in" role="alert"><strong>([^<]*)<\/strong><p>([\s\S]*?)<\/p><\/div>/);
    assert.ok(banner, "banner");
    assert.equal(banner[1], escapeHtml(STAND_IN_BANNER));
    assert.match(banner[2], /^Some results were produced through the project&#39;s own test doubles\. Rows marked “stand-in” \(2 of 4 that ran\): <code>lsi<\/code>, <code>oracle:bm25-greekstemmer<\/code>\.$/);
    assert.ok(page.indexOf("banner stand-in") < page.indexOf("<nav>"), "in the header, above everything else");
    // metadata.json alone is enough; no stand-in, no banner.
    const metaOnly = path.join(tmp, "meta-only");
    await fs.mkdir(metaOnly, { recursive: true });
    await fs.writeFile(path.join(metaOnly, "summary.csv"), toCsv(OLD_HEADER, [row("bm25-greekstemmer", [0.5, 0.6, 0.5, 0.9, 0.4]).slice(0, -2)]));
    await fs.writeFile(path.join(metaOnly, "metadata.json"), JSON.stringify({ dataset: "x", standIn: true }));
    assert.ok(visible(await buildReport(metaOnly)).includes(`<strong>${escapeHtml(STAND_IN_BANNER)}</strong>`));
    assert.doesNotMatch(visible(await buildReport(legacy)), /class="banner/);
  });

  test("results: badges for stand-in, oracle and cross-validated rows; best among real results; provenance folded", async () => {
    const results = sectionOf(visible(await buildReport(marked)), "results");
    assert.match(results, /<tr class="stand-in"><td class="name marked">lsi <span class="badge stand-in" title="[^"]*">stand-in<\/span><\/td>/);
    assert.match(results, /<tr class="stand-in"><td class="name marked">oracle:bm25-greekstemmer <span class="badge oracle">oracle: tuned for Recall@100 on the test queries<\/span> <span class="badge stand-in"/);
    assert.ok(results.includes(`<td class="name marked">tuned:bm25-greekstemmer <span class="badge tuned">${TUNED_LABEL}</span></td>`));
    assert.match(results, /<tr><td class="name">bm25-greekstemmer<\/td>/, "plain rows as before");
    // The oracle's 0.0520 is not the best nDCG@10: an upper bound is nobody's result.
    assert.match(results, /<strong>0\.0430<\/strong>/);
    assert.doesNotMatch(results, /<strong>0\.0520<\/strong>/);
    assert.match(results, /oracle rows, tuned on the test queries, and stand-ins not counted/);
    // The provenance column sits folded with the setup.
    assert.match(results, /<details><summary>What produced each row \(4\): [^<]*providers, endpoints, models as requested and as served<\/summary>/);
    assert.match(results, /<th>experiment<\/th><th>setup<\/th><th>provenance<\/th>/);
    assert.ok(results.includes(`<td class="setup provenance">${PROVENANCE}</td>`));
  });

  test("reproduction, areas, significance and the sweep carry the same marks and names", async () => {
    const html = await buildReport(marked);
    const page = visible(html);
    const repro = sectionOf(page, "reproduction");
    assert.match(repro, /<tr class="stand-in"><td class="name marked">oracle:bm25-greekstemmer <span class="badge oracle">oracle: tuned for Recall@100 on the test queries<\/span> <span class="badge stand-in"/);
    // Areas: blank and "unknown" are one group, "(no area)", in Table 6, the area table and the figure.
    assert.match(sectionOf(page, "dataset"), /<td>\(no area\)<\/td>/);
    assert.doesNotMatch(page, />unknown</);
    const areas = sectionOf(page, "areas");
    assert.match(areas, /<th class="num">\(no area\)<\/th><th class="num">civil<\/th>/);
    const areaFig = specs(html).find((f) => /legal area/.test(f.layout.title.text))!;
    assert.deepEqual(areaFig.data[0].x, ["(no area) (2)", "civil (1)"]);
    // Significance: by verdict, not size.
    const sig = sectionOf(page, "significance");
    assert.match(sig, /<td class="num delta gain" title="significant gain of A over B \(p Holm &lt; 0\.05\)">\+0\.0670<\/td>/);
    assert.match(sig, /<td class="num delta loss" title="[^"]*">-0\.0060<\/td>/);
    assert.match(sig, /<td class="num delta ns" title="[^"]*">\+0\.0110<\/td>/);
    assert.doesNotMatch(sig, /diff (close|near|far)/);
    assert.match(sig, /<span class="delta gain">significant gain of A over B<\/span>/);
    // The sweep: the oracle upper bound and the 5-fold cross-validated estimate, with their rows.
    const sweep = sectionOf(page, "sweep");
    assert.match(sweep, /<td><span class="badge oracle">oracle: tuned for Recall@100 on the test queries<\/span> <span class="sd">\(row <code>oracle:bm25-greekstemmer<\/code>\)<\/span><\/td><td class="num">1\.20<\/td><td class="num">0\.75<\/td><td class="num">0\.5000<\/td>/);
    assert.match(sweep, /<td><span class="badge tuned">5-fold cross-validated<\/span> <span class="sd">\(row <code>tuned:bm25-greekstemmer<\/code>\)<\/span><\/td><td>per fold<\/td><td><\/td><td class="num">0\.4200<\/td>/);
    // The metadata names the test doubles.
    assert.match(sectionOf(page, "metadata"), /<td>test doubles<\/td><td>Some results were produced/);
  });

  test("an older folder (no standIn or provenance columns, sweep.json's best) renders", async () => {
    const page = visible(await buildReport(legacy));
    assert.doesNotMatch(sectionOf(page, "results"), /provenance/);
    assert.doesNotMatch(page, /badge stand-in|class="stand-in"/);
    assert.match(sectionOf(page, "sweep"), /<span class="badge oracle">oracle: tuned for Recall@100 on the test queries<\/span><\/td><td class="num">1\.20<\/td>/);
  });
});

describe("notebooks", () => {
  test("showOutcomes names oracle, cross-validated and stand-in rows (text fallback outside a kernel)", () => {
    const lines: string[] = [];
    const log = console.log;
    console.log = (...args: unknown[]) => void lines.push(args.join(" "));
    try {
      notebook.showOutcomes([
        { id: "oracle:bm25-greekstemmer", status: "ok", mean: { "Recall@100": 0.5 } },
        { id: "tuned:bm25-greekstemmer", status: "ok", mean: { "Recall@100": 0.45 } },
        { id: "lsi", status: "ok", standIn: true, mean: { "Recall@100": 0.4 } },
      ]);
    } finally {
      console.log = log;
    }
    const out = lines.join("\n");
    assert.ok(out.includes(`oracle:bm25-greekstemmer — ${ORACLE_LABEL}`), out);
    assert.ok(out.includes(`tuned:bm25-greekstemmer — ${TUNED_LABEL}`), out);
    assert.ok(out.includes("lsi — stand-in (test doubles)"), out);
  });
});

test("issue 22, item 15: data without legal areas gets no one-bar area chart, in the figures and the report", () => {
  const rows = ["q1", "q2"].flatMap((query) => ["a", "b"].map((experiment) => ({ experiment, query, area: "", "Recall@100": 0.5 })));
  const fig = areaBreakdownChart(rows, ["a", "b"], "Recall@100");
  assert.equal(fig.data.length, 0, "no bars");
  assert.match(String((fig.layout as unknown as { title: { text: string } }).title?.text ?? JSON.stringify(fig.layout)), /no legal areas/);
  // With areas, the chart is drawn as before.
  const withAreas = areaBreakdownChart(rows.map((r, i) => ({ ...r, area: i % 2 ? "civil" : "criminal" })), ["a", "b"], "Recall@100");
  assert.equal(withAreas.data.length, 2);
});

test("issue 22, item 15: Tables 1 and 6, cost and REACT columns are shown by one label table, never by their code keys", async () => {
  // Every key the tables have, taken from the functions that make them, has a label of words.
  const bench = {
    name: "toy",
    docs: [{ id: "ΑΚ::1", text: "ένα δύο τρία" }, { id: "ΠΚ::2", text: "τέσσερα πέντε" }, { id: "ΠΚ::3", text: "έξι" }],
    queries: [{ id: "q1", text: "ερώτηση ένα" }],
    qrels: new Map([["q1", new Set(["ΑΚ::1", "ΠΚ::2"])]]),
    meta: new Map([["q1", { area: "civil" }]]),
  };
  const table1 = datasetStats(bench);
  const usage = { method: "m", queries: 1, cost: { online: zeroWork(), corpus: zeroWork() }, seconds: 0, corpusSeconds: 0 };
  const cost = costTable([usage], { llm: { default: { input: 0, output: 0 } }, embedding: { default: 0 } })[0];
  const missed = ["query", "article", "firstRetrievedRound", "bestRank", "roundsRetrieved"];
  const react = ["round", "keptRecall100", "candidateRecall100", "missedGoldPairs", "missedGoldQueries", "callsPerQuery", "tokensPerQuery", "inputTokensPerQuery", "outputTokensPerQuery", "secondsPerQuery"];
  for (const key of [...Object.keys(table1), ...Object.keys(areaStats(bench)[0]), ...Object.keys(cost), ...react, ...missed]) {
    assert.ok(Object.hasOwn(COLUMN_LABELS, key), `no label for ${key}`);
    assert.doesNotMatch(columnLabel(key), /[a-z][A-Z]/, `${key} reads as a code key: ${columnLabel(key)}`);
  }
  assert.equal(columnLabel("relevantShareOfPool"), "relevant share of the pool (distinct relevant / articles)");
  assert.equal(columnLabel("Recall@100"), "Recall@100", "names that are already words stay as written");

  // The notebook's tables: Table 1 through show.statistics, cost.csv's frame through show.table (text fallback here).
  const lines: string[] = [];
  const log = console.log;
  console.log = (...args: unknown[]) => void lines.push(args.join(" "));
  try {
    notebook.show.statistics({ "this data": table1, "paper (283)": { queries: 283, relevantShareOfPool: 0.0737 } });
    notebook.showTable([cost]);
  } finally {
    console.log = log;
  }
  const out = lines.join("\n");
  for (const key of ["relevantShareOfPool", "multiGoldShare", "goldPerQuery", "callsPerQuery", "costPerQuery", "oneTimeTokens"]) {
    assert.ok(!out.includes(key), `${key} shown to the reader:\n${out}`);
    assert.ok(out.includes(columnLabel(key)), `${columnLabel(key)} missing:\n${out}`);
  }
  assert.match(out, /relevant share of the pool \(distinct relevant \/ articles\) +0\.6667 +0\.0737/);

  // The terminal's Table 1 and the report's dataset, REACT and cost sections use the same labels.
  assert.ok(formatStats("toy", table1, areaStats(bench)).includes(columnLabel("multiGoldShare")));
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-labels-"));
  try {
    await fs.writeFile(path.join(dir, "summary.csv"), toCsv(NEW_HEADER, [row("bm25-greekstemmer", [0.5, 0.6, 0.5, 0.9, 0.4])]));
    await fs.writeFile(path.join(dir, "table1.csv"), toCsv(Object.keys(table1), [Object.values(table1)]));
    await fs.writeFile(path.join(dir, "table6.csv"), toCsv(Object.keys(areaStats(bench)[0]), areaStats(bench).map((r) => Object.values(r))));
    await fs.writeFile(path.join(dir, "cost.csv"), toCsv(Object.keys(cost), [Object.values(cost)]));
    await fs.writeFile(path.join(dir, "react-rounds.csv"), toCsv(react, [react.map((_, i) => i + 1)]));
    const page = visible(await buildReport(dir));
    for (const id of ["dataset", "react", "cost"]) {
      const s = sectionOf(page, id);
      assert.doesNotMatch(s.replace(/<[^>]*>/g, " "), /\b[a-z]+[A-Z][A-Za-z0-9]*\b/, `a code key in the ${id} section`);
    }
    assert.ok(sectionOf(page, "dataset").includes(escapeHtml(columnLabel("relevantShareOfPool"))));
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});

describe("issue 22, item 15: the cost scatter draws no axis of zeros and says what x is", () => {
  const summary = [
    { experiment: "bm25-greekstemmer", status: "ok", "Recall@100": "0.4" },
    { experiment: "lsi", status: "ok", "Recall@100": "0.3" },
    { experiment: "prf:bm25-greekstemmer", status: "ok", "Recall@100": "0.45" },
  ];
  const offline = (seconds: (number | string)[]) =>
    summary.map((r, i) => ({ method: r.experiment, callsPerQuery: "0", llmTokensPerQuery: "0", embeddingTokensPerQuery: "0", rerankPairsPerQuery: "0", secondsPerQuery: String(seconds[i]), costPerQuery: "0" }));
  type Axis = { type?: string; range: number[]; title: { text: string }; tickvals?: number[]; ticktext?: string[] };
  const xs = (f: Figure) => f.data.filter((t) => t.mode === "markers").map((t) => (t.x as number[])[0]);
  const notes = (f: Figure) => ((f.layout.annotations as { text: string }[] | undefined) ?? []).map((a) => a.text).join(" ").replace(/<br>/g, " ");

  test("offline methods only (what a first run with no server has): x is wall time, not $0 for all", () => {
    const fig = qualityCostScatter(summary, offline([0.002, 0.004, 0.003]));
    const x = fig.layout.xaxis as Axis;
    assert.doesNotMatch(x.title.text, /USD|cost/);
    assert.match(x.title.text, /^wall time per query \(seconds/);
    assert.match(fig.layout.title.text, /^Recall@100 vs wall time per query/);
    assert.deepEqual(xs(fig), [0.002, 0.004, 0.003], "each method at its own x, none at 0");
    assert.match(notes(fig), /No method calls a model/);
    assert.deepEqual(fig.data.map((t) => t.customdata), [["0.002 s per query"], ["0.004 s per query"], ["0.003 s per query"], undefined]);
    assert.equal(costMeasure(offline([0.002, 0.004, 0.003])), "seconds");
  });

  test("nothing known above 0: no cost axis at all, a note instead", () => {
    for (const cost of [offline([0, 0, 0]), offline(["", "", ""]), []]) {
      const fig = qualityCostScatter(summary, cost);
      assert.equal(fig.data.length, 0);
      assert.equal((fig.layout.xaxis as { visible: boolean }).visible, false);
      assert.match(fig.layout.title.text, /no cost is known/);
      assert.match(notes(fig), /Nothing to put on a cost axis\. 3 methods \(bm25-greekstemmer, lsi, prf:bm25-greekstemmer\)/);
    }
    assert.deepEqual(qualityCostFront(summary, offline([0, 0, 0])), []);
  });

  test("the measure: USD when any method costs anything, else tokens, else calls, else wall time", () => {
    const row = (o: Record<string, string>) => ({ callsPerQuery: "0", llmTokensPerQuery: "0", embeddingTokensPerQuery: "0", secondsPerQuery: "1", costPerQuery: "0", ...o });
    assert.equal(costMeasure([row({}), row({ costPerQuery: "0.001", callsPerQuery: "1", embeddingTokensPerQuery: "60" })]), "usd");
    assert.equal(costMeasure([row({}), row({ callsPerQuery: "1", embeddingTokensPerQuery: "60" })]), "tokens", "prices of 0");
    assert.equal(costMeasure([row({}), row({ callsPerQuery: "3", rerankPairsPerQuery: "100" })]), "calls", "a cross-encoder: requests, no tokens, no price");
    assert.equal(costMeasure([row({}), row({})]), "seconds");
    assert.equal(costMeasure([row({ secondsPerQuery: "0" })]), undefined);
    assert.equal(costValue(row({ costPerQuery: "0.001", rerankPairsPerQuery: "100" }), "usd"), undefined, "USD without the rerank requests' price is not comparable");
    assert.equal(costValue(undefined, "calls"), undefined);
  });

  test("a method without a known cost is named, not drawn at 0", () => {
    const cost = [
      { method: "bm25-greekstemmer", callsPerQuery: "0", costPerQuery: "0", secondsPerQuery: "0.01" },
      { method: "lsi", callsPerQuery: "1", costPerQuery: "0.0001", secondsPerQuery: "0.2" },
      { method: "prf:bm25-greekstemmer", callsPerQuery: "4", costPerQuery: "0", rerankPairsPerQuery: "100", secondsPerQuery: "2" },
    ];
    const fig = qualityCostScatter(summary, cost);
    assert.deepEqual(fig.data.map((t) => t.name), ["bm25-greekstemmer", "lsi", "Pareto front"]);
    assert.match(notes(fig), /Not drawn, as cross-encoder rerank requests have no price or token count: prf:bm25-greekstemmer\./);
    assert.equal((fig.layout.xaxis as { exponentformat?: string }).exponentformat, "none", "dollars in decimals, not 400µ");
    const noRow = qualityCostScatter(summary, cost.slice(0, 2));
    assert.match(notes(noRow), /^Not drawn, no known API-equivalent cost per query: prf:bm25-greekstemmer\.$/);
    assert.match((fig.layout.xaxis as Axis).title.text, /^API-equivalent cost per query \(USD\)/);
  });

  test("costs over orders of magnitude: a log axis, 0 drawn apart and labelled, hover reads the value", () => {
    const cost = [
      { method: "bm25-greekstemmer", costPerQuery: "0" },
      { method: "lsi", costPerQuery: "0.000001" },
      { method: "prf:bm25-greekstemmer", costPerQuery: "0.012" },
    ];
    const fig = qualityCostScatter(summary, cost);
    const x = fig.layout.xaxis as Axis;
    assert.equal(x.type, "log");
    assert.match(x.title.text, /log scale, 0 drawn apart at the left/);
    const [free, cheap, dear] = xs(fig);
    assert.ok(free > 0 && free < cheap && cheap < dear, "a $0.000001 method is not drawn on top of a free one");
    assert.equal(x.ticktext![0], "0");
    assert.equal(x.tickvals![0], free);
    assert.ok(Math.log10(free) > x.range[0] && Math.log10(dear) < x.range[1], "every point inside the range (log10 units)");
    assert.deepEqual(fig.data[0].customdata, ["$0 per query"]);
    assert.deepEqual(fig.data[1].customdata, ["$0.000001 per query"]);
    // A narrow spread stays linear from 0.
    assert.equal(costAxis([0, 0.002, 0.003]).type, "linear");
    assert.deepEqual(costAxis([0, 0.002, 0.003]).range, [-0.04 * 0.003, 1.12 * 0.003]);
  });

  test("the report's cost section of an offline run has no USD axis either", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-cost-"));
    try {
      await fs.writeFile(path.join(dir, "summary.csv"), toCsv(NEW_HEADER, [row("bm25-greekstemmer", [0.3, 0.4, 0.3, 0.5, 0.2]), row("lsi", [0.2, 0.3, 0.2, 0.4, 0.1])]));
      await fs.writeFile(path.join(dir, "cost.csv"), toCsv(["method", "callsPerQuery", "llmTokensPerQuery", "embeddingTokensPerQuery", "secondsPerQuery", "costPerQuery"], [["bm25-greekstemmer", 0, 0, 0, 0.001, 0], ["lsi", 0, 0, 0, 0.004, 0]]));
      const fig = specs(await buildReport(dir)).find((f) => / vs /.test(f.layout.title.text))!;
      assert.match((fig.layout.xaxis as Axis).title.text, /^wall time per query/);
      assert.deepEqual(xs(fig), [0.001, 0.004]);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

test("issue 22, item 15 (found): a bar of 0 or of a few hundredths keeps a readable value", () => {
  const rows = [["a", 0.511], ["b", 0.0168], ["c", 0]].map(([experiment, v]) => ({ experiment, status: "ok", "nDCG@10": String(v) }));
  const fig = metricBarChart(rows, "nDCG@10");
  const [bars, zero] = fig.data as { type: string; textposition: string; textangle: number; text: string[]; y: string[]; x: number[]; showlegend?: boolean }[];
  // Inside when it fits, else beside the bar, upright: not shrunk to nothing inside a sliver.
  assert.deepEqual([bars.textposition, bars.textangle], ["auto", 0]);
  assert.deepEqual(bars.text, ["0.5110", "0.0168", "0.0000"]);
  // plotly draws no text on a bar of length 0: the value is written at the axis instead.
  assert.deepEqual([zero.type, zero.y, zero.x, zero.text, zero.showlegend], ["scatter", ["c"], [0], ["0.0000"], false]);
  assert.equal(metricBarChart(rows.slice(0, 2), "nDCG@10").data.length, 1, "no zero, no extra trace");
});

test("costText: two significant digits with the unit, whole numbers from 100", () => {
  assert.deepEqual(
    [costText(0, "usd"), costText(0.0020, "usd"), costText(0.000001, "usd"), costText(2600.4, "tokens"), costText(2.5, "calls"), costText(150, "seconds"), costText(0.0045, "seconds")],
    ["$0 per query", "$0.002 per query", "$0.000001 per query", "2600 tokens per query", "2.5 calls per query", "150 s per query", "0.0045 s per query"],
  );
});
