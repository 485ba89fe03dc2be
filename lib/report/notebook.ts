/** Notebook display helpers behind `show`; tslab and danfojs load lazily, and without a kernel they print text. */
import { listOf } from "../experiments/authors-list";
import type { ExperimentOutcome } from "../experiments/assess";
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { DataFrame } from "danfojs-node";
import { formatFixed } from "../util/format-fixed";
import { METRICS, type Metric } from "../eval/metrics";
import { formatTable } from "../util/text-table";
import { printable } from "../util/printable";
import { environmentConfig, INSTALLED, PACKAGE_ROOT } from "../paths";
import { escapeHtml, jsonForScript, plotlyBundle } from "./html-inline";
import { tslabDisplayWriter, tslabSdk } from "../util/sdk";
import { frameRows, rowsFrame, type FrameLike } from "./frames";
import { provenanceOf } from "../experiments/setup";
import type { RunInfo } from "../types";
import { columnLabel, markedName, rowMarks, STAND_IN_BANNER } from "../figures/labels";
import type { GbrError } from "../util/errors";
import { findBrowser, FigureRenderer, type FigureSpec } from "./render-figure";
export type { FigureSpec };
import { plotlyPlain } from "../figures/figure-style";

export interface TableOptions {
  /** Decimals for non-integer numbers (default 4, rounded half to even as trec_eval prints). */
  digits?: number;
  /** At most this many rows are shown, with a note of how many were left out (default 25). */
  maxRows?: number;
  caption?: string;
  /** Columns to show, in this order (default: every column, in first-seen order). */
  columns?: string[];
  /** Longer cells are cut to this many characters, the full text kept as a tooltip (default 240). */
  maxChars?: number;
  /** Every number with `digits` decimals, integers too (by default only metric columns print so). */
  fixed?: boolean;
}

export interface FigureOptions {
  /** Also write `<save>.json` (the spec) to `figuresDir()`. */
  save?: string;
}

function kernelDisplay() {
  return tslabDisplayWriter() ? tslabSdk().display : undefined;
}

function emit(html: string, fallback: string): void {
  const display = kernelDisplay();
  if (display) display.html(html);
  else console.log(fallback);
}

const DECIMAL = /^-?\d+\.\d+(e[-+]?\d+)?$/i;

function formatCell(value: unknown, digits = 4): string {
  if (value === null || value === undefined) return "";
  // NaN is how the DataFrame views hold a missing number (frames.ts): blank, as in the CSV file.
  if (typeof value === "number") return Number.isNaN(value) ? "" : Number.isInteger(value) ? String(value) : formatFixed(value, digits);
  if (typeof value === "string" && DECIMAL.test(value)) return formatFixed(Number(value), digits);
  if (Array.isArray(value)) return value.map((v) => formatCell(v, digits)).join(", ");
  if (value instanceof Map || value instanceof Set) return formatCell([...value], digits);
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** Rows or a DataFrame as an HTML table: 4 decimals half to even, numbers right-aligned, at most `maxRows`. */
export function showTable(rows: readonly object[] | FrameLike, opts: TableOptions = {}): void {
  const all = Array.isArray(rows) ? (rows as readonly Record<string, unknown>[]).slice() : frameRows(rows as FrameLike);
  const digits = opts.digits ?? 4;
  const maxRows = opts.maxRows ?? 25;
  const columns = opts.columns ?? [...new Set(all.flatMap((r) => Object.keys(r)))];
  const maxChars = opts.maxChars ?? 240;
  const shown = all.slice(0, maxRows);
  const decimal = columns.map((c) => opts.fixed === true || METRICS.some((m) => c.includes(m)));
  const asDecimal = (v: unknown) => (typeof v === "number" && Number.isFinite(v)) || (typeof v === "string" && /^-?\d+$/.test(v));
  const full = shown.map((r) => columns.map((c, j) => (decimal[j] && asDecimal(r[c]) ? formatFixed(Number(r[c]), digits) : formatCell(r[c], digits))));
  const cut = (t: string) => (t.length > maxChars ? `${t.slice(0, maxChars - 1)}…` : t);
  const isNumber = (v: unknown) => typeof v === "number" || (typeof v === "string" && (DECIMAL.test(v) || /^-?\d+$/.test(v)));
  const numeric = columns.map((c) => shown.some((r) => isNumber(r[c])) && shown.every((r) => isNumber(r[c]) || r[c] === null || r[c] === undefined || r[c] === ""));
  const more = all.length - shown.length;
  const headers = columns.map(columnLabel);
  const note = more > 0 ? `… ${more} more row${more === 1 ? "" : "s"} (${all.length} in all)` : "";

  const align = (i: number) => (numeric[i] ? ' style="text-align:right"' : ' style="text-align:left;white-space:pre-wrap"');
  const td = (t: string, i: number) => `<td${align(i)}${t.length > maxChars ? ` title="${escapeHtml(t)}"` : ""}>${escapeHtml(cut(t))}</td>`;
  const html =
    `<table class="gbr-table">` +
    (opts.caption ? `<caption style="text-align:left;font-weight:bold">${escapeHtml(opts.caption)}</caption>` : "") +
    `<thead><tr>${headers.map((c, i) => `<th${align(i)}>${escapeHtml(c)}</th>`).join("")}</tr></thead>` +
    `<tbody>${full.map((r) => `<tr>${r.map(td).join("")}</tr>`).join("")}</tbody>` +
    `</table>` +
    (note ? `<p style="font-size:smaller;color:#666">${escapeHtml(note)}</p>` : "");
  const text = (opts.caption ? `${opts.caption}\n` : "") + formatTable(headers, full.map((r) => r.map(cut))) + (note ? `${note}\n` : "");
  emit(html, text);
}

/** Named statistics side by side: a row per statistic (by its label), a column per source. */
function showStatistics(sources: Readonly<Record<string, object>>, opts: TableOptions = {}): void {
  const keys = [...new Set(Object.values(sources).flatMap((s) => Object.keys(s)))];
  const rows = keys.map((k) => ({ statistic: columnLabel(k), ...Object.fromEntries(Object.entries(sources).map(([name, s]) => [name, (s as Record<string, unknown>)[k]])) }));
  showTable(rows, { maxRows: Math.max(25, keys.length), ...opts });
}

let plotlyLoaded = false;

/** Inlines plotly.js once per notebook; `window.define` is hidden meanwhile, or a page's RequireJS would capture it. */
function loadPlotly(): void {
  const display = kernelDisplay();
  if (plotlyLoaded || !display) return;
  const bundle = plotlyBundle();
  display.html(
    `<script>window.__gbrDefine = window.define; window.define = undefined;</script>\n` +
      `<script>${bundle.source}</script>\n` +
      `<script>window.define = window.__gbrDefine; delete window.__gbrDefine;</script>\n` +
      `<div style="font-size:smaller;color:#666">plotly.js ${bundle.version} inlined (works offline)</div>`,
  );
  plotlyLoaded = true;
}

/** The figures folder: `GBR_FIGURES_DIR`, else `<package>/outputs/figures` (`outputs/figures` of the cwd when installed, as `gbr`'s outputs). */
export function figuresDir(): string {
  return environmentConfig().figuresDir ?? path.join(INSTALLED ? process.cwd() : PACKAGE_ROOT, "outputs", "figures");
}

const titleOf = (spec: FigureSpec) => (spec.layout?.title as { text?: string } | undefined)?.text;

/** Width of a figure's static image in a notebook (CSS px): about a notebook's output area, so it is not scaled up. */
export const NOTEBOOK_IMAGE_WIDTH = 900;

/** A notebook figure's HTML: a div the script draws into, first holding the PNG for where scripts do not run. */
export function figureOutputHtml(spec: FigureSpec, opts: { id: string; name: string; height: number; png?: { base64: string; width: number; height: number } }): string {
  const { id, height, png } = opts;
  const config = { responsive: true, displaylogo: false, toImageButtonOptions: { format: "svg", filename: opts.name }, ...(spec.config ?? {}) };
  const alt = `Figure: ${plotlyPlain(titleOf(spec) ?? opts.name)}`;
  const body = png
    ? `<div class="gbr-figure" id="${id}" style="width:100%"><img src="data:image/png;base64,${png.base64}" alt="${escapeHtml(alt)}" width="${png.width}" height="${png.height}" style="max-width:100%;height:auto"></div>\n`
    : `<div class="gbr-figure" id="${id}" style="width:100%;height:${height}px"></div>\n`;
  return (
    body +
    `<script>(function () {\n` +
    `  var spec = ${jsonForScript(spec)};\n` +
    `  var config = ${jsonForScript(config)};\n` +
    `  function draw(tries) {\n` +
    `    var el = document.getElementById(${JSON.stringify(id)});\n` +
    // The image gives way to the plot only once plotly can draw it: without plotly, the image stays.
    `    if (el && window.Plotly) { el.innerHTML = ""; el.style.height = ${JSON.stringify(`${height}px`)}; return window.Plotly.newPlot(el, spec.data, spec.layout || {}, config); }\n` +
    `    if (tries > 0) setTimeout(function () { draw(tries - 1); }, 100);\n` +
    `  }\n` +
    `  draw(100);\n` +
    `})();</script>`
  );
}

/** The browser that draws notebook figures' static images: one per kernel, started on the first figure. */
let imageRenderer: Promise<FigureRenderer | undefined> | undefined;

/** The renderer, or undefined (said once, in the notebook) when there is no browser or it does not start. */
function notebookRenderer(say: (html: string) => void): Promise<FigureRenderer | undefined> {
  imageRenderer ??= (async () => {
    try {
      return await FigureRenderer.open(findBrowser(environmentConfig().browser));
    } catch (err) {
      const e = err as GbrError;
      say(
        `<div style="font-size:smaller;color:#92400e">Figures here are interactive only, without a static image for where scripts do not run (GitHub, nbviewer): ` +
          `${escapeHtml(e.message)}${e.hint ? `. ${escapeHtml(e.hint)}` : ""}.</div>`,
      );
      return undefined;
    }
  })();
  return imageRenderer;
}

/** Closes the browser that draws notebook figures' static images (a kernel's ends with it; a script may call this). */
export async function closeFigureImages(): Promise<void> {
  const renderer = await imageRenderer;
  imageRenderer = undefined;
  await renderer?.close();
}

/** Draws a figure, then updates it with its PNG; await it, as a headless run keeps only what arrives in its cell. */
export async function showFigure(spec: FigureSpec, opts: FigureOptions = {}): Promise<void> {
  let note = "";
  if (opts.save) {
    if (!/^[\w.-]+$/.test(opts.save)) throw new Error(`figure name '${opts.save}' must be a plain file name (letters, digits, _ . -)`);
    const dir = figuresDir();
    mkdirSync(dir, { recursive: true });
    const json = path.join(dir, `${opts.save}.json`);
    writeFileSync(json, JSON.stringify(spec, null, 1) + "\n");
    note = `figure saved: ${json}`;
  }
  const text = `[figure: ${titleOf(spec) ?? "untitled"}; ${spec.data.length} trace(s)]` + (note ? `\n${note}` : "");
  // This cell's writer, kept: the image's update then goes to this cell even if it arrives late.
  const write = tslabDisplayWriter();
  if (!write) {
    console.log(text);
    return;
  }
  loadPlotly();
  const id = `gbr-fig-${randomBytes(6).toString("hex")}`;
  const name = opts.save ?? "figure";
  const height = typeof spec.layout?.height === "number" ? spec.layout.height : 420;
  const noteHtml = note ? `\n<div style="font-size:smaller;color:#666">${escapeHtml(note)}</div>` : "";
  const display = { display_id: randomBytes(8).toString("hex") };
  write({ data: { "text/html": figureOutputHtml(spec, { id, name, height }) + noteHtml, "text/plain": text }, metadata: {}, transient: display }, false);

  const renderer = await notebookRenderer((html) => write({ data: { "text/html": html }, metadata: {} }, false));
  if (!renderer) return;
  const png = await renderer.render(spec, "png", { width: NOTEBOOK_IMAGE_WIDTH, height }).catch((err: Error) => {
    write({ data: { "text/html": `<div style="font-size:smaller;color:#92400e">No static image of this figure: ${escapeHtml(err.message)}</div>` }, metadata: {} }, false);
  });
  if (!png) return;
  const image = { base64: png.toString("base64"), width: NOTEBOOK_IMAGE_WIDTH, height };
  write(
    {
      data: { "text/html": figureOutputHtml(spec, { id, name, height, png: image }) + noteHtml, "image/png": image.base64, "text/plain": text },
      metadata: { "image/png": { width: image.width, height: image.height } },
      transient: display,
    },
    true,
  );
}

/**
 * A DataFrame from rows, typed as every view of ./frames.ts (danfojs loads on first use, about a second).
 * @example
 * const df = toDataFrame([{ area: "civil", recall: 0.25 }, { area: "criminal", recall: 0.18 }]);
 * showTable(df.sortValues("recall", { ascending: false }).head(5));
 */
export function toDataFrame(rows: readonly object[]): DataFrame {
  return rowsFrame(rows);
}

/** Shows Markdown (plain text without a kernel); as a tag, show.markdown`**${id}**`, each value is escaped. */
export function showMarkdown(markdown: string | TemplateStringsArray, ...values: unknown[]): void {
  const join = (esc: (v: unknown) => string) =>
    typeof markdown === "string" ? markdown : markdown.reduce((out, part, i) => out + part + (i < values.length ? esc(values[i]) : ""), "");
  const display = kernelDisplay();
  // Plain text outside a kernel renders no Markdown, so it needs no Markdown escaping; it is on a terminal, though.
  if (display) display.markdown(join(escapeMarkdown));
  else console.log(join((v) => printable(typeof v === "number" ? formatCell(v) : String(v ?? ""))));
}

/** A value as literal Markdown: HTML escaped, punctuation backslashed, `:` and `@` too (no autolinked id). */
export function escapeMarkdown(value: unknown): string {
  const s = typeof value === "number" ? formatCell(value) : String(value ?? "");
  return escapeHtml(s).replace(/[\\`*_{}[\]()#+\-.!|~:@]/g, "\\$&");
}

/** One line long jobs overwrite: `log` for `reproduce`/`loadBenchmark`, `onProgress` for `createRetriever`. */
export interface ProgressDisplay {
  log: (message: string) => void;
  onProgress: (label: string, done: number, total: number) => void;
}

export function progressDisplay(): ProgressDisplay {
  if (!kernelDisplay()) {
    return {
      log: (m) => console.error(printable(m, { newlines: true })),
      onProgress: (label, done, total) => {
        if (done === total) console.error(printable(`${label}: ${done}/${total}`));
      },
    };
  }
  const line = tslabSdk().newDisplay();
  const show = (text: string) => line.html(`<pre style="margin:0;font-size:smaller;color:#555">${escapeHtml(text)}</pre>`);
  return { log: show, onProgress: (label, done, total) => show(`${label}: ${done}/${total}`) };
}

type OutcomeLike = Pick<ExperimentOutcome, "id" | "reason" | "seconds" | "standIn" | "beyond"> & {
  status: string;
  mean?: Partial<Record<Metric, number>>;
};

export function showOutcomes(outcomes: readonly OutcomeLike[], opts: TableOptions = {}): void {
  const standIns = outcomes.filter((o) => o.standIn).map((o) => o.id);
  if (standIns.length) showStandInBanner(standIns);
  const marks = rowMarks(outcomes.map((o) => ({ experiment: o.id, standIn: o.standIn ? "stand-in" : "", list: listOf(o.beyond) })));
  showTable(
    outcomes.map((o) => ({
      experiment: markedName(o.id, marks),
      status: o.status,
      ...Object.fromEntries(METRICS.map((m) => [m, o.mean?.[m]])),
      seconds: o.seconds,
      reason: o.reason ?? "",
    })),
    { maxRows: 80, maxChars: 160, ...opts },
  );
}

function showStandInBanner(ids: readonly string[]): void {
  const text = `${STAND_IN_BANNER} (${ids.join(", ")}).`;
  emit(`<div style="background:#fde8e8;border:2px solid #b91c1c;color:#7f1d1d;padding:8px 12px;font-weight:bold">${escapeHtml(text)}</div>`, `!! ${text}`);
}

function showStandInRuns(runs: Readonly<Record<string, { info?: RunInfo } | undefined>>): void {
  const ids = Object.entries(runs).filter(([, r]) => provenanceOf(r?.info).some((p) => p.standIn)).map(([id]) => id);
  if (ids.length) showStandInBanner(ids);
}

/**
 * What a notebook shows, in one place; without a kernel each prints text instead.
 * @example
 * const progress = show.progress();
 * const result = await reproduce(loaded, { outRoot, only: ["bm25-greekstemmer", "lsi"], log: progress.log });
 * show.outcomes(result.outcomes);
 * show.table([{ run: "bm25-greekstemmer", "Recall@100": 0.41234 }], { caption: "One row" });
 * show.statistics({ "this data": datasetStats(bench), "paper (283)": { queries: 283, articles: 6308 } });
 */
export const show = {
  table: showTable,
  statistics: showStatistics,
  figure: showFigure,
  markdown: showMarkdown,
  outcomes: showOutcomes,
  standInRuns: showStandInRuns,
  progress: progressDisplay,
} as const;
