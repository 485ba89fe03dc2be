/**
 * Figures as files, drawn by the local Chromium (issue 23, items 5 and 6): the renderer's SVG, PNG and PDF of a
 * real figure; `gbr figures` on an outputs folder that `gbr reproduce --data sample` wrote, one file per report
 * figure; the message when no browser is found; and a notebook figure's display (in a stand-in for tslab's
 * kernel) carrying its static image. Needs Chromium: it fails, not skips, without one (CI installs it).
 * Everything is written under a temporary folder.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { readConfig } from "../../lib/config";
import { parseCsvRecords } from "../../lib/util/csv";
import { toCsv } from "../../lib/util/csv";
import { PAPER_TESTS } from "../../lib/eval/significance";
import { metricBarChart } from "../../lib/figures/figures";
import { reportFigures } from "../../lib/report/html";
import { closeFigureImages, NOTEBOOK_IMAGE_WIDTH, showFigure } from "../../lib/report/notebook";
import { MIN_FONT_PT, paperFigure, PRINT_DPI, PX_PER_INCH } from "../../lib/figures/paper-figures";
import { findBrowser, FigureRenderer, HEADLESS_ARGS } from "../../lib/report/render-figure";
import type { DisplayBundle } from "../../lib/util/sdk";
import { describeFaults, svgFaults } from "../helpers/figure-faults";
import { runGbr } from "../helpers/gbr";
import { REPO } from "../helpers/shared";

const MIN_FONT_PX = (MIN_FONT_PT * PX_PER_INCH) / 72;

/** A PNG's width and height (from its header), or undefined when it is not a PNG. */
function pngSize(png: Buffer): { width: number; height: number } | undefined {
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  if (png.length < 24 || !png.subarray(0, 8).equals(signature)) return undefined;
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}
const INSTALL = "Install it with 'apt-get update && apt-get install -y chromium' (the CI script does), or set GBR_CHROMIUM.";

let tmp = "";
let outs = "";
let dataset = "";
let executable = "";
/** A browser of the test's own, to read what the renderer wrote. */
let reader: Browser | undefined;
let page: Page | undefined;

before(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-render-figure-"));
  outs = path.join(tmp, "outs");
  try {
    executable = findBrowser(readConfig().browser);
  } catch (err) {
    throw new Error(`this test needs Chromium or Chrome: ${(err as Error).message}. ${INSTALL}`);
  }
  const rep = await runGbr(["reproduce", "--data", "sample", "--out", outs, "-q"], { dataDir: path.join(tmp, "data"), cwd: REPO });
  assert.equal(rep.code, 0, rep.stderr);
  dataset = path.join(outs, "sample");
  const { chromium } = await import("playwright-core");
  reader = await chromium.launch({ executablePath: executable, args: [...HEADLESS_ARGS], headless: true });
  page = await (await reader.newContext({ offline: true })).newPage();
});

after(async () => {
  await reader?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

interface SvgFacts {
  error: string | null;
  width: string | null;
  height: string | null;
  bars: number;
  texts: string[];
  minFontPx: number;
}

/** The SVG parsed by the browser: parse errors, size, bars, text and the smallest font. */
async function readSvg(svg: string): Promise<SvgFacts> {
  return (await page!.evaluate(`(() => {
    const doc = new DOMParser().parseFromString(${JSON.stringify(svg)}, "image/svg+xml");
    const error = doc.querySelector("parsererror");
    const root = doc.documentElement;
    const texts = Array.from(doc.querySelectorAll("text")).map((t) => (t.textContent || "").trim()).filter(Boolean);
    const sizes = Array.from(doc.querySelectorAll("text"))
      .filter((t) => (t.textContent || "").trim())
      .map((t) => parseFloat((/font-size:\\s*([0-9.]+)px/.exec(t.getAttribute("style") || "") || [])[1] || "NaN"));
    return {
      error: error ? error.textContent : null,
      width: root.getAttribute("width"),
      height: root.getAttribute("height"),
      bars: doc.querySelectorAll("g.trace.bars g.point").length,
      texts,
      minFontPx: Math.min(...sizes.filter((s) => !Number.isNaN(s))),
    };
  })()`)) as SvgFacts;
}

/** The PDF's pages and their media boxes (Chromium writes page dictionaries uncompressed). */
function pdfPages(pdf: Buffer): { pages: number; boxes: number[][] } {
  const text = pdf.toString("latin1");
  const pages = (text.match(/\/Type\s*\/Page\b(?!s)/g) ?? []).length;
  const boxes = [...text.matchAll(/\/MediaBox\s*\[([^\]]+)\]/g)].map((m) => m[1].trim().split(/\s+/).map(Number));
  return { pages, boxes };
}

test("the renderer draws a real figure as SVG (parses, every bar and label, no text under 8 pt), PNG at 300 dpi and a one-page PDF", { timeout: 300_000 }, async (t) => {
  const summary = parseCsvRecords(await fs.readFile(path.join(dataset, "summary.csv"), "utf8"));
  const ran = summary.filter((r) => r.status === "ok");
  const paper = paperFigure(metricBarChart(summary, "Recall@100"), { width: "column" });
  const t0 = performance.now();
  const renderer = await FigureRenderer.open(executable);
  const opened = performance.now();
  try {
    const svg = (await renderer.render(paper.figure, "svg", { width: paper.width, height: paper.height })).toString("utf8");
    const png = await renderer.render(paper.figure, "png", { width: paper.width, height: paper.height, scale: PRINT_DPI / PX_PER_INCH });
    const pdf = await renderer.render(paper.figure, "pdf", { width: paper.width, height: paper.height });
    t.diagnostic(`browser ${((opened - t0) / 1000).toFixed(1)} s, three files ${((performance.now() - opened) / 1000).toFixed(1)} s (${svg.length} B svg, ${png.length} B png, ${pdf.length} B pdf)`);

    const facts = await readSvg(svg);
    assert.equal(facts.error, null, "the SVG parses");
    assert.deepEqual([facts.width, facts.height], [String(paper.width), String(paper.height)]);
    assert.equal(facts.bars, ran.length, "one bar per experiment that ran");
    for (const r of ran) assert.ok(facts.texts.some((s) => s.startsWith(r.experiment)), `the label of ${r.experiment}`);
    assert.ok(facts.texts.includes("Recall@100"), "the axis title");
    assert.ok(facts.minFontPx >= MIN_FONT_PX - 1e-9, `smallest text ${facts.minFontPx}px: under 8 pt at ${paper.width / PX_PER_INCH} in`);

    const size = pngSize(png)!;
    // 3.125 pixels to each CSS pixel (300 dpi), within the one pixel a canvas drops in rounding.
    assert.ok(Math.abs(size.width - paper.width * 3.125) <= 1 && Math.abs(size.height - paper.height * 3.125) <= 1, JSON.stringify(size));
    const decoded = (await page!.evaluate(`new Promise((resolve) => { const i = new Image(); i.onload = () => resolve([i.naturalWidth, i.naturalHeight]); i.onerror = () => resolve(null); i.src = "data:image/png;base64,${png.toString("base64")}"; })`)) as number[] | null;
    assert.deepEqual(decoded, [size.width, size.height], "the browser decodes the PNG");

    assert.equal(pdf.subarray(0, 5).toString("latin1"), "%PDF-");
    const { pages, boxes } = pdfPages(pdf);
    assert.equal(pages, 1, "one page");
    assert.deepEqual(boxes[0].map(Math.round), [0, 0, Math.round(paper.width * 0.75), Math.round(paper.height * 0.75)], "the page is the figure's size in points");
    assert.match(pdf.toString("latin1"), /\/FontFile2|\/FontFile3|\/FontName/, "the text is text, its font embedded");
  } finally {
    await renderer.close();
  }
});

test("a title of several lines and the note under it are drawn whole, the note joined to the title, above the plot", { timeout: 120_000 }, async () => {
  // Plotly centred a title of several lines on its anchor: exported, its first line was cut off at the top, and a
  // note standing on the plot's top edge ran into it.
  const note = { text: "x is the wall time per query on this machine,<br>in this run", xref: "paper", yref: "paper", x: 0, y: 1, xanchor: "left", yanchor: "bottom", yshift: 6, showarrow: false, font: { size: 12 } };
  const fig = {
    data: [{ type: "bar", x: [0.5, 0.9], y: ["a", "b"], orientation: "h" }],
    layout: { title: { text: "Recall@100 by experiment<br><span style='font-size:13px'>whiskers: 95% bootstrap interval of the mean over queries, 10,000 resamples</span>" }, annotations: [note], height: 420 },
  };
  const renderer = await FigureRenderer.open(executable);
  try {
    for (const width of ["column", "page"] as const) {
      const paper = paperFigure(fig, { width });
      const svg = (await renderer.render(paper.figure, "svg", { width: paper.width, height: paper.height })).toString("utf8");
      const box = (await page!.evaluate(`(() => {
        document.body.innerHTML = ${JSON.stringify(svg)};
        const rect = (el) => { const r = el.getBoundingClientRect(); return { top: r.top, bottom: r.bottom }; };
        return { title: rect(document.querySelector(".gtitle")), plot: rect(document.querySelector(".bglayer .bg, .gridlayer")), svg: rect(document.querySelector("svg")), text: document.querySelector(".gtitle").textContent };
      })()`)) as Record<"title" | "plot" | "svg", { top: number; bottom: number }> & { text: string };
      assert.ok(box.title.top >= box.svg.top, `${width}: the title's first line is inside the figure (${JSON.stringify(box)})`);
      // The note spans the figure under the title (anchored at the plot's edge, it ran past the figure's right edge).
      assert.match(box.text, /resamples.*x is the wall time per query on this machine,\s?in this run$/, `${width}: the note follows the title`);
      assert.ok(box.title.bottom <= box.plot.top + 1, `${width}: the title and note are above the plot (${JSON.stringify(box)})`);
    }
  } finally {
    await renderer.close();
  }
});

/** Areas renamed to ~120 characters each in per-query.csv and table6.csv (the benchmark's longest are of that order). */
async function longAreaNames(dir: string): Promise<string[]> {
  const renamed: string[] = [];
  for (const file of ["per-query.csv", "table6.csv"]) {
    const rows = parseCsvRecords(await fs.readFile(path.join(dir, file), "utf8"));
    const header = Object.keys(rows[0]);
    for (const r of rows) {
      if (!r.area) continue;
      r.area = `${r.area}: ${"Κώδικας Πολιτικής Δικονομίας και ειδικοί νόμοι περί ".repeat(2)}${r.area} law`.slice(0, 120);
      if (!renamed.includes(r.area)) renamed.push(r.area);
    }
    await fs.writeFile(path.join(dir, file), toCsv(header, rows.map((r) => header.map((h) => r[h] ?? ""))));
  }
  return renamed;
}

test("issue 28, item 4: every report figure, a column wide and across the page, draws with no raw markup, no text cut off and no text over text", { timeout: 600_000 }, async (t) => {
  // A second folder: one pair of experiments (the p-value figure of a single row failed at a column's width) and legal
  // areas of ~120 characters.
  const pairOuts = path.join(tmp, "pair-outs");
  const rep = await runGbr(["reproduce", "--data", "sample", "--out", pairOuts, "--only", "bm25-greekstemmer,prf:bm25-greekstemmer", "-q"], { dataDir: path.join(tmp, "data"), cwd: REPO });
  assert.equal(rep.code, 0, rep.stderr);
  const pair = path.join(pairOuts, "sample");
  const areas = await longAreaNames(pair);
  // The paper's family as reproduce writes it, its first pair computed: rows of two ids each ("A vs B").
  const sig = JSON.parse(await fs.readFile(path.join(pair, "significance.json"), "utf8")) as { paper: { tests: Record<string, unknown>[]; computed: number } };
  sig.paper.tests = PAPER_TESTS.pairs.flatMap(([a, b], i) =>
    PAPER_TESTS.metrics.map((metric, m) => (i === 0 ? { a, b, metric, status: "computed", meanA: 0.6, meanB: 0.36 + 0.1 * m, delta: 0.24 - 0.1 * m, p: 1e-5 * 10 ** m, pHolm: 2e-4 * 10 ** m } : { a, b, metric, status: "missing", missing: [a], reason: `no run of ${a}`, p: 1, pHolm: 1 })),
  );
  sig.paper.computed = PAPER_TESTS.metrics.length;
  await fs.writeFile(path.join(pair, "significance.json"), JSON.stringify(sig));
  // REACT rounds, hand-made (no chat model here), so that its figure is measured too.
  await fs.writeFile(path.join(pair, "react-rounds.csv"), "round,keptRecall100,candidateRecall100\n" + [[1, 0.45, 0.59], [2, 0.52, 0.65], [5, 0.62, 0.73], [10, 0.67, 0.77]].map((r) => r.join(",")).join("\n") + "\n");
  assert.ok(areas.length >= 3 && areas.every((a) => a.length >= 100), JSON.stringify(areas));
  const renderer = await FigureRenderer.open(executable);
  const faults: string[] = [];
  let drawn = 0;
  try {
    for (const dir of [dataset, pair]) {
      const named = await reportFigures(dir);
      assert.ok(named.some((f) => f.name.startsWith("p-values")), `${dir}: a p-value figure`);
      if (dir === pair) assert.deepEqual(named.filter((f) => /^(p-values|react)/.test(f.name)).map((f) => f.name), ["p-values-paper", "p-values-baseline", "react-rounds"]);
      for (const { name, fig } of named) {
        for (const width of ["column", "page"] as const) {
          const paper = paperFigure(fig, { width });
          const what = `${path.basename(path.dirname(dir))}/${name} (${width})`;
          let svg: string;
          try {
            svg = (await renderer.render(paper.figure, "svg", { width: paper.width, height: paper.height })).toString("utf8");
          } catch (err) {
            faults.push(`${what}: ${(err as Error).message}`);
            continue;
          }
          const f = await svgFaults(page!, svg);
          assert.ok(f.texts > 3, `${what}: ${f.texts} texts`);
          faults.push(...describeFaults(what, f));
          drawn++;
        }
      }
    }
  } finally {
    await renderer.close();
  }
  t.diagnostic(`${drawn} figures drawn and measured`);
  assert.deepEqual(faults, []);
});

test("gbr figures writes each of the report's figures as <name>.<format> under DIR/figures", { timeout: 300_000 }, async (t) => {
  const gbr = (args: string[], env: Record<string, string> = {}) => runGbr(args, { dataDir: path.join(tmp, "data"), cwd: REPO, env });
  const names = (await reportFigures(dataset)).map((f) => f.name);
  assert.ok(names.length >= 5, `the sample's report has ${names.length} figures`);

  const r = await gbr(["figures", "--out", dataset, "--format", "svg,png,pdf"]);
  assert.equal(r.code, 0, r.stderr);
  t.diagnostic(`gbr figures: ${names.length} figures × 3 formats in ${r.seconds.toFixed(1)} s (process start included); ${r.stderr.trim()}`);
  const expected = names.flatMap((n) => ["svg", "png", "pdf"].map((f) => path.join(dataset, "figures", `${n}.${f}`)));
  assert.deepEqual(r.stdout.trim().split("\n"), expected, "one file per figure and format, in the report's order");
  assert.deepEqual((await fs.readdir(path.join(dataset, "figures"))).sort(), expected.map((f) => path.basename(f)).sort());
  for (const name of names) {
    const svg = await fs.readFile(path.join(dataset, "figures", `${name}.svg`), "utf8");
    assert.match(svg, /^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/, name);
    const sizes = [...svg.matchAll(/font-size: ?([0-9.]+)px/g)].map((m) => Number(m[1]));
    assert.ok(sizes.length > 0 && Math.min(...sizes) >= MIN_FONT_PX - 1e-9, `${name}: text of ${Math.min(...sizes)}px is under 8 pt`);
    assert.ok(pngSize(await fs.readFile(path.join(dataset, "figures", `${name}.png`))), `${name}.png is a PNG`);
    assert.equal(pdfPages(await fs.readFile(path.join(dataset, "figures", `${name}.pdf`))).pages, 1, `${name}.pdf has one page`);
  }

  // The outputs root holding this one dataset folder will do; with two, it must be named.
  const root = await gbr(["figures", "--out", outs, "--format", "svg", "--width", "column", "--no-title", "-q"]);
  assert.equal(root.code, 0, root.stderr);
  assert.equal(root.stderr, "");
  assert.deepEqual(root.stdout.trim().split("\n"), names.map((n) => path.join(dataset, "figures", `${n}.svg`)));
  assert.match(await fs.readFile(path.join(dataset, "figures", `${names[0]}.svg`), "utf8"), new RegExp(`width="${Math.round(3.3 * 96)}"`));
  await fs.cp(dataset, path.join(outs, "sample-copy"), { recursive: true });
  const two = await gbr(["figures", "--out", outs]);
  assert.equal(two.code, 2, two.stderr);
  assert.match(two.stderr, /holds 2 dataset folders: name one with --out .*sample-copy/);
  await fs.rm(path.join(outs, "sample-copy"), { recursive: true });

  const typo = await gbr(["figures", "--out", dataset, "--format", "svgz"]);
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, /unknown format 'svgz' \(did you mean 'svg'\?\)/);
  const help = await gbr(["--help"]);
  assert.match(help.stdout, /\n {2}figures +Every figure of a dataset folder's report as files/);
});

test("no browser: gbr figures exits 1 naming GBR_CHROMIUM and how to install one, writing nothing", { timeout: 120_000 }, async () => {
  const empty = path.join(tmp, "no-browser");
  await fs.cp(dataset, empty, { recursive: true, filter: (src) => !src.includes(`${path.sep}figures`) });
  const r = await runGbr(["figures", "--out", empty, "--format", "pdf"], { dataDir: path.join(tmp, "data"), cwd: REPO, env: { GBR_CHROMIUM: path.join(tmp, "no", "such", "chromium") } });
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stdout, "");
  assert.match(r.stderr, /^gbr figures: GBR_CHROMIUM is '.*no\/such\/chromium', which is not a browser executable here\n {2}point GBR_CHROMIUM at a Chromium or Chrome executable.*apt-get install chromium/);
  assert.equal(existsSync(path.join(empty, "figures")), false, "nothing written");
});

test("issue 23, item 6: a notebook figure is shown interactive, then updated to carry its PNG (in the HTML and as image/png); no browser is said once", { timeout: 180_000 }, async () => {
  // A stand-in for tslab's kernel: the writer its display functions send through while a cell runs.
  const jupyter = require("tslab/dist/jupyter") as { lastWriteDisplayData: ((b: DisplayBundle, update: boolean) => void) | null };
  const sent: { bundle: DisplayBundle; update: boolean }[] = [];
  jupyter.lastWriteDisplayData = (bundle, update) => void sent.push({ bundle, update });
  const fig = metricBarChart(parseCsvRecords(await fs.readFile(path.join(dataset, "summary.csv"), "utf8")), "nDCG@10");
  const savedDir = process.env.GBR_FIGURES_DIR;
  process.env.GBR_FIGURES_DIR = path.join(tmp, "notebook-figures");
  try {
    await showFigure(fig, { save: "ndcg10" });
    const figures = sent.filter((s) => s.bundle.transient?.display_id);
    assert.equal(figures.length, 2, "a display and its update");
    const [shown, updated] = figures;
    assert.equal(shown.update, false);
    assert.equal(updated.update, true);
    assert.equal(updated.bundle.transient?.display_id, shown.bundle.transient?.display_id);
    assert.doesNotMatch(shown.bundle.data["text/html"], /<img/);
    const png = Buffer.from(updated.bundle.data["image/png"], "base64");
    assert.deepEqual(pngSize(png), { width: NOTEBOOK_IMAGE_WIDTH, height: Number(fig.layout.height) });
    assert.ok(updated.bundle.data["text/html"].includes(`<img src="data:image/png;base64,${updated.bundle.data["image/png"]}"`), "the same PNG inside the HTML");
    assert.ok(updated.bundle.data["image/png"].length < 150_000, `${updated.bundle.data["image/png"].length} base64 characters`);
    assert.match(updated.bundle.data["text/plain"], /^\[figure: nDCG@10 by experiment/);
    // The script draws the interactive plot in place of the image, and asks for SVG downloads named after the figure.
    assert.match(updated.bundle.data["text/html"], /el\.innerHTML = ""; el\.style\.height = "\d+px"; return window\.Plotly\.newPlot/);
    assert.match(updated.bundle.data["text/html"], /"toImageButtonOptions":\{"format":"svg","filename":"ndcg10"\}/);
    assert.ok(existsSync(path.join(tmp, "notebook-figures", "ndcg10.json")));
  } finally {
    if (savedDir === undefined) delete process.env.GBR_FIGURES_DIR;
    else process.env.GBR_FIGURES_DIR = savedDir;
    await closeFigureImages();
  }

  // No browser: the figures stay interactive, and the notebook says why once.
  sent.length = 0;
  const saved = process.env.GBR_CHROMIUM;
  process.env.GBR_CHROMIUM = path.join(tmp, "no", "such", "chromium");
  try {
    await showFigure(fig);
    await showFigure(fig);
  } finally {
    if (saved === undefined) delete process.env.GBR_CHROMIUM;
    else process.env.GBR_CHROMIUM = saved;
    jupyter.lastWriteDisplayData = null;
    await closeFigureImages();
  }
  assert.equal(sent.filter((s) => s.update).length, 0, "no update without a browser");
  const notes = sent.filter((s) => /interactive only/.test(s.bundle.data["text/html"] ?? ""));
  assert.equal(notes.length, 1, "said once");
  assert.match(notes[0].bundle.data["text/html"], /GBR_CHROMIUM is .*apt-get install chromium/);
  assert.equal(sent.filter((s) => s.bundle.transient?.display_id).length, 2, "both figures shown");
});
