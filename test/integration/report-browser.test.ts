import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, promises as fs, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser } from "playwright-core";
import { REPO } from "../helpers/shared";
import { csvField, toCsv } from "../../lib/util/csv";
import { holm } from "../../lib/eval/randomization";
import { PAPER_TESTS } from "../../lib/eval/significance";
import { parseCsvRecords, toNumber } from "../../lib/util/csv";
import { valueAxisTop } from "../../lib/figures/figures";
import { fittedRange } from "../../lib/figures/figure-style";
import { metricIntervals } from "../../lib/eval/metric-intervals";
import { ORACLE_LABEL, STAND_IN_BANNER, TUNED_LABEL } from "../../lib/figures/labels";
import { describeFaults, pageFigureFaults } from "../helpers/figure-faults";
import { runGbr } from "../helpers/gbr";

// The report as a reader sees it: `gbr reproduce` on the bundled sample, `gbr report`, then the
// page opened in headless Debian Chromium with every network request refused and recorded.
// A second dataset folder (a copy of the real one plus hand-made significance.json, sweep.json,
// react-rounds.csv and react-missed.csv) exercises the optional sections' figures in the browser
// too; a third (a copy with hand-made stand-in marks, named as `--queries FILE` names folders)
// the stand-in banner, badges and hatched bars, and the title naming the queries file.
// Screenshots go to GBR_TEST_SCREENSHOTS when set (a folder outside the repository, kept, for
// looking at the pages), else to a temporary folder removed at the end.

const CHROMIUM = "/usr/bin/chromium";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
interface PageState {
  title: string;
  h1: string;
  flag: string | null;
  figures: { id: string; plotted: boolean; traces: number }[];
  sections: string[];
  notes: string[];
  pwned: boolean;
  nameCells: string[];
  firstFigureTicks: string[];
  errorBars: number;
  /** Each drawn figure's title and its value axes' ranges as plotly rendered them. */
  axes: { id: string; title: string; x: number[]; y: number[] }[];
  /** Text of the figures (tick labels, axis titles, titles, annotations) that a legend covers. */
  legendOverlaps: string[];
  legends: number;
  banner: { text: string; top: number } | null;
  badges: { cls: string; text: string; row: string }[];
  provenanceHeader: boolean;
  /** The first figure's traces: name and hatch pattern. */
  barTraces: { name: string; pattern: string }[];
  /** The text drawn in each figure's plot, by figure name (cells of the heatmaps). */
  plotTexts: Record<string, string[]>;
}

/** The stand-in fixture's marks: one plain experiment, one oracle row. */
const STAND_IN_IDS = ["lsi", "oracle:bm25-greekstemmer"];

/**
 * Hand-made stand-in marks in the new output columns (added when the run's files lack them, so
 * the fixture works whatever version of `gbr reproduce` wrote the copy): summary.csv's `standIn`
 * and `provenance`, reproduction.csv's `standIn`, metadata.json's `standIn`, `standInNote` and
 * per-experiment `standIn`/`provenance`; and the sweep's two rows when the run has none.
 */
async function addStandInMarks(dir: string): Promise<void> {
  const summaryFile = path.join(dir, "summary.csv");
  const rows = parseCsvRecords(await fs.readFile(summaryFile, "utf8"));
  const header = Object.keys(rows[0]);
  for (const c of ["standIn", "provenance"]) if (!header.includes(c)) header.splice(header.indexOf("setup") + 1 || header.length, 0, c);
  if (!rows.some((r) => r.experiment.startsWith("oracle:"))) {
    const bm25 = rows.find((r) => r.experiment === "bm25-greekstemmer")!;
    rows.push({ ...bm25, experiment: "oracle:bm25-greekstemmer", section: "4.4" }, { ...bm25, experiment: "tuned:bm25-greekstemmer", section: "4.4" });
  }
  const provenance = "embedding openai at 127.0.0.1:9: qwen3-embedding-8b (served as double-embedder) [test double]";
  for (const r of rows) {
    const stand = STAND_IN_IDS.includes(r.experiment);
    r.standIn = stand ? "stand-in" : (r.standIn ?? "");
    r.provenance = stand ? provenance : (r.provenance ?? "");
  }
  await fs.writeFile(summaryFile, toCsv(header, rows.map((r) => header.map((h) => r[h] ?? ""))));
  const reproFile = path.join(dir, "reproduction.csv");
  const repro = parseCsvRecords(await fs.readFile(reproFile, "utf8"));
  const reproHeader = Object.keys(repro[0]);
  if (!reproHeader.includes("standIn")) reproHeader.push("standIn");
  for (const r of repro) r.standIn = STAND_IN_IDS.includes(r.experiment) && r.status === "ok" ? "stand-in" : (r.standIn ?? "");
  await fs.writeFile(reproFile, toCsv(reproHeader, repro.map((r) => reproHeader.map((h) => r[h] ?? ""))));
  const metaFile = path.join(dir, "metadata.json");
  const meta = JSON.parse(await fs.readFile(metaFile, "utf8")) as { experiments?: Record<string, unknown>[] } & Record<string, unknown>;
  meta.standIn = true;
  meta.standInNote = "Some results were produced through the project's own test doubles (hand-made marks of this test).";
  for (const e of meta.experiments ?? []) {
    const stand = STAND_IN_IDS.includes(String(e.id));
    e.standIn = stand;
    e.provenance = stand ? [{ kind: "embedding", provider: "openai", endpoint: "127.0.0.1:9", requestedModel: "qwen3-embedding-8b", servedModel: "double-embedder" }] : [];
  }
  await fs.writeFile(metaFile, JSON.stringify(meta));
}

/**
 * The farthest end the bar chart of `metric` draws for a folder: the bootstrap interval's upper end where per-query.csv
 * has the experiment, else the mean plus the sd where repeated.
 */
function barMax(summaryText: string, perQueryText: string, metric: "Recall@100" | "nDCG@10"): number {
  const ok = parseCsvRecords(summaryText).filter((r) => r.status === "ok");
  const cis = metricIntervals(parseCsvRecords(perQueryText), [metric], { experiments: ok.map((r) => r.experiment) }).get(metric)!;
  return Math.max(
    0,
    ...ok.map((r) => {
      const v = toNumber(r[metric]) ?? 0;
      const ci = cis.get(r.experiment);
      return ci ? Math.max(v, ci.upper) : v + ((toNumber(r.samples) ?? 1) > 1 ? (toNumber(r[`sd ${metric}`]) ?? 0) : 0);
    }),
  );
}

let tmp = "";
let browser: Browser | undefined;

function gbr(args: string[]) {
  return runGbr(args, { dataDir: path.join(tmp, "data"), cwd: REPO });
}

/** An experiment name that would break a page that spliced data into HTML or JS unescaped. */
const EVIL = `evil ’"<b>&amp;</script><script>window.__pwned=1</script>%{y}`;

/**
 * Hand-made optional inputs (clearly labelled as such), so their figures render in a real
 * browser too, plus a repeated experiment (error bars) with a hostile name.
 */
async function addOptionalInputs(dir: string): Promise<void> {
  const summary = await fs.readFile(path.join(dir, "summary.csv"), "utf8");
  const header = summary.split("\n")[0].split(",");
  const values: Record<string, unknown> = { experiment: EVIL, section: "test", status: "ok", samples: 3, seconds: 1.5, reason: "" };
  for (const [m, v] of [["nDCG@10", 0.41], ["nDCG@100", 0.52], ["Recall@10", 0.5], ["Recall@100", 0.8], ["MAP@100", 0.33]] as const) {
    values[m] = v;
    values[`sd ${m}`] = 0.05;
  }
  await fs.appendFile(path.join(dir, "summary.csv"), header.map((h) => csvField(values[h] ?? "")).join(",") + "\n");
  // reproduce writes a cost row for every experiment that ran; add one for the evil name, by column name.
  const costFile = path.join(dir, "cost.csv");
  const costHeader = readFileSync(costFile, "utf8").split("\n")[0].split(",");
  const costValues: Record<string, string | number> = { method: EVIL, callsPerQuery: 2, llmTokensPerQuery: 2600, embeddingTokensPerQuery: 300, embeddingTokensSource: "provider", secondsPerQuery: 1.2, costPerQuery: 0.0021, oneTimeCalls: 6308, oneTimeTokens: 2_000_000, oneTimeSeconds: 95, oneTimeCost: 0.5 };
  await fs.appendFile(costFile, costHeader.map((h) => csvField(costValues[h] ?? "")).join(",") + "\n");

  const k1s = [0.2, 0.4, 0.6, 0.8, 1, 1.2, 1.4, 1.5, 1.6, 1.8, 2, 2.2, 2.4, 2.6, 2.8, 3];
  const bs = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 1];
  const z = bs.map((b) => k1s.map((k1) => Math.round((0.9 - 0.05 * (k1 - 1.2) ** 2 - 0.2 * (b - 0.6) ** 2) * 1e4) / 1e4));
  const sweep = { metric: "Recall@100", k1s, bs, z, best: { k1: 1.2, b: 0.6, value: 0.9 }, default: { k1: 1.5, b: 0.75, value: z[8][7] }, cv: { folds: 5, mean: { "Recall@100": 0.88 } } };
  await fs.writeFile(path.join(dir, "sweep.json"), JSON.stringify(sweep));
  const tests = [
    { a: "lsi", b: "bm25-greekstemmer", metric: "nDCG@10", meanA: 0.5714, meanB: 0.511, delta: 0.0604, p: 0.21, pHolm: 0.63 },
    { a: "rrf:bm25-greekstemmer+lsi", b: "bm25-greekstemmer", metric: "nDCG@10", meanA: 0.5564, meanB: 0.511, delta: 0.0454, p: 0.004, pHolm: 0.016 },
    { a: "prf:bm25-greekstemmer", b: "bm25-greekstemmer", metric: "MAP@100", meanA: 0.2383, meanB: 0.4764, delta: -0.2381, p: 0.00001, pHolm: 0.00004 },
  ];
  // reproduce's shape: the paper's 20 tests (the first pair computed, the rest missing at p = 1,
  // one with a hostile reason) and the exploratory family against BM25 apart.
  const paperP = PAPER_TESTS.pairs.flatMap((_pair, i) => PAPER_TESTS.metrics.map((_, m) => (i === 0 ? [0.00001, 0.0004, 0.003, 0.2][m] : 1)));
  const paperHolm = holm(paperP);
  const paperTests = PAPER_TESTS.pairs.flatMap(([a, b], i) =>
    PAPER_TESTS.metrics.map((metric, m) => {
      const k = i * PAPER_TESTS.metrics.length + m;
      return i === 0
        ? { a, b, metric, status: "computed", meanA: 0.6, meanB: 0.36, delta: 0.24, p: paperP[k], pHolm: paperHolm[k] }
        : { a, b, metric, status: "missing", missing: [a], reason: i === 4 ? `${a} did not run (${EVIL})` : `no run of ${a}`, p: 1, pHolm: 1 };
    }),
  );
  const significance = {
    swaps: 100000,
    seed: 42,
    queries: 26,
    paper: { computed: 4, of: 20, correction: "Holm over all 20 tests of the paper; each missing test counted as p = 1", tests: paperTests },
    baseline: { against: "bm25-greekstemmer", of: tests.length, correction: "Holm over these 3 tests only", tests },
  };
  await fs.writeFile(path.join(dir, "significance.json"), JSON.stringify(significance));
  const rounds = [
    [1, 0.45, 0.59, 30, 21],
    [2, 0.52, 0.65, 25, 18],
    [3, 0.57, 0.69, 20, 15],
    [5, 0.62, 0.73, 15, 11],
    [10, 0.67, 0.77, 12, 9],
  ];
  await fs.writeFile(
    path.join(dir, "react-rounds.csv"),
    "round,keptRecall100,candidateRecall100,missedGoldPairs,missedGoldQueries,callsPerQuery,tokensPerQuery\n" +
      rounds.map(([r, k, c, mp, mq]) => `${r},${k},${c},${mp},${mq},${2 * r},${9000 * r}`).join("\n") +
      "\n",
  );
  await fs.writeFile(
    path.join(dir, "react-missed.csv"),
    "query,article,firstRetrievedRound,bestRank,roundsRetrieved\n" + [["Q-1", EVIL, 1, 3, 4], ["Q-2", "ΑΚ::914", 2, 57, 1]].map((r) => r.map(csvField).join(",")).join("\n") + "\n",
  );
}

let shots = "";

before(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-report-browser-"));
  shots = process.env.GBR_TEST_SCREENSHOTS ?? path.join(tmp, "screenshots");
  await fs.mkdir(shots, { recursive: true });
});

after(async () => {
  await browser?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

test("the report renders offline in headless Chromium: every figure drawn, no errors, no network", { timeout: 600_000 }, async (t) => {
  assert.ok(
    existsSync(CHROMIUM),
    `${CHROMIUM} not found: this test needs Debian's Chromium. Install it with 'apt-get update && apt-get install -y chromium' (the CI script does).`,
  );
  const out = path.join(tmp, "outs");
  const rep = await gbr(["reproduce", "--data", "sample", "--out", out, "-q"]);
  assert.equal(rep.code, 0, rep.stderr);
  await fs.cp(path.join(out, "sample"), path.join(out, "sample-extra"), { recursive: true });
  await addOptionalInputs(path.join(out, "sample-extra"));
  const standInDir = path.join(out, "sample--queries-stand-in");
  await fs.cp(path.join(out, "sample"), standInDir, { recursive: true });
  await addStandInMarks(standInDir);

  const report = await gbr(["report", "--out", out]);
  assert.equal(report.code, 0, report.stderr);
  const pages = report.stdout.trim().split("\n");
  assert.deepEqual(pages, [path.join(out, "sample", "report.html"), path.join(standInDir, "report.html"), path.join(out, "sample-extra", "report.html")]);
  t.diagnostic(`gbr reproduce ${rep.seconds.toFixed(1)} s; gbr report (${pages.length} pages, process start included) ${report.seconds.toFixed(1)} s`);

  const { chromium } = await import("playwright-core");
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
  for (const file of pages) {
    const t0 = performance.now();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, offline: true });
    const page = await context.newPage();
    const requests: string[] = [];
    const problems: string[] = [];
    const pageUrl = pathToFileURL(file).href;
    await page.route("**/*", (route) => {
      const url = route.request().url();
      if (url === pageUrl) return route.continue();
      requests.push(url);
      return route.abort();
    });
    page.on("console", (msg) => {
      if (msg.type() === "error") problems.push(`console.error: ${msg.text()}`);
    });
    page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
    await page.goto(pageUrl, { waitUntil: "load" });
    // Browser-side code as strings: the project compiles without the DOM library.
    await page.waitForFunction('document.body.getAttribute("data-figures") !== null', undefined, { timeout: 60_000 });
    const state = (await page.evaluate(`(() => {
      const figs = Array.from(document.querySelectorAll("div.figure"));
      const overlap = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
      const legendOverlaps = [];
      let legends = 0;
      for (const d of figs) {
        for (const legend of d.querySelectorAll("g.legend")) {
          legends++;
          const box = legend.getBoundingClientRect();
          for (const t of d.querySelectorAll("svg text")) {
            if (legend.contains(t) || !(t.textContent || "").trim()) continue;
            const r = t.getBoundingClientRect();
            if (r.width > 0 && r.height > 0 && overlap(box, r)) legendOverlaps.push(d.id + ": " + t.textContent);
          }
        }
      }
      const banner = document.querySelector("header .banner");
      const fig1 = document.getElementById("fig-1");
      return {
        title: document.title,
        h1: document.querySelector("h1").textContent,
        axes: figs.filter((d) => d._fullLayout).map((d) => ({ id: d.id, title: d._fullLayout.title.text, x: d._fullLayout.xaxis.range, y: d._fullLayout.yaxis.range })),
        legendOverlaps,
        legends,
        banner: banner ? { text: banner.textContent, top: banner.getBoundingClientRect().top } : null,
        badges: Array.from(document.querySelectorAll("span.badge")).map((b) => ({ cls: b.className, text: b.textContent, row: b.closest("tr") ? b.closest("tr").className : "" })),
        provenanceHeader: Array.from(document.querySelectorAll("#results th")).some((th) => th.textContent === "provenance"),
        barTraces: fig1 && fig1._fullData ? fig1._fullData.map((t) => ({ name: t.name, pattern: (t.marker && t.marker.pattern && t.marker.pattern.shape) || "" })) : [],
        flag: document.body.getAttribute("data-figures"),
        figures: figs.map((d) => ({ id: d.id, plotted: d.classList.contains("js-plotly-plot") && d.querySelector(".main-svg") !== null, traces: d.querySelectorAll(".trace, .heatmaplayer .hm").length })),
        sections: Array.from(document.querySelectorAll("section h2")).map((h) => h.textContent),
        notes: Array.from(document.querySelectorAll("p.note")).map((p) => p.textContent || ""),
        pwned: window.__pwned !== undefined,
        nameCells: Array.from(document.querySelectorAll("td.name")).map((td) => td.textContent),
        firstFigureTicks: Array.from(document.querySelectorAll("#fig-1 .ytick text")).map((t) => t.textContent),
        errorBars: document.querySelectorAll("#fig-1 .errorbar").length,
        plotTexts: Object.fromEntries(figs.map((d) => [d.getAttribute("data-name"), Array.from(d.querySelectorAll(".cartesianlayer text, .heatmaplayer text, g.trace text")).map((t) => t.textContent || "")])),
      };
    })()`)) as PageState;
    // Issue 28, item 4: no figure of the page shows markup as text, runs off its box or draws text over text (the
    // hostile name is shown as written, its tags and entities included, on purpose).
    const faults: string[] = Object.entries(await pageFigureFaults(page)).flatMap(([name, f]) => describeFaults(name, { ...f, markup: f.markup.filter((m) => !m.includes("evil ’")) }));
    const seconds = (performance.now() - t0) / 1000;
    t.diagnostic(`${path.relative(out, file)}: ${state.figures.length} figures drawn in ${seconds.toFixed(1)} s`);

    assert.deepEqual(problems, [], `errors in ${file}`);
    assert.deepEqual(faults, [], `figures of ${file}`);
    assert.deepEqual(requests, [], "the page requested something besides itself");
    assert.equal(state.pwned, false, "a script smuggled in through an experiment name ran");
    assert.equal(state.flag, "drawn");
    assert.ok(state.figures.length >= 4, `only ${state.figures.length} figures`);
    for (const f of state.figures) {
      assert.ok(f.plotted, `figure ${f.id} has no rendered plot`);
      assert.ok(f.traces > 0, `figure ${f.id} has no traces`);
    }
    assert.deepEqual(state.sections, [
      "Run metadata",
      "Dataset statistics",
      "Results",
      "Reproduction: paper vs ours",
      "Per-area breakdown",
      "Significance",
      "BM25 tuning sweep",
      "REACT rounds",
      "Cost",
    ]);

    const folder = path.basename(path.dirname(file));
    const real = folder === "sample";
    const standIn = folder === "sample--queries-stand-in";

    // Metric axes follow the data: bars from 0 to a little above the largest bar (not 0–1).
    const summaryText = await fs.readFile(path.join(path.dirname(file), "summary.csv"), "utf8");
    const perQueryText = await fs.readFile(path.join(path.dirname(file), "per-query.csv"), "utf8");
    const axis = (title: RegExp) => {
      const found = state.axes.find((a) => title.test(a.title));
      assert.ok(found, `no figure titled ${title}: ${JSON.stringify(state.axes.map((a) => a.title))}`);
      return found;
    };
    for (const metric of ["Recall@100", "nDCG@10"] as const) {
      const max = barMax(summaryText, perQueryText, metric);
      const { x, title } = axis(new RegExp(`^${metric} by experiment`));
      // Whiskers: every experiment of per-query.csv has its interval, and the figure says what they are.
      assert.match(title, /whiskers: 95% bootstrap interval of the mean over queries, 10,000 resamples/);
      assert.equal(x[0], 0, `${metric} bars start at 0`);
      assert.ok(Math.abs(x[1] - valueAxisTop(max)) < 1e-9, `${metric} axis ends at ${x[1]}, expected ${valueAxisTop(max)} for a largest bar of ${max}`);
      assert.ok(x[1] >= max && x[1] <= Math.max(max, Math.min(1, max * 1.15)) + 1e-9);
    }
    // The sample's best nDCG@10 is far below 1: the axis is not 0–1 there.
    assert.ok(axis(/^nDCG@10 by experiment/).x[1] < 0.9, "nDCG@10 axis fitted to the data");
    const area = axis(/by legal area/);
    assert.equal(area.y[0], 0);
    assert.ok(area.y[1] <= 1 + 1e-9);
    // Legends sit clear of every label, title and tick of their figure.
    assert.ok(state.legends >= 2, `only ${state.legends} legends drawn`);
    assert.deepEqual(state.legendOverlaps, [], "a legend covers a label");
    t.diagnostic(`${folder}: axes ${JSON.stringify(state.axes.map((a) => [a.id, a.x, a.y]))}`);

    if (standIn) {
      assert.match(state.title, /— sample — queries-stand-in \(stand-in: test doubles\)$/);
      assert.equal(state.h1, "GreekBarRetrieval reproduction — sample — queries-stand-in");
      assert.ok(state.banner, "the stand-in banner");
      assert.ok(state.banner.text.startsWith(STAND_IN_BANNER), state.banner.text);
      assert.ok(state.banner.top < 300, `the banner is at the top (${state.banner.top}px)`);
      // Badges: the stand-ins in the results, produced-by, reproduction (oracle row) and other tables; each oracle and tuned row named.
      const standInBadges = state.badges.filter((b) => /\bstand-in\b/.test(b.cls) && b.row === "stand-in");
      assert.ok(standInBadges.length >= 5, `stand-in badges: ${standInBadges.length}`);
      assert.ok(state.badges.some((b) => /\boracle\b/.test(b.cls) && b.text === ORACLE_LABEL));
      assert.ok(state.badges.some((b) => /\btuned\b/.test(b.cls) && b.text === TUNED_LABEL));
      assert.ok(state.provenanceHeader, "the provenance column");
      // Bars: the stand-ins hatched, the oracle upper bound named in the legend.
      const hatched = state.barTraces.filter((b) => b.pattern === "/");
      assert.ok(hatched.length >= 1 && hatched.every((b) => /stand-in/.test(b.name)), JSON.stringify(state.barTraces));
      assert.ok(state.barTraces.some((b) => b.name.includes(ORACLE_LABEL)), JSON.stringify(state.barTraces));
    } else {
      assert.equal(state.banner, null, "no stand-in banner without stand-ins");
      assert.equal(state.title, "GreekBarRetrieval report — sample");
    }
    if (real || standIn) {
      // Bar charts (Recall@100, nDCG@10), areas, p-values (reproduce tests every experiment
      // against BM25 when the paper's runs are absent); the optional files reproduce does not
      // write here are noted, not drawn.
      assert.ok(!state.notes.some((n) => /significance\.json not found/.test(n)));
      assert.ok(!state.notes.some((n) => /sweep\.json not found/.test(n)), "reproduce writes the tuning sweep");
      assert.ok(state.notes.some((n) => /react-rounds\.csv not found/.test(n)));
    } else {
      assert.equal(state.figures.length, 8, "bars ×2, areas, p-values of the paper's tests and of the BM25 family, sweep, REACT rounds, cost");
      assert.ok(state.notes.some((n) => /4 of the paper's 20 tests computed; Holm over all 20, missing tests counted as p = 1/.test(n)));
      assert.ok(state.notes.some((n) => /Paper, on its 283 queries: by round 10, 98 pairs over 64 queries/.test(n)));
      // The hostile name shows exactly as written, in the table and on the chart's axis.
      assert.ok(state.nameCells.includes(EVIL), "name cell");
      assert.ok(state.firstFigureTicks.includes(EVIL), `tick labels: ${JSON.stringify(state.firstFigureTicks)}`);
      assert.ok(state.errorBars > 0, "sd error bars for the repeated experiment");
      // The paper's family as a heatmap of Δ and Holm p: the first pair's four tests (Δ +0.240), two of them below
      // 0.05 after Holm (2e-4 and 0.0076; 0.054 and 1 not), starred; the 16 missing tests grey, "not run".
      const cells = state.plotTexts["p-values-paper"] ?? [];
      assert.equal(cells.filter((c) => /^\+0\.240\s★/.test(c)).length, 2, JSON.stringify(cells));
      assert.equal(cells.filter((c) => c === "not run").length, 16, JSON.stringify(cells));
      assert.ok(cells.includes("+0.2400.0540") && cells.includes("+0.2401.0000"), JSON.stringify(cells));
      // The exploratory family: three tests, two passing (a gain of rrf, a loss of prf), no cell left out (one metric
      // each: the rest "not run").
      const base = state.plotTexts["p-values-baseline"] ?? [];
      assert.deepEqual(base.filter((c) => c.includes("★")).sort(), ["+0.045\u2009★0.0160", "\u22120.238\u2009★4.0×10\u200b\u22125\u200b"].sort(), JSON.stringify(base));
      // The cost scatter's quality axis holds every point, fitted as fittedRange does.
      const cost = axis(/vs API-equivalent cost/);
      const okRows = parseCsvRecords(summaryText).filter((r) => r.status === "ok" && toNumber(r["Recall@100"]) !== undefined);
      const costed = new Set(parseCsvRecords(await fs.readFile(path.join(path.dirname(file), "cost.csv"), "utf8")).map((r) => r.method));
      const [lo, hi] = fittedRange(okRows.filter((r) => costed.has(r.experiment)).map((r) => toNumber(r["Recall@100"])!));
      assert.deepEqual(cost.y, [lo, hi]);
    }
    // Screenshots only outside the repository (the test writes nothing inside it).
    const shot = path.join(shots, `${folder}.png`);
    await page.screenshot({ path: shot, fullPage: true });
    assert.ok((await fs.stat(shot)).size > 20_000);
    await context.close();
  }
  t.diagnostic(`screenshots: ${shots}`);
  assert.ok(path.relative(REPO, shots).startsWith(".."), "the screenshots are outside the repository");
});
