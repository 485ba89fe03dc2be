// Figures for a paper, without a browser: the print layout laid over a figure's own, where a browser is looked
// for. test/integration/render-figure.test.ts draws them in Chromium.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { readConfig } from "../../../lib/config";
import { metricBarChart, pValueHeatmap, sweepHeatmap } from "../../../lib/figures/figures";
import { MIN_FONT_PT, PAPER_INCHES, paperFigure, paperInches, PX_PER_INCH } from "../../../lib/figures/paper-figures";
import { shortLabel, wrapPlotlyText } from "../../../lib/figures/figure-style";
import { browserCandidates, findBrowser } from "../../../lib/report/render-figure";
import type { GbrError } from "../../../lib/util/errors";
import { defaultPaperWidth } from "../../../lib/report/export-figures";
import { FigureSet } from "../../../lib/report/html-blocks";

const ROWS = ["bm25-greekstemmer", "rrf:bm25-greekstemmer+dense:qwen3-8b", "lsi", "oracle:bm25-greekstemmer"].map((experiment, i) => ({ experiment, status: "ok", "Recall@100": String(0.4 + i / 10), "nDCG@10": "0.3" }));
const SWEEP = { metric: "Recall@100", k1s: [1.2, 1.5], bs: [0.6, 0.75], z: [[0.9, 0.88], [0.87, 0.86]], oracle: { k1: 1.2, b: 0.6, value: 0.9 }, default: { k1: 1.5, b: 0.75, value: 0.86 } };
const px = (pt: number) => (pt * PX_PER_INCH) / 72;

test("paper widths: a column of a two-column paper is 3.3 in, the page 7 in, at 96 CSS px to the inch", () => {
  assert.equal(paperInches("column"), PAPER_INCHES.column);
  assert.equal(paperInches("page"), 7);
  assert.equal(paperInches(5), 5);
  assert.throws(() => paperInches(0.5), /from 1 to 20 inches/);
  assert.throws(() => paperInches(Number.NaN), /from 1 to 20 inches/);
  const fig = metricBarChart(ROWS);
  assert.equal(paperFigure(fig, { width: "column" }).width, Math.round(3.3 * 96));
  assert.equal(paperFigure(fig).width, 7 * 96, "page width by default");
});

test("the print layout: no font under 8 pt, the figure's own layout kept underneath and left unchanged", () => {
  for (const fig of [metricBarChart(ROWS), sweepHeatmap(SWEEP)]) {
    const before = JSON.stringify(fig);
    for (const width of ["column", "page"] as const) {
      const p = paperFigure(fig, { width });
      const layout = p.figure.layout as Record<string, unknown> & { font: { size: number; family: string }; title: { text: string; font: { size: number } }; uniformtext: { minsize: number } };
      assert.ok(layout.font.size >= px(MIN_FONT_PT), `base font ${layout.font.size}px is at least 8 pt`);
      assert.ok(layout.title.font.size >= layout.font.size);
      assert.ok(layout.uniformtext.minsize >= px(MIN_FONT_PT), "bar labels are hidden rather than shrunk below 8 pt");
      assert.match(layout.font.family, /Helvetica/);
      assert.equal(layout.width, p.width);
      assert.equal(layout.height, p.height);
      assert.ok(p.height >= p.width / 2 && p.height <= 9 * 96, `height ${p.height}`);
      // The figure's own axes stay as they are, but for category labels and axis titles wrapped to the paper's width.
      const own = (ax: unknown) => { const { tickmode, tickvals, ticktext, automargin, tickangle, title, ...rest } = ax as Record<string, unknown>; void [tickmode, tickvals, ticktext, automargin, tickangle, title]; return rest; };
      assert.deepEqual(own(layout.xaxis), own(fig.layout.xaxis));
      assert.deepEqual(own(layout.yaxis), own(fig.layout.yaxis));
      for (const key of ["xaxis", "yaxis"]) assert.equal(((layout[key] as { title: { text: string } }).title.text).replace(/<br>/g, " "), (fig.layout[key] as { title: { text: string } }).title.text);
      assert.equal(p.figure.data.length, fig.data.length);
    }
    assert.equal(JSON.stringify(fig), before, "the interactive figure is not changed");
  }
});

test("titles wrap to the width or go (for a caption); long legend names wrap", () => {
  const fig = metricBarChart(ROWS);
  fig.layout.title.text = "A rather long title that will never fit on one line of a single column of a two-column paper";
  const column = paperFigure(fig, { width: "column" });
  const lines = column.figure.layout.title.text.split("<br>");
  assert.ok(lines.length >= 2, column.figure.layout.title.text);
  const titleFont = (column.figure.layout.title as unknown as { font: { size: number } }).font.size;
  for (const line of lines) assert.ok(line.length * 0.55 * titleFont <= column.width, line);
  assert.equal(paperFigure(fig, { title: false }).figure.layout.title.text, "");
  const sweep = paperFigure(sweepHeatmap(SWEEP), { width: "column" });
  const oracle = sweep.figure.data.find((t) => String(t.name).startsWith("oracle"))!;
  assert.match(String(oracle.name), /<br>/, "the oracle's legend entry is wrapped to the column");
});

test("wrapPlotlyText: at spaces, an entity as one character, a tag as none and never cut, a long id cut after : + - /, given breaks kept", () => {
  assert.deepEqual(wrapPlotlyText("aaa bbb ccc", 7), ["aaa bbb", "ccc"]);
  assert.deepEqual(wrapPlotlyText("a&lt;b c&gt;d", 7), ["a&lt;b c&gt;d"]);
  assert.deepEqual(wrapPlotlyText("averyveryverylongword x", 5), ["averyveryverylongword", "x"]);
  assert.deepEqual(wrapPlotlyText("one<br>two three", 20), ["one", "two three"]);
  // Issue 28, item 4: a title's second line in a span was cut inside its tag, and plotly drew the markup.
  assert.deepEqual(wrapPlotlyText('Recall@100<br><span style="font-size:13px;color:#4b5563">whiskers: 95% bootstrap interval</span>', 20), [
    "Recall@100",
    '<span style="font-size:13px;color:#4b5563">whiskers: 95%',
    "bootstrap interval</span>",
  ]);
  assert.deepEqual(wrapPlotlyText("rrf:bm25-greekstemmer+lsi [beyond the authors]", 22), ["rrf:bm25-greekstemmer+", "lsi [beyond the", "authors]"]);
  assert.equal(shortLabel("civil: Κώδικας Πολιτικής Δικονομίας και ειδικοί νόμοι", 12, 2), "civil:<br>Κώδικας…");
  assert.equal(shortLabel("a&lt;b", 12, 2), "a&lt;b");
  assert.equal(shortLabel("abcdefghijklmnop&amp;q", 8, 1), "abcdefg…");
});

test("issue 28, item 4: at a column's width a figure keeps its plot: the title, notes and legend are added to its height, category labels wrapped", () => {
  const many = ["bm25-greekstemmer", "bm25-grnlp", "lsi", "prf:bm25-greekstemmer", "rrf:bm25-greekstemmer+lsi"].map((experiment) => ({ experiment, status: "ok", "Recall@100": "0.9" }));
  // The exploratory family of two experiments: one row under a title of six lines (plotly could not draw it).
  const one = pValueHeatmap([{ a: "prf:bm25-greekstemmer", b: "bm25-greekstemmer", metric: "nDCG@10", meanA: 0.6, meanB: 0.7, delta: -0.1, p: 0.001, pHolm: 0.004 }], { family: "Every experiment against bm25-greekstemmer (exploratory), Holm over these 4 tests", swaps: 100_000 });
  for (const fig of [one, metricBarChart(many)]) {
    const p = paperFigure(fig, { width: "column" });
    const margin = p.figure.layout.margin as { t: number; b: number };
    assert.ok(p.height - margin.t - margin.b >= p.width * 0.4, `a plot of ${p.height - margin.t - margin.b} px under ${margin.t} px of title`);
    const ticks = (p.figure.layout.yaxis as { ticktext: string[] }).ticktext;
    for (const t of ticks) for (const line of t.split("<br>")) assert.ok(line.length <= 22, `'${line}' fits beside the plot`);
  }
});

test("the report's wide charts print across the page, the sweep and REACT rounds in a column", () => {
  assert.equal(defaultPaperWidth("recall100-by-experiment"), "page");
  assert.equal(defaultPaperWidth("p-values-paper"), "page");
  assert.equal(defaultPaperWidth("bm25-sweep"), "column");
  assert.equal(defaultPaperWidth("react-rounds"), "column");
});

test("where a browser is looked for: the usual places per system, then PATH", () => {
  const search = { pathDirs: ["/opt/bin"], programDirs: ["C:\\Program Files", "C:\\Users\\u\\AppData\\Local"] };
  const linux = browserCandidates(search, "linux");
  assert.equal(linux[0], "/usr/bin/chromium");
  for (const p of ["/usr/bin/chromium-browser", "/usr/bin/google-chrome", "/usr/bin/google-chrome-stable", path.join("/opt/bin", "chromium")]) assert.ok(linux.includes(p), p);
  assert.equal(linux.at(-1), "/snap/bin/chromium");
  assert.ok(browserCandidates(search, "darwin").includes("/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"));
  const windows = browserCandidates(search, "win32");
  assert.ok(windows.includes("C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe"), windows.join("\n"));
  assert.ok(windows.includes("C:\\Users\\u\\AppData\\Local\\Google\\Chrome\\Application\\chrome.exe"));
});

test("findBrowser: the variable's browser or an error naming it; else the first found; else how to get one", () => {
  const search = { pathDirs: ["/opt/bin"], programDirs: [] };
  assert.equal(findBrowser(search, (f) => f === "/usr/bin/google-chrome", "linux"), "/usr/bin/google-chrome");
  assert.equal(findBrowser(search, (f) => f === "/opt/bin/chromium", "linux"), "/opt/bin/chromium");
  assert.equal(findBrowser({ ...search, explicit: { path: "/x/chrome", variable: "GBR_CHROMIUM" } }, (f) => f === "/x/chrome", "linux"), "/x/chrome");
  // A wrong path in the variable is an error, even with a browser elsewhere.
  assert.throws(
    () => findBrowser({ ...search, explicit: { path: "/nope/chrome", variable: "CHROME_PATH" } }, (f) => f === "/usr/bin/chromium", "linux"),
    (err: GbrError) => {
      assert.equal(err.code, "BROWSER");
      assert.match(err.message, /CHROME_PATH is '\/nope\/chrome'/);
      assert.match(err.hint ?? "", /apt-get install chromium/);
      return true;
    },
  );
  assert.throws(
    () => findBrowser(search, () => false, "linux"),
    (err: GbrError) => {
      assert.equal(err.code, "BROWSER");
      assert.equal(err.unavailable, true);
      assert.match(err.message, /no Chromium or Chrome found .*\/usr\/bin\/chromium.* and on PATH/);
      assert.match(err.hint ?? "", /apt-get install chromium/);
      assert.match(err.hint ?? "", /GBR_CHROMIUM/);
      return true;
    },
  );
});

test("the browser settings come from the environment through lib/config.ts", () => {
  const c = readConfig({ GBR_CHROMIUM: "/a/chromium", CHROME_PATH: "/b/chrome", PATH: ["/u/bin", "", "/v/bin"].join(path.delimiter) });
  assert.deepEqual(c.browser.explicit, { path: "/a/chromium", variable: "GBR_CHROMIUM" });
  assert.deepEqual(c.browser.pathDirs, ["/u/bin", "/v/bin"]);
  assert.deepEqual(readConfig({ CHROME_PATH: "/b/chrome" }).browser.explicit, { path: "/b/chrome", variable: "CHROME_PATH" });
  assert.equal(readConfig({}).browser.explicit, undefined);
  // Windows spells its variables in any case.
  assert.deepEqual(readConfig({ Path: "/w", ProgramFiles: "C:\\PF", LOCALAPPDATA: "C:\\L" }).browser, { pathDirs: ["/w"], programDirs: ["C:\\PF", "C:\\L"] });
});

test("report figures have stable, unique, file-safe names", () => {
  const figs = new FigureSet();
  const html = figs.add("recall100-by-experiment", metricBarChart(ROWS));
  assert.match(html, /data-name="recall100-by-experiment"/);
  assert.throws(() => figs.add("recall100-by-experiment", metricBarChart(ROWS)), /two figures of the report are named 'recall100-by-experiment'/);
  assert.throws(() => figs.add("Recall@100", metricBarChart(ROWS)), /lower-case letters, digits and dashes/);
  assert.deepEqual(figs.named.map((f) => f.name), ["recall100-by-experiment"]);
});
