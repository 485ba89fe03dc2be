import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { areaBreakdownChart, metricBarChart, reactRoundsChart, sweepHeatmap } from "../../../lib/figures/figures";
import { plotlyText, type Figure } from "../../../lib/figures/figure-style";
import { qualityCostScatter } from "../../../lib/figures/cost-figures";
import { paretoFront } from "../../../lib/eval/quality-cost";
import { parseCsvRecords, readCsvIfExists, toNumber } from "../../../lib/util/csv";
import { buildReport, reportFigures, writeReports } from "../../../lib/report/html";
import { escapeHtml, inlineScriptSource, jsonForScript, plotlyBundle } from "../../../lib/report/html-inline";
import { toCsv } from "../../../lib/util/csv";
import { main } from "../../../lib/cli/main";
import { significanceReport } from "../../../lib/eval/significance";
import { MISSED_GOLD_COLUMNS } from "../../../lib/eval/react-missed";
import type { MetricValues } from "../../../lib/eval/metrics";

const METRICS = ["nDCG@10", "nDCG@100", "Recall@10", "Recall@100", "MAP@100"];
const SUMMARY_HEADER = ["experiment", "section", "status", ...METRICS, "samples", ...METRICS.map((m) => `sd ${m}`), "seconds", "reason"];
/** A name and a reason that break naive splicing into HTML, JS strings or JSON-in-script. */
const EVIL = `Άρθρο’s "best" <b>&amp; </script><script>alert(1)</script> %{y}`;
const EVIL_REASON = `server said: </SCRIPT><!-- ’quoted’ "double" <img src=x onerror=alert(1)>`;

function summaryRow(o: { experiment: string; status?: string; values?: number[]; samples?: number; sd?: number[]; seconds?: number; reason?: string }): unknown[] {
  return [
    o.experiment,
    "4.1",
    o.status ?? "ok",
    ...(o.values ?? METRICS.map(() => "")),
    o.samples ?? (o.values ? 1 : ""),
    ...(o.sd ?? METRICS.map(() => "")),
    o.seconds ?? "",
    o.reason ?? "",
  ];
}

const SUMMARY = [
  summaryRow({ experiment: "bm25-greekstemmer", values: [0.5110219697852852, 0.6484, 0.5641, 1, 0.4764], seconds: 0.25 }),
  summaryRow({ experiment: "lsi", values: [0.03125, 0.6767, 0.6436, 0.95, 0.5137], seconds: 0.7 }),
  summaryRow({ experiment: EVIL, values: [0.41, 0.52, 0.5, 0.8, 0.33], samples: 3, sd: [0.05, 0.04, 0.03, 0.02, 0.01], seconds: 3 }),
  summaryRow({ experiment: "dense:qwen3-8b", status: "skipped", reason: EVIL_REASON }),
];
const summaryRecords = () => parseCsvRecords(toCsv(SUMMARY_HEADER, SUMMARY));

function perQuery(): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  const areas = ["civil", "civil", "criminal", "ποινικό"];
  ["bm25-greekstemmer", "lsi"].forEach((exp, e) =>
    areas.forEach((area, q) => rows.push({ experiment: exp, sample: 0, query: `Q${q}`, area, "Recall@100": (q + e) / 4, "nDCG@10": 0.5 })),
  );
  return rows;
}

function allTitlesAreObjects(fig: Figure): void {
  assert.equal(typeof fig.layout.title, "object");
  assert.equal(typeof fig.layout.title.text, "string");
  assert.ok(fig.layout.title.text.length > 0);
  // Axis titles too (plotly 3 dropped the string form everywhere).
  for (const [k, v] of Object.entries(fig.layout)) {
    if (/^[xy]axis/.test(k) && v && typeof v === "object" && "title" in v) assert.equal(typeof (v as { title: unknown }).title, "object", k);
  }
  // The spec is plain JSON.
  assert.deepEqual(JSON.parse(JSON.stringify(fig)), JSON.parse(JSON.stringify(fig)));
}

describe("csv", () => {
  test("records are strings, quoted fields with commas, quotes and line breaks survive", () => {
    const rows = parseCsvRecords('\ufeffexperiment,reason\nbm25,"a, ""b""\nc ’"\n');
    assert.deepEqual(rows, [{ experiment: "bm25", reason: 'a, "b"\nc ’' }]);
  });
  test("toNumber treats blanks as missing, not 0", () => {
    assert.equal(toNumber(""), undefined);
    assert.equal(toNumber(" "), undefined);
    assert.equal(toNumber("0"), 0);
    assert.equal(toNumber("0.5"), 0.5);
    assert.equal(toNumber("NaN"), undefined);
    assert.equal(toNumber(null), undefined);
  });
  test("readCsvIfExists answers undefined for a missing file", async () => {
    assert.equal(await readCsvIfExists(path.join(os.tmpdir(), "gbr-no-such-file.csv")), undefined);
  });
});

describe("figures", () => {
  test("metricBarChart: experiments that ran, values, sd error bars only with samples > 1", () => {
    const fig = metricBarChart(summaryRecords(), "Recall@100");
    allTitlesAreObjects(fig);
    type Bars = { type: string; orientation: string; y: string[]; x: number[]; error_x?: { array: number[] }; text: string[] };
    assert.equal(fig.data.length, 2, "single-sample bars, then repeated ones with error bars");
    const [one, rep] = fig.data as Bars[];
    assert.equal(one.type, "bar");
    assert.equal(one.orientation, "h");
    assert.deepEqual(one.y, ["bm25-greekstemmer", "lsi"]);
    assert.deepEqual(one.x, [1, 0.95]);
    assert.equal(one.error_x, undefined);
    assert.deepEqual(one.text, ["1.0000", "0.9500"]);
    assert.deepEqual(rep.y, [plotlyText(EVIL)]);
    assert.deepEqual(rep.error_x!.array, [0.02]);
    assert.deepEqual(rep.text, ["0.8000 ± 0.0200"]);
    // Rows keep the summary's order on the shared category axis.
    assert.deepEqual((fig.layout.yaxis as { categoryarray: string[] }).categoryarray, ["bm25-greekstemmer", "lsi", plotlyText(EVIL)]);
    assert.match(fig.layout.title.text, /Recall@100/);

    const single = metricBarChart(summaryRecords().slice(0, 2), "nDCG@10");
    assert.equal(single.data.length, 1);
    assert.equal((single.data[0] as { error_x?: unknown }).error_x, undefined);
    // Ties round half to even: 0.03125 -> 0.0312.
    assert.deepEqual((single.data[0] as { text: string[] }).text, ["0.5110", "0.0312"]);
  });

  test("areaBreakdownChart: one trace per experiment, areas with query counts, means per area", () => {
    const fig = areaBreakdownChart(perQuery(), ["lsi", "bm25-greekstemmer"], "Recall@100");
    allTitlesAreObjects(fig);
    assert.equal(fig.layout.barmode, "group");
    assert.deepEqual(fig.data.map((t) => t.name), ["lsi", "bm25-greekstemmer"]);
    assert.deepEqual(fig.data[0].x, ["civil (2)", "criminal (1)", "ποινικό (1)"]);
    // bm25: civil queries 0 and 1 -> (0 + 0.25) / 2; criminal 0.5; ποινικό 0.75.
    assert.deepEqual(fig.data[1].y, [0.125, 0.5, 0.75]);
    assert.deepEqual(fig.data[0].y, [0.375, 0.75, 1]);
    // Default: every experiment in order of appearance.
    assert.deepEqual(areaBreakdownChart(perQuery()).data.map((t) => t.name), ["bm25-greekstemmer", "lsi"]);
  });

  test("paretoFront on a hand-made example: dominated points out, ties kept, sorted by cost", () => {
    const pts = [
      { name: "bm25", cost: 0, quality: 0.36 },
      { name: "lsi", cost: 0, quality: 0.3 }, // dominated by bm25 (same cost, lower quality)
      { name: "reform-bm25", cost: 0.002, quality: 0.6 },
      { name: "worse-and-dearer", cost: 0.003, quality: 0.5 }, // dominated by reform-bm25
      { name: "react", cost: 0.05, quality: 0.67 },
      { name: "react-twin", cost: 0.05, quality: 0.67 }, // equal to react: both stay
      { name: "gemini", cost: 0.001, quality: 0.77 }, // dominates reform-bm25 and react
    ];
    assert.deepEqual(paretoFront(pts).map((p) => p.name), ["bm25", "gemini"]);
    const noGemini = pts.filter((p) => p.name !== "gemini");
    assert.deepEqual(paretoFront(noGemini).map((p) => p.name), ["bm25", "reform-bm25", "react", "react-twin"]);
    assert.deepEqual(paretoFront([]), []);
  });

  test("qualityCostScatter: joins on method, draws the front as a line, its methods filled, each named in the legend in its own colour", () => {
    const summary = [
      { experiment: "bm25", status: "ok", "Recall@100": "0.36", "nDCG@10": "0.2" },
      { experiment: "reform", status: "ok", "Recall@100": "0.6", "nDCG@10": "0.3" },
      { experiment: "worse", status: "ok", "Recall@100": "0.5", "nDCG@10": "0.35" },
      { experiment: "no-cost-row", status: "ok", "Recall@100": "0.9", "nDCG@10": "0.9" },
      { experiment: "skipped", status: "skipped", "Recall@100": "", "nDCG@10": "" },
    ];
    const cost = [
      { method: "bm25", costPerQuery: "0" },
      { method: "reform", costPerQuery: "0.002" },
      { method: "worse", costPerQuery: "0.003" },
      { method: "skipped", costPerQuery: "0.1" },
    ];
    const fig = qualityCostScatter(summary, cost, "Recall@100");
    allTitlesAreObjects(fig);
    assert.deepEqual(fig.data.map((t) => t.name), ["bm25", "reform", "worse", "Pareto front"]);
    const front = fig.data[3] as { mode: string; x: number[]; y: number[]; text?: string[] };
    assert.match(front.mode, /lines/);
    assert.deepEqual(front.x, [0, 0.002]);
    assert.deepEqual(front.y, [0.36, 0.6]);
    // No labels on the plot to overprint each other: the legend names each marker.
    assert.equal(front.text, undefined);
    const markers = fig.data.slice(0, 3).map((t) => t.marker as { symbol: string; color: string });
    assert.deepEqual(markers.map((m) => m.symbol), ["circle", "circle", "circle-open"]);
    assert.equal(new Set(markers.map((m) => m.color)).size, 3);
    // By nDCG@10 "worse" is on the front too.
    const byNdcg = qualityCostScatter(summary, cost, "nDCG@10");
    assert.deepEqual((byNdcg.data.at(-1) as { x: number[] }).x, [0, 0.002, 0.003]);
  });

  test("sweepHeatmap: heatmap over categorical k1 × b, NaN/null cells as gaps, best and default marked", () => {
    const fig = sweepHeatmap({
      metric: "Recall@100",
      k1s: [0.2, 1.5],
      bs: [0, 0.75, 1],
      z: [
        [0.1, 0.2],
        [0.3, null],
        [0.5, Number.NaN],
      ],
      best: { k1: 0.2, b: 1, value: 0.5 },
      default: { k1: 1.5, b: 0.75, value: 0.25 },
    });
    allTitlesAreObjects(fig);
    const h = fig.data[0] as { type: string; x: string[]; y: string[]; z: (number | null)[][] };
    assert.equal(h.type, "heatmap");
    assert.deepEqual(h.x, ["0.2", "1.5"]);
    assert.deepEqual(h.y, ["0", "0.75", "1"]);
    assert.deepEqual(h.z, [
      [0.1, 0.2],
      [0.3, null],
      [0.5, null],
    ]);
    assert.equal(fig.data.length, 3);
    assert.deepEqual([fig.data[1].x, fig.data[1].y], [["0.2"], ["1"]]);
    assert.match(String(fig.data[2].name), /default: k1 1\.5, b 0\.75 \(0\.2500\)/);
  });

  test("reactRoundsChart: kept and candidate-pool recall by round, sorted", () => {
    const fig = reactRoundsChart([
      { round: "10", keptRecall100: "0.67", candidateRecall100: "0.77" },
      { round: "1", keptRecall100: "0.45", candidateRecall100: "0.59" },
    ]);
    allTitlesAreObjects(fig);
    assert.deepEqual(fig.data.map((t) => [t.x, t.y]), [
      [[1, 10], [0.45, 0.67]],
      [[1, 10], [0.59, 0.77]],
    ]);
  });

});

describe("escaping", () => {
  test("escapeHtml, jsonForScript and inlineScriptSource", () => {
    assert.equal(escapeHtml(`Άρθρο’ & "x" 'y' <b>`), "Άρθρο’ &amp; &quot;x&quot; &#39;y&#39; &lt;b&gt;");
    const json = jsonForScript({ name: EVIL, line: "a\u2028b" });
    assert.doesNotMatch(json, /<|>|&|\u2028/);
    assert.deepEqual(JSON.parse(json), { name: EVIL, line: "a\u2028b" });
    assert.equal(inlineScriptSource('x = "</script>"; y = "</SCRIPT >"; /* <!-- */'), 'x = "<\\/script>"; y = "<\\/SCRIPT >"; /* <\\!-- */');
  });

  test("plotlyText keeps names literal in plotly's pseudo-HTML", () => {
    assert.equal(plotlyText("a<b>&c %{y}"), "a&lt;b&gt;&amp;c %&#123;y}");
  });

  test("the pinned plotly build is inlined with nothing that could close its script", () => {
    const { source, version } = plotlyBundle();
    assert.match(version, /^3\./);
    assert.ok(source.length > 1_000_000 && source.length < 2_000_000, "the minified cartesian build");
    assert.doesNotMatch(source, /<\/script/i);
    assert.doesNotMatch(source, /<!--/);
  });
});

describe("buildReport", () => {
  let tmp = "";
  let full = "";
  let bare = "";
  before(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-report-unit-"));
    full = path.join(tmp, "outs", "full");
    bare = path.join(tmp, "outs", "bare");
    for (const d of [full, bare]) {
      await fs.mkdir(d, { recursive: true });
      await fs.writeFile(path.join(d, "summary.csv"), toCsv(SUMMARY_HEADER, SUMMARY));
    }
    await fs.writeFile(
      path.join(full, "per-query.csv"),
      toCsv(
        ["experiment", "sample", "query", "area", ...METRICS],
        perQuery().map((r) => [r.experiment, 0, r.query, r.area, 0.5, 0.5, 0.5, r["Recall@100"], 0.5]),
      ),
    );
    await fs.writeFile(path.join(full, "table1.csv"), "queries,articles,relevantShareOfPool,goldPerQuery,medianArticleWords\n26,114,0.5964912280701754,2.6538461538461537,81.5\n");
    await fs.writeFile(path.join(full, "table6.csv"), "area,queries,goldArticles,relevantPerQuery,medianGoldWords\nποινικό’,7,20,2.857142857142857,77\n");
    await fs.writeFile(
      path.join(full, "reproduction.csv"),
      toCsv(
        ["experiment", "metric", "paper", "scope", "ours", "diff", "status", "dataset", "setup", "reason"],
        [
          ["bm25-greekstemmer", "Recall@100", 0.36, "paper-283", 0.37, 0.01, "ok", "hf (257 public queries)", "", ""],
          ["lsi", "Recall@100", 0.6, "paper-283", 0.56, -0.04, "ok", "hf (257 public queries)", "", ""],
          [EVIL, "Recall@100", 0.67, "paper-283", 0.8, 0.13, "ok", "hf (257 public queries)", "", ""],
          ["dense:qwen3-8b", "Recall@100", 0.67, "paper-283", "", "", "skipped", "hf (257 public queries)", "", EVIL_REASON],
        ],
      ),
    );
    await fs.writeFile(
      path.join(full, "metadata.json"),
      JSON.stringify({ dataset: "full", origin: "dir", fallback: null, source: "/data/x", revision: "v2.0", articles: 114, queries: 26, createdAt: "2026-01-01T00:00:00Z", node: "v20", llm: { model: "gpt’oss", prompts: { name: "project" } } }),
    );
    await fs.writeFile(path.join(full, "cost.csv"), toCsv(["method", "callsPerQuery", "llmTokensPerQuery", "embeddingTokensPerQuery", "secondsPerQuery", "costPerQuery", "oneTimeCost"], [["lsi", 0, 0, 0, 0.02, 0, 0], [EVIL, 2, 2600, 300, 1.2, 0.0021, 0.5]]));
    await fs.writeFile(path.join(full, "react-rounds.csv"), "round,keptRecall100,candidateRecall100,callsPerQuery,tokensPerQuery\n1,0.45,0.59,2,9000\n10,0.67,0.77,20,90000\n");
    const tests = [{ a: EVIL, b: "lsi", metric: "nDCG@10", meanA: 0.41, meanB: 0.03125, delta: 0.37875, p: 0.00001, pHolm: 0.04 }];
    await fs.writeFile(path.join(full, "significance.json"), JSON.stringify({ paper: { computed: 0, of: 20, tests: [] }, baseline: { against: "lsi", of: tests.length, tests: tests }, rerank: null }));
    await fs.writeFile(path.join(full, "sweep.json"), JSON.stringify({ metric: "Recall@100", k1s: [1.2, 1.5], bs: [0.6, 0.75], z: [[0.9, 0.88], [0.87, 0.86]], best: { k1: 1.2, b: 0.6, value: 0.9 }, default: { k1: 1.5, b: 0.75, value: 0.86 }, cv: { folds: 5, mean: { "Recall@100": 0.88 } } }));
  });
  after(async () => {
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  /** The page split into its <script> elements and the rest, the way an HTML parser would. */
  function split(html: string): { scripts: { attrs: string; body: string }[]; rest: string } {
    const scripts: { attrs: string; body: string }[] = [];
    const rest = html.replace(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi, (_m, attrs: string, body: string) => {
      scripts.push({ attrs, body });
      return "";
    });
    return { scripts, rest };
  }

  test("every section, every figure as a JSON block that parses back to the exact data", async () => {
    const html = await buildReport(full);
    const { scripts, rest } = split(html);
    // Nothing in the data opened or closed a script element: every <script is matched.
    assert.equal((html.match(/<script\b/gi) ?? []).length, scripts.length);
    assert.doesNotMatch(rest, /<\/?script/i);
    const specs = scripts.filter((s) => /type="application\/json"/.test(s.attrs)).map((s) => JSON.parse(s.body) as Figure);
    // bars ×2, areas, p-values, sweep, REACT, cost
    assert.equal(specs.length, 7);
    for (const f of specs) allTitlesAreObjects(f);
    const bars = specs[0].data[1] as { y: string[] };
    assert.ok(bars.y.includes(plotlyText(EVIL)), "the name with ’, quotes and </script> survives the JSON block");
    for (const id of ["metadata", "dataset", "results", "reproduction", "areas", "significance", "sweep", "react", "cost"]) assert.match(rest, new RegExp(`<section id="${id}">`));
    assert.equal((rest.match(/<div class="figure" id="fig-\d+" data-spec="fig-\d+-spec"/g) ?? []).length, 7);
  });

  test("Table 1 prints counts as integers, a share also as a percentage, a median with one decimal", async () => {
    const html = await buildReport(full);
    const cell = (label: string) => new RegExp(`<td>${label}</td><td class="num">([^<]*)</td>`).exec(html)?.[1];
    assert.equal(cell("queries"), "26");
    assert.equal(cell("articles"), "114");
    assert.equal(cell("relevant share of the pool \\(distinct relevant / articles\\)"), "0.5965 (59.65%)");
    assert.equal(cell("gold articles per query"), "2.6538");
    assert.equal(cell("median article length \\(words\\)"), "81.5");
  });

  test("a report with every section stays under 5 MB: plotly's minified cartesian build, inlined once", async () => {
    const html = await buildReport(full);
    assert.ok(Buffer.byteLength(html) < 5_000_000, `${Buffer.byteLength(html)} bytes`);
    assert.equal(html.split(plotlyBundle().source).length, 2, "plotly, exactly once");
  });

  test("issue 23, item 5: each figure has a stable name, the same in the page (its SVG download) and for gbr figures", async () => {
    const html = await buildReport(full);
    const named = await reportFigures(full);
    assert.deepEqual(
      named.map((f) => f.name),
      ["recall100-by-experiment", "ndcg10-by-experiment", "recall100-by-area", "p-values-baseline", "bm25-sweep", "react-rounds", "recall100-vs-cost"],
    );
    assert.deepEqual([...html.matchAll(/<div class="figure" id="fig-\d+" data-spec="fig-\d+-spec" data-name="([^"]+)"/g)].map((m) => m[1]), named.map((f) => f.name));
    // The same figures as the page draws, spec for spec.
    const specs = [...html.matchAll(/<script type="application\/json" id="fig-\d+-spec">([\s\S]*?)<\/script>/g)].map((m) => JSON.parse(m[1]) as Figure);
    assert.deepEqual(specs, JSON.parse(JSON.stringify(named.map((f) => f.fig))));
    // plotly's camera button downloads an SVG named after the figure.
    assert.match(html, /toImageButtonOptions: \{ format: "svg", filename: name \}/);
    assert.match(html, /var name = div\.getAttribute\("data-name"\)/);
  });

  test("text is escaped: Greek apostrophe, quotes, < and </script> in names and reasons", async () => {
    const html = await buildReport(full);
    const { rest } = split(html);
    assert.ok(rest.includes(escapeHtml(EVIL)), "escaped experiment name in the tables");
    assert.ok(rest.includes(escapeHtml(EVIL_REASON)), "escaped reason");
    assert.ok(!rest.includes("<img"), "no markup from the data");
    assert.ok(rest.includes("Άρθρο’s"), "Greek text and ’ written as UTF-8 text, not mangled");
    assert.ok(rest.includes("ποινικό’"));
    assert.match(html, /<meta charset="utf-8">/);
  });

  test("numbers: 4 decimals rounded half to even, differences coloured", async () => {
    const { rest } = split(await buildReport(full));
    assert.match(rest, /<strong>0\.5110<\/strong>/); // 0.5110219…, the best nDCG@10, in bold
    assert.match(rest, /0\.0312/); // 0.03125, a tie, rounds to even
    assert.doesNotMatch(rest, /0\.0313/);
    assert.match(rest, /<td class="num diff close up">\+0\.0100<\/td>/);
    assert.match(rest, /<td class="num diff near down">-0\.0400<\/td>/);
    assert.match(rest, /<td class="num diff far up">\+0\.1300<\/td>/);
    assert.match(rest, /0\.5965 \(59\.65%\)/);
    assert.match(rest, /81\.5</);
    assert.match(rest, /&lt; 0\.0001/); // p = 1e-5
  });

  test("works offline: no external script, stylesheet, image, fetch or URL outside the plotly bundle", async () => {
    const html = await buildReport(full);
    const { scripts, rest } = split(html);
    const ours = scripts.filter((s) => s.body.length < 1_000_000).map((s) => s.body).join("\n");
    const page = rest + "\n" + ours;
    assert.doesNotMatch(page, /https?:\/\//i, "no URL at all outside the plotly source");
    assert.doesNotMatch(html, /<script[^>]*\bsrc\s*=/i);
    assert.doesNotMatch(html, /<link\b/i);
    assert.doesNotMatch(page, /<img\b|<iframe\b|@import|url\(/i);
    assert.doesNotMatch(page, /\bfetch\s*\(|XMLHttpRequest|\bimport\s*\(/);
    for (const m of rest.matchAll(/\b(?:src|href)\s*=\s*"([^"]*)"/gi)) assert.match(m[1], /^#/, `only in-page links: ${m[1]}`);
    // The bundle is there, inlined once.
    assert.equal(scripts.filter((s) => s.body.length > 1_000_000).length, 1);
  });

  test("missing optional files give notes instead of sections' content", async () => {
    const html = await buildReport(bare);
    const { scripts, rest } = split(html);
    for (const f of ["significance.json", "sweep.json", "react-rounds.csv", "cost.csv", "per-query.csv", "table1.csv", "reproduction.csv", "metadata.json"]) {
      assert.match(rest, new RegExp(`${f.replace(".", "\\.")} not found`), f);
    }
    // Only the two result bar charts remain.
    assert.equal(scripts.filter((s) => /application\/json/.test(s.attrs)).length, 2);
  });

  test("writeReports and `gbr report`: every folder with a summary.csv, or --data NAME; clear errors", async () => {
    const root = path.join(tmp, "outs");
    await fs.mkdir(path.join(root, "no-summary"), { recursive: true });
    const written = await writeReports(root);
    assert.deepEqual(written, [path.join(root, "bare", "report.html"), path.join(root, "full", "report.html")]);
    for (const f of written) assert.match(await fs.readFile(f, "utf8"), /^<!DOCTYPE html>/);

    let out = "";
    let err = "";
    const io = { stdout: (t: string) => void (out += t), stderr: (t: string) => void (err += t), stdin: async () => "" };
    assert.equal(await main(["report", "--out", root, "--data", "full"], io), 0, err);
    assert.equal(out, `${path.join(root, "full", "report.html")}\n`);
    out = "";
    assert.equal(await main(["report", "--out", root, "--data", "no-summary"], io), 1);
    assert.match(err, /summary\.csv not found/);
    err = "";
    assert.equal(await main(["report", "--out", path.join(tmp, "nowhere")], io), 1);
    assert.match(err, /does not exist/);
  });
});

describe("buildReport: significance families and the REACT diagnostic", () => {
  let tmp = "";
  /** The page without its <script> elements (the inlined plotly bundle and the figure specs). */
  const visible = (html: string) => html.replace(/<script\b[^>]*>[\s\S]*?<\/script\s*>/gi, "");
  const specs = (html: string) => [...html.matchAll(/<script type="application\/json" id="fig-\d+-spec">([\s\S]*?)<\/script>/g)].map((m) => JSON.parse(m[1]) as Figure);
  const perQueryOf = (f: (i: number) => number) => new Map(Array.from({ length: 30 }, (_, i) => [`q${i}`, Object.fromEntries(METRICS.map((m) => [m, f(i)])) as MetricValues]));
  const QRELS = new Map(Array.from({ length: 30 }, (_, i) => [`q${i}`, new Set([`d${i}`])]));

  async function folder(name: string, files: Record<string, string>): Promise<string> {
    const dir = path.join(tmp, name);
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, "summary.csv"), toCsv(SUMMARY_HEADER, SUMMARY));
    for (const [file, body] of Object.entries(files)) await fs.writeFile(path.join(dir, file), body);
    return dir;
  }

  before(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-report-families-"));
  });
  after(async () => {
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  test("reproduce's significance.json: N of the paper's 20 computed, Holm over 20, missing tests with reasons, the baseline family apart", async () => {
    // Reform-BM25 vs BM25 can run; REACT did not (hostile reason); LSI only in the exploratory family.
    const byExperiment = new Map([
      ["bm25-greekstemmer", perQueryOf((i) => 0.2 + 0.01 * (i % 5))],
      ["reform:bm25-greekstemmer", perQueryOf(() => 0.9)],
      ["lsi", perQueryOf((i) => (i % 2 ? 0.3 : 0.1))],
    ]);
    const report = significanceReport(byExperiment, QRELS, { swaps: 999, seed: 42, notRun: new Map([["react-bm25", EVIL_REASON]]) });
    const dir = await folder("families", { "significance.json": JSON.stringify(report, null, 2) });
    const html = await buildReport(dir);
    const page = visible(html);
    const sig = page.slice(page.indexOf('<section id="significance">'), page.indexOf('<section id="sweep">'));
    assert.match(sig, /4 of the paper's 20 tests computed; Holm over all 20, missing tests counted as p = 1/);
    assert.match(sig, /999 random sign flips, seed 42, 30 queries/);
    assert.match(sig, /<h3>The paper's 20 tests<\/h3>/);
    assert.match(sig, /<h4>Missing tests \(16 of 20, each counted as p = 1\)<\/h4>/);
    // One line per missing pair, with its four metrics and its reason (escaped).
    assert.match(sig, /<td class="name">react-bm25<\/td><td class="name">dense:gemini-001<\/td><td>nDCG@10, nDCG@100, Recall@100, MAP@100<\/td><td class="reason">react-bm25 did not run \(/);
    assert.ok(sig.includes(escapeHtml(EVIL_REASON)));
    assert.ok(sig.includes("no run of dense:qwen3-8b"));
    assert.equal((sig.match(/<h4>Missing tests/g) ?? []).length, 1);
    // The computed tests: p = 1/1000, Holm over 20 with 16 ones gives 20/1000 = 0.02, in bold.
    assert.equal((sig.match(/<strong>0\.0200<\/strong>/g) ?? []).length, 4);
    // The exploratory family, apart, with its own Holm (2 experiments × 4 metrics).
    assert.match(sig, /<h3>Beyond the paper: every experiment against bm25-greekstemmer<\/h3>/);
    assert.match(sig, /Holm over these 8 tests only \(not combined with the paper's 20\)/);
    assert.ok(sig.indexOf("Beyond the paper") > sig.indexOf("Missing tests"), "the paper's family comes first");
    // Heatmaps of Δ and p after Holm: the paper's 5 pairs (4 of them not run, grey) and the 2 experiments against BM25,
    // each saying which way Δ goes.
    const figs = specs(html).filter((f) => /Holm/.test(f.layout.title.text));
    assert.deepEqual(
      figs.map((f) => [f.layout.title.text.split("<br>")[0], (f.data[0] as { y: string[] }).y.length]),
      [
        ["The paper's 20 tests, Holm over all 20", 5],
        ["Every experiment against bm25-greekstemmer (exploratory), Holm over these 8 tests", 2],
      ],
    );
    assert.match(figs[0].layout.title.text.replace(/<br>/g, " "), /Δ = A minus B .*Holm-corrected p of a two-sided paired randomization test, 999 sign flips/);
    assert.match(figs[1].layout.title.text, /Δ = row minus bm25-greekstemmer, over p \(Holm\); blue: a gain, red: a loss/);

    // Without BM25 there is no exploratory family; with nothing computed, no chart of the paper's tests.
    const none = await folder("no-baseline", { "significance.json": JSON.stringify(significanceReport(new Map(), QRELS, { swaps: 999 })) });
    const html2 = await buildReport(none);
    const page2 = visible(html2);
    assert.match(page2, /0 of the paper's 20 tests computed; Holm over all 20, missing tests counted as p = 1/);
    assert.match(page2, /<code>bm25-greekstemmer<\/code> did not run, so there is no exploratory family\./);
    assert.equal(specs(html2).filter((f) => /Holm/.test(f.layout.title.text)).length, 0);
  });

  test("a significance.json of another shape is an error naming the file and the field", async () => {
    const flat = await folder("flat", { "significance.json": JSON.stringify({ tests: [] }) });
    await assert.rejects(buildReport(flat), /expected reproduce's \{"paper"/);
    const bad = await folder("bad-significance", { "significance.json": JSON.stringify({ paper: { tests: [] }, baseline: { against: "x" } }) });
    await assert.rejects(buildReport(bad), /"baseline" must be null or have "tests"/);
    const worse = await folder("worse-significance", { "significance.json": JSON.stringify({ results: [] }) });
    await assert.rejects(buildReport(worse), /expected reproduce's \{"paper"/);
  });

  test("REACT: missed-gold columns and react-missed.csv add the appendix C.4 diagnostic next to the paper's figure", async () => {
    const rounds = "round,keptRecall100,candidateRecall100,missedGoldPairs,missedGoldQueries,callsPerQuery,tokensPerQuery\n1,0.45,0.59,30,21,2,9000\n10,0.67,0.77,12,9,20,90000\n";
    const missed = toCsv([...MISSED_GOLD_COLUMNS], [
      ["Q-1", EVIL, 1, 3, 4],
      ["Q-2", "ΑΚ::914", 2, 57, 1],
    ]);
    const dir = await folder("react-missed", { "react-rounds.csv": rounds, "react-missed.csv": missed });
    const page = visible(await buildReport(dir));
    const react = page.slice(page.indexOf('<section id="react">'), page.indexOf('<section id="cost">'));
    assert.match(react, /<h3>Gold retrieved but never kept \(appendix C\.4\)<\/h3>/);
    // In the round table with their own labels, as counts; the last round's next to the paper's figure.
    assert.match(react, /<th class="num">candidate-pool recall<\/th><th class="num">gold retrieved, never kept<\/th><th class="num">queries affected<\/th>/);
    assert.match(react, /<tr><td class="num">10<\/td><td class="num">0\.6700<\/td><td class="num">0\.7700<\/td><td class="num">12<\/td><td class="num">9<\/td>/);
    assert.match(react, /This run: by round 10, 12 pairs over 9 queries .*Paper, on its 283 queries: by round 10, 98 pairs over 64 queries \(the paper's number, a reference line/);
    assert.match(react, /<details open><summary>After the last round: 2 pairs over 2 queries \(react-missed\.csv\)<\/summary>/);
    assert.ok(react.includes(`<td class="name">${escapeHtml(EVIL)}</td><td class="num">1</td><td class="num">3</td><td class="num">4</td>`));
    assert.ok(react.includes(`<td class="name">ΑΚ::914</td><td class="num">2</td><td class="num">57</td><td class="num">1</td>`));

    // An empty list says so; the columns alone give the table and the reference line.
    const empty = await folder("react-none-missed", { "react-rounds.csv": rounds, "react-missed.csv": toCsv([...MISSED_GOLD_COLUMNS], []) });
    assert.match(visible(await buildReport(empty)), /react-missed\.csv lists no pair/);
    // The file alone (no columns): the list and the paper's line, no figure of ours.
    const fileOnly = visible(await buildReport(await folder("react-file-only", { "react-rounds.csv": "round,keptRecall100,candidateRecall100\n1,0.45,0.59\n", "react-missed.csv": missed })));
    assert.match(fileOnly, /<p class="note">Paper, on its 283 queries/);
    assert.match(fileOnly, /After the last round: 2 pairs over 2 queries/);
    const columnsOnly = visible(await buildReport(await folder("react-columns-only", { "react-rounds.csv": rounds })));
    assert.match(columnsOnly, /This run: by round 10, 12 pairs over 9 queries.*Paper, on its 283 queries/);
    assert.doesNotMatch(columnsOnly, /<details/);

    // Neither: the section is as it was.
    const plain = visible(await buildReport(await folder("react-plain", { "react-rounds.csv": "round,keptRecall100,candidateRecall100\n1,0.45,0.59\n" })));
    const plainReact = plain.slice(plain.indexOf('<section id="react">'), plain.indexOf('<section id="cost">'));
    assert.doesNotMatch(plainReact, /appendix C\.4|never kept|98 pairs/);
  });
});
