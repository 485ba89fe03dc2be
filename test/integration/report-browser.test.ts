import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, promises as fs, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser } from "playwright-core";
import { REPO } from "../helpers/shared";
import { csvField } from "../../lib/util/csv";
import { holm } from "../../lib/eval/randomization";
import { PAPER_TESTS } from "../../lib/eval/significance";
import { runGbr } from "../helpers/gbr";

// The report as a reader sees it: `gbr reproduce` on the bundled sample, `gbr report`, then the
// page opened in headless Debian Chromium with every network request refused and recorded.
// A second dataset folder (a copy of the real one plus hand-made significance.json, sweep.json,
// react-rounds.csv and react-missed.csv) exercises the optional sections' figures in the browser too.

const CHROMIUM = "/usr/bin/chromium";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
interface PageState {
  flag: string | null;
  figures: { id: string; plotted: boolean; traces: number }[];
  sections: string[];
  notes: string[];
  pwned: boolean;
  nameCells: string[];
  firstFigureTicks: string[];
  errorBars: number;
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

before(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-report-browser-"));
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

  const report = await gbr(["report", "--out", out]);
  assert.equal(report.code, 0, report.stderr);
  const pages = report.stdout.trim().split("\n");
  assert.deepEqual(pages, [path.join(out, "sample", "report.html"), path.join(out, "sample-extra", "report.html")]);
  t.diagnostic(`gbr reproduce ${rep.seconds.toFixed(1)} s; gbr report (2 pages, process start included) ${report.seconds.toFixed(1)} s`);

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
      return {
        flag: document.body.getAttribute("data-figures"),
        figures: figs.map((d) => ({ id: d.id, plotted: d.classList.contains("js-plotly-plot") && d.querySelector(".main-svg") !== null, traces: d.querySelectorAll(".trace").length })),
        sections: Array.from(document.querySelectorAll("section h2")).map((h) => h.textContent),
        notes: Array.from(document.querySelectorAll("p.note")).map((p) => p.textContent || ""),
        pwned: window.__pwned !== undefined,
        nameCells: Array.from(document.querySelectorAll("td.name")).map((td) => td.textContent),
        firstFigureTicks: Array.from(document.querySelectorAll("#fig-1 .ytick text")).map((t) => t.textContent),
        errorBars: document.querySelectorAll("#fig-1 .errorbar").length,
      };
    })()`)) as PageState;
    const seconds = (performance.now() - t0) / 1000;
    t.diagnostic(`${path.relative(out, file)}: ${state.figures.length} figures drawn in ${seconds.toFixed(1)} s`);

    assert.deepEqual(problems, [], `errors in ${file}`);
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

    const real = path.basename(path.dirname(file)) === "sample";
    if (real) {
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
    }
    const shot = path.join(path.dirname(file), "report-screenshot.png");
    await page.screenshot({ path: shot, fullPage: true });
    // outputs/ is git-ignored: the real page's screenshot is kept for the README; the one with
    // the hand-made optional sections beside it, for looking at every figure type.
    await fs.mkdir(path.join(REPO, "outputs"), { recursive: true });
    await fs.copyFile(shot, path.join(REPO, "outputs", real ? "report-screenshot.png" : "report-screenshot-all-sections.png"));
    assert.ok((await fs.stat(shot)).size > 20_000);
    await context.close();
  }
});
