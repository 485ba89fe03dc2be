/**
 * The HTML report: one self-contained page per dataset folder that `gbr reproduce` wrote.
 *
 * Everything the page needs is inside it: plotly.js-dist's bundle inlined in a <script>, every
 * table as HTML, and every figure as a JSON block (`<script type="application/json">`) that a
 * small inline script hands to `Plotly.newPlot`. The page loads nothing from anywhere (no
 * CDN, no fonts, no images), so it opens offline and can be mailed or archived as one file.
 *
 * Escaping: text goes into HTML through `escapeHtml`; data goes into JSON blocks through
 * `jsonForScript`, which writes `<`, `>`, `&`, U+2028 and U+2029 as \u escapes, so neither a
 * Greek apostrophe (’), quotes nor `</script>` in an experiment name or reason can end a block
 * or break a string early; the inlined bundle has `</script` and `<!--` defused the same way.
 */
import { promises as fs, readFileSync } from "node:fs";
import path from "node:path";
import { formatFixed } from "./format";
import { METRICS, type Metric } from "../eval/metrics";
import { PAPER_MISSED_GOLD } from "../eval/react-missed";
import { BASELINE_RUN, missingPairs, type ComputedPaperTest, type MissingPaperTest, type SignificanceReport } from "../eval/significance";
import { readCsvIfExists, toNumber, type CsvRecord } from "./csv";
import {
  areaBreakdownChart,
  metricBarChart,
  plotlyText,
  pValueChart,
  qualityCostScatter,
  reactRoundsChart,
  sweepHeatmap,
  type Figure,
  type SignificanceTest,
  type SweepJson,
} from "./figures";

// ---------------------------------------------------------------------------------------------
// Escaping

/**
 * Text for HTML element content or a quoted attribute value.
 *
 * @example
 * escapeHtml(`Άρθρο 5 «ΑΚ» & "x" <b>’`); // "Άρθρο 5 «ΑΚ» &amp; &quot;x&quot; &lt;b&gt;’"
 */
export function escapeHtml(value: unknown): string {
  return String(value ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/**
 * JSON that is safe inside an HTML <script> element: `<`, `>` and `&` (and the JavaScript line
 * separators U+2028/U+2029) are written as \u escapes, which JSON.parse reads back unchanged.
 *
 * @example
 * jsonForScript({ name: "a</script>’" }); // '{"name":"a\\u003c/script\\u003e’"}'
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/**
 * JavaScript source made safe to inline in a <script> element: every `</script` (any case)
 * becomes `<\/script` and every `<!--` becomes `<\!--`, which mean the same inside the string
 * literals, regular expressions and comments where they can occur, but can no longer close
 * the element or switch the HTML parser into its escaped-script states.
 *
 * @example
 * inlineScriptSource('var s = "</script>";'); // 'var s = "<\\/script>";'
 */
export function inlineScriptSource(source: string): string {
  return source.replace(/<\/(script)/gi, "<\\/$1").replace(/<!--/g, "<\\!--");
}

// ---------------------------------------------------------------------------------------------
// Plotly bundle

let plotlyCache: { source: string; version: string } | undefined;

/**
 * The pinned plotly.js-dist bundle (read once per process) and its version.
 *
 * @example
 * plotlyBundle().version; // "3.7.0"
 */
export function plotlyBundle(): { source: string; version: string } {
  if (!plotlyCache) {
    const file = require.resolve("plotly.js-dist/plotly.js");
    const pkg = JSON.parse(readFileSync(path.join(path.dirname(file), "package.json"), "utf8")) as { version: string };
    plotlyCache = { source: inlineScriptSource(readFileSync(file, "utf8")), version: pkg.version };
  }
  return plotlyCache;
}

// ---------------------------------------------------------------------------------------------
// Inputs

/**
 * significance.json as the report reads it: what `gbr reproduce` writes (`SignificanceReport`:
 * the paper's 20 tests and, apart, the exploratory family against BM25), or the older flat
 * shape `{ tests }` that `gbr compare --json` prints (earlier reproduce runs wrote it too, with
 * `scope`, `swaps` and `seed` beside it).
 *
 * @example
 * const sig: SignificanceFile = JSON.parse(await fs.readFile("outputs/sample/significance.json", "utf8"));
 * isSignificanceReport(sig) ? sig.paper.computed : sig.tests.length;
 */
export type SignificanceFile = SignificanceReport | { tests: SignificanceTest[]; scope?: string; swaps?: number; seed?: number };

/**
 * Whether a significance.json has reproduce's two-family shape (rather than `{ tests }`).
 *
 * @example
 * isSignificanceReport({ tests: [] }); // false
 */
export function isSignificanceReport(value: unknown): value is SignificanceReport {
  const paper = (value as { paper?: unknown } | null)?.paper;
  return typeof paper === "object" && paper !== null && Array.isArray((paper as { tests?: unknown }).tests);
}

/** Everything the report reads from one dataset folder (optional parts undefined when absent). */
export interface ReportInputs {
  dir: string;
  summary: CsvRecord[];
  perQuery?: CsvRecord[];
  table1?: CsvRecord[];
  table6?: CsvRecord[];
  reproduction?: CsvRecord[];
  metadata?: Record<string, unknown>;
  cost?: CsvRecord[];
  reactRounds?: CsvRecord[];
  /** react-missed.csv: the gold articles REACT retrieved but never kept (MISSED_GOLD_COLUMNS). */
  reactMissed?: CsvRecord[];
  significance?: SignificanceFile;
  sweep?: SweepJson;
}

async function readJsonIfExists<T>(file: string): Promise<T | undefined> {
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new Error(`${file}: not valid JSON (${(err as Error).message})`);
  }
}

/**
 * Reads a dataset folder written by `gbr reproduce` (and `gbr compare`, the sweep): summary.csv
 * is required; every other file is optional and left undefined when missing.
 *
 * @example
 * const inputs = await readReportInputs("outputs/sample");
 * inputs.summary.length; // one row per experiment
 */
export async function readReportInputs(dir: string): Promise<ReportInputs> {
  const f = (name: string) => path.join(dir, name);
  const summary = await readCsvIfExists(f("summary.csv"));
  if (!summary) throw new Error(`${f("summary.csv")} not found: run 'gbr reproduce --out ${path.dirname(dir)}' first`);
  const [perQuery, table1, table6, reproduction, cost, reactRounds, reactMissed] = await Promise.all(
    ["per-query.csv", "table1.csv", "table6.csv", "reproduction.csv", "cost.csv", "react-rounds.csv", "react-missed.csv"].map((n) => readCsvIfExists(f(n))),
  );
  const metadata = await readJsonIfExists<Record<string, unknown>>(f("metadata.json"));
  const significance = await readJsonIfExists<SignificanceFile>(f("significance.json"));
  const sweep = await readJsonIfExists<SweepJson>(f("sweep.json"));
  if (significance) checkSignificance(significance, f("significance.json"));
  if (sweep && !(Array.isArray(sweep.k1s) && Array.isArray(sweep.bs) && Array.isArray(sweep.z))) {
    throw new Error(`${f("sweep.json")}: expected {k1s, bs, z, …}`);
  }
  return { dir, summary, perQuery, table1, table6, reproduction, metadata, cost, reactRounds, reactMissed, significance, sweep };
}

function checkSignificance(sig: SignificanceFile, file: string): void {
  const expected = `expected reproduce's {"paper": {"tests": [...]}, "baseline": …} or {"tests": [...]}`;
  if (isSignificanceReport(sig)) {
    const base = (sig as { baseline?: unknown }).baseline;
    if (base !== undefined && base !== null && !Array.isArray((base as { tests?: unknown }).tests)) throw new Error(`${file}: "baseline" must be null or have "tests": [...] (${expected})`);
  } else if (!Array.isArray((sig as { tests?: unknown }).tests)) throw new Error(`${file}: ${expected}`);
}

// ---------------------------------------------------------------------------------------------
// Formatting

/** Metric-like numbers: fixed decimals (4 by default), ties half to even; blanks as "–". */
function num(value: unknown, digits = 4): string {
  const n = toNumber(value);
  return n === undefined ? "–" : formatFixed(n, digits);
}

/** Counts and statistics: integers as integers, anything else like `num`. */
function numAuto(value: unknown, digits = 4): string {
  const n = toNumber(value);
  return n !== undefined && Number.isInteger(n) ? String(n) : num(value, digits);
}

function pValue(value: unknown): string {
  const n = toNumber(value);
  if (n === undefined) return "–";
  return n < 0.0001 ? "&lt; 0.0001" : formatFixed(n, 4);
}

interface Cell {
  html: string;
  cls?: string;
  title?: string;
}
type CellLike = Cell | string;

const text = (value: unknown, cls?: string): Cell => ({ html: escapeHtml(value), cls });
const number = (value: unknown, digits = 4): Cell => ({ html: num(value, digits), cls: "num" });
const count = (value: unknown, digits = 4): Cell => ({ html: numAuto(value, digits), cls: "num" });

function table(header: string[], rows: CellLike[][], opts: { caption?: string; numericHeader?: boolean[]; cls?: string } = {}): string {
  const head = header.map((h, i) => `<th${opts.numericHeader?.[i] ? ' class="num"' : ""}>${escapeHtml(h)}</th>`).join("");
  const body = rows
    .map((r) => {
      const cells = r.map((c) => {
        const cell = typeof c === "string" ? text(c) : c;
        return `<td${cell.cls ? ` class="${cell.cls}"` : ""}${cell.title ? ` title="${escapeHtml(cell.title)}"` : ""}>${cell.html}</td>`;
      });
      return `<tr>${cells.join("")}</tr>`;
    })
    .join("\n");
  const caption = opts.caption ? `<caption>${escapeHtml(opts.caption)}</caption>` : "";
  return `<div class="table-wrap"><table${opts.cls ? ` class="${opts.cls}"` : ""}>${caption}<thead><tr>${head}</tr></thead>\n<tbody>\n${body}\n</tbody></table></div>`;
}

class FigureSet {
  private specs: { id: string; fig: Figure }[] = [];
  add(fig: Figure, caption?: string): string {
    const id = `fig-${this.specs.length + 1}`;
    this.specs.push({ id, fig });
    const cap = caption ? `<p class="fig-caption">${escapeHtml(caption)}</p>` : "";
    return (
      `<figure class="plot"><div class="figure" id="${id}" data-spec="${id}-spec" style="height:${Number(fig.layout.height) || 450}px"></div>${cap}</figure>\n` +
      `<script type="application/json" id="${id}-spec">${jsonForScript(fig)}</script>`
    );
  }
  get count(): number {
    return this.specs.length;
  }
}

const note = (html: string, cls = "note") => `<p class="${cls}">${html}</p>`;
const code = (s: string) => `<code>${escapeHtml(s)}</code>`;

function section(id: string, title: string, body: string): { id: string; title: string; html: string } {
  return { id, title, html: `<section id="${id}">\n<h2>${escapeHtml(title)}</h2>\n${body}\n</section>` };
}

// ---------------------------------------------------------------------------------------------
// Sections

function metadataSection(inp: ReportInputs, dataset: string, plotlyVersion: string) {
  const m = inp.metadata;
  const rows: CellLike[][] = [];
  const counts = new Map<string, number>();
  for (const r of inp.summary) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
  const statusText = [...counts].map(([s, n]) => `${n} ${s}`).join(", ");
  let warning = "";
  if (m) {
    const add = (label: string, value: unknown) => {
      if (value === undefined || value === null || value === "") return;
      rows.push([label, typeof value === "object" ? describeObject(value) : String(value)]);
    };
    add("dataset", m.dataset);
    add("origin", m.origin);
    add("source", m.source);
    add("revision", m.revision);
    add("articles", m.articles);
    add("queries", m.queries);
    add("LLM", m.llm);
    add("created", m.createdAt);
    add("Node.js", m.node);
    if (m.fallback) {
      add("fallback", m.fallback);
      warning = note(
        `The benchmark could not be loaded from the Hugging Face Hub; these numbers are on the bundled demo set, not the benchmark (${escapeHtml(describeObject(m.fallback))}).`,
        "warning",
      );
    }
  } else {
    rows.push(["dataset", dataset]);
  }
  rows.push(["experiments", statusText || "none"]);
  rows.push(["report built from", inp.dir]);
  rows.push(["plotly.js", `${plotlyVersion} (inlined)`]);
  const missing = m ? "" : note(`metadata.json not found in ${code(inp.dir)}; only the folder name is known.`);
  return section("metadata", "Run metadata", warning + missing + table(["field", "value"], rows, { cls: "kv" }));
}

function describeObject(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value !== "object") return String(value);
  if (Array.isArray(value)) return value.map(describeObject).join(", ");
  return Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== null && v !== undefined && v !== "")
    .map(([k, v]) => `${k}: ${typeof v === "object" ? `{${describeObject(v)}}` : String(v)}`)
    .join("; ");
}

const TABLE1_LABELS: Record<string, [string, "int" | "share" | "num" | "median"]> = {
  queries: ["queries", "int"],
  articles: ["articles", "int"],
  sources: ["sources", "int"],
  judgments: ["relevance judgments", "int"],
  distinctRelevant: ["distinct relevant articles", "int"],
  relevantShareOfPool: ["share of the pool that is relevant", "share"],
  goldPerQuery: ["gold articles per query", "num"],
  multiGoldShare: ["queries with more than one gold article", "share"],
  medianArticleWords: ["median article length (words)", "median"],
  medianQueryWords: ["median query length (words)", "median"],
};

function datasetSection(inp: ReportInputs) {
  let body = "";
  if (inp.table1?.length) {
    const r = inp.table1[0];
    const rows = Object.keys(r).map((k): CellLike[] => {
      const [label, kind] = TABLE1_LABELS[k] ?? [k, "num"];
      const v = toNumber(r[k]);
      const shown = v === undefined ? text(r[k]) : kind === "share" ? { html: `${num(v)} (${formatFixed(100 * v, 2)}%)`, cls: "num" } : count(v, kind === "median" ? 1 : 4);
      return [label, shown];
    });
    body += `<h3>Table 1 — the collection</h3>\n` + table(["statistic", "value"], rows, { numericHeader: [false, true], cls: "kv" });
  } else body += note(`table1.csv not found in ${code(inp.dir)}.`);
  if (inp.table6?.length) {
    const cols = Object.keys(inp.table6[0]);
    const labels: Record<string, string> = { area: "area", queries: "queries", goldArticles: "gold articles", relevantPerQuery: "relevant per query", medianGoldWords: "median gold length (words)" };
    body +=
      `<h3>Table 6 — per legal area</h3>\n` +
      table(
        cols.map((c) => labels[c] ?? c),
        inp.table6.map((r) => cols.map((c) => (c === "area" ? text(r[c]) : count(r[c], /^median/i.test(c) ? 1 : 4)))),
        { numericHeader: cols.map((c) => c !== "area") },
      );
  } else body += note(`table6.csv not found in ${code(inp.dir)}.`);
  return section("dataset", "Dataset statistics", body);
}

function metricCell(r: CsvRecord, m: Metric, best: number | undefined): Cell {
  const v = toNumber(r[m]);
  if (v === undefined) return { html: "–", cls: "num" };
  const sd = (toNumber(r.samples) ?? 1) > 1 ? toNumber(r[`sd ${m}`]) : undefined;
  const shown = sd === undefined ? num(v) : `${num(v)} <span class="sd">± ${num(sd)}</span>`;
  return { html: v === best ? `<strong>${shown}</strong>` : shown, cls: "num" };
}

function resultsSection(inp: ReportInputs, figs: FigureSet) {
  const ok = inp.summary.filter((r) => r.status === "ok");
  let body = "";
  if (ok.length) {
    const best = new Map(METRICS.map((m) => [m, Math.max(...ok.map((r) => toNumber(r[m]) ?? -Infinity))] as const));
    const anySamples = ok.some((r) => (toNumber(r.samples) ?? 1) > 1);
    body +=
      note(`Mean over the queries; the best value of each metric in bold${anySamples ? "; ± is the standard deviation over repeated samples" : ""}. Seconds are wall time for the whole experiment.`) +
      table(
        ["experiment", "section", ...METRICS, "samples", "seconds"],
        ok.map((r) => [text(r.experiment, "name"), text(r.section), ...METRICS.map((m) => metricCell(r, m, best.get(m))), count(r.samples), number(r.seconds, 2)]),
        { numericHeader: [false, false, ...METRICS.map(() => true), true, true] },
      );
    // What produced each row, as recorded while it ran (summary.csv's setup; absent before v0.5).
    const setups = ok.filter((r) => r.setup);
    if (setups.length) {
      body += `<details><summary>What produced each row (${setups.length}): parameters as sent, models and endpoints, prompts, parser</summary>\n${table(
        ["experiment", "setup"],
        setups.map((r) => [text(r.experiment, "name"), text(r.setup, "setup")]),
      )}\n</details>`;
    }
    body += figs.add(metricBarChart(inp.summary, "Recall@100"));
    body += figs.add(metricBarChart(inp.summary, "nDCG@10"));
  } else {
    body += note("No experiment ran successfully.");
  }
  const notRun = inp.summary.filter((r) => r.status !== "ok");
  if (notRun.length) {
    const groups = new Map<string, { status: string; reason: string; ids: string[] }>();
    for (const r of notRun) {
      const key = `${r.status}\u0000${r.reason ?? ""}`;
      if (!groups.has(key)) groups.set(key, { status: r.status, reason: r.reason ?? "", ids: [] });
      groups.get(key)!.ids.push(r.experiment);
    }
    body +=
      `<h3>Not run (${notRun.length})</h3>\n` +
      table(
        ["status", "experiments", "reason"],
        [...groups.values()].map((g) => [text(g.status, `status-${safeClass(g.status)}`), { html: g.ids.map((id) => `<span class="id">${escapeHtml(id)}</span>`).join(", "), cls: "ids" }, text(g.reason, "reason")]),
      );
  }
  return section("results", "Results", body);
}

function safeClass(s: string): string {
  return s.replace(/[^a-z0-9-]/gi, "-").toLowerCase();
}

function diffCell(value: unknown): Cell {
  const d = toNumber(value);
  if (d === undefined) return { html: "–", cls: "num" };
  const cls = Math.abs(d) <= 0.02 ? "close" : Math.abs(d) <= 0.05 ? "near" : "far";
  return { html: `${d > 0 ? "+" : ""}${num(d)}`, cls: `num diff ${cls} ${d >= 0 ? "up" : "down"}` };
}

function reproductionSection(inp: ReportInputs) {
  const rows = inp.reproduction;
  if (!rows?.length) return section("reproduction", "Reproduction: paper vs ours", note(`reproduction.csv not found in ${code(inp.dir)}.`));
  const datasets = [...new Set(rows.map((r) => r.dataset).filter(Boolean))];
  let body = note(
    `Ours ran on: ${datasets.map(code).join(", ") || "–"}. ` +
      `Difference (ours − paper): <span class="diff close">|Δ| ≤ 0.02</span> <span class="diff near">|Δ| ≤ 0.05</span> <span class="diff far">|Δ| &gt; 0.05</span>. ` +
      `Scope <em>paper-283</em> is the paper's 283 queries (the 2024 exams are not public); <em>public-257</em> is the public release as in the authors' quickstart.`,
  );
  body += table(
    ["experiment", "metric", "scope", "paper", "ours", "diff", "status", "setup"],
    rows.map((r) => [
      text(r.experiment, "name"),
      text(r.metric),
      text(r.scope),
      number(r.paper, 2),
      number(r.ours),
      diffCell(r.diff),
      r.status === "ok" || !r.reason
        ? text(r.status, `status-${safeClass(r.status)}`)
        : { html: `<details><summary>${escapeHtml(r.status)}</summary><span class="reason">${escapeHtml(r.reason)}</span></details>`, cls: `status-${safeClass(r.status)}` },
      text(r.setup),
    ]),
    { numericHeader: [false, false, false, true, true, true, false, false] },
  );
  return section("reproduction", "Reproduction: paper vs ours", body);
}

/** The experiments shown as bars per area: the paper's headline methods that ran, then the best others, at most 8. */
function areaExperiments(inp: ReportInputs, metric: Metric): string[] {
  const ok = inp.summary.filter((r) => r.status === "ok" && toNumber(r[metric]) !== undefined);
  if (ok.length <= 8) return ok.map((r) => r.experiment);
  const okIds = new Set(ok.map((r) => r.experiment));
  const chosen = [...new Set((inp.reproduction ?? []).filter((r) => r.status === "ok" && okIds.has(r.experiment)).map((r) => r.experiment))].slice(0, 8);
  for (const r of [...ok].sort((a, b) => toNumber(b[metric])! - toNumber(a[metric])!)) {
    if (chosen.length >= 8) break;
    if (!chosen.includes(r.experiment)) chosen.push(r.experiment);
  }
  return ok.map((r) => r.experiment).filter((id) => chosen.includes(id));
}

function areaSection(inp: ReportInputs, figs: FigureSet) {
  const rows = inp.perQuery;
  if (!rows?.length) return section("areas", "Per-area breakdown", note(`per-query.csv not found (or empty) in ${code(inp.dir)}.`));
  const metric: Metric = "Recall@100";
  const areaOf = (r: CsvRecord) => (r.area ?? "").trim() || "(no area)";
  const areas = [...new Set(rows.map(areaOf))].sort((a, b) => a.localeCompare(b));
  const experiments = [...new Set(rows.map((r) => r.experiment))];
  const acc = new Map<string, { s: number; n: number }>();
  for (const r of rows) {
    const v = toNumber(r[metric]);
    if (v === undefined) continue;
    const k = `${r.experiment}\u0000${areaOf(r)}`;
    const a = acc.get(k) ?? { s: 0, n: 0 };
    a.s += v;
    a.n++;
    acc.set(k, a);
  }
  const shown = areaExperiments(inp, metric);
  let body = figs.add(
    areaBreakdownChart(rows, shown, metric),
    shown.length < experiments.length ? `Bars for ${shown.length} of ${experiments.length} experiments (the paper's headline methods that ran, then the best others); the table has all.` : undefined,
  );
  body += table(
    ["experiment", ...areas],
    experiments.map((e) => [
      text(e, "name"),
      ...areas.map((a) => {
        const x = acc.get(`${e}\u0000${a}`);
        return number(x && x.n ? x.s / x.n : undefined);
      }),
    ]),
    { caption: `Mean ${metric} per legal area`, numericHeader: [false, ...areas.map(() => true)] },
  );
  return section("areas", "Per-area breakdown", body);
}

/** One row of a test table; `pHolm` in bold when significant at 0.05 after Holm. */
function testRow(t: { a: string; b: string; metric: string; meanA?: unknown; meanB?: unknown; delta?: unknown; p: unknown; pHolm: unknown }): CellLike[] {
  const sigHolm = Number(t.pHolm) < 0.05;
  return [
    text(t.a, "name"),
    text(t.b, "name"),
    text(t.metric),
    number(t.meanA),
    number(t.meanB),
    diffCell(t.delta),
    { html: pValue(t.p), cls: "num" },
    { html: sigHolm ? `<strong>${pValue(t.pHolm)}</strong>` : pValue(t.pHolm), cls: "num" },
  ];
}

function testTable(tests: readonly Parameters<typeof testRow>[0][]): string {
  return table(["A", "B", "metric", "mean A", "mean B", "Δ (A − B)", "p", "p (Holm)"], tests.map(testRow), { numericHeader: [false, false, false, true, true, true, true, true] });
}

function significanceSection(inp: ReportInputs, figs: FigureSet) {
  const sig = inp.significance;
  if (!sig) {
    return section(
      "significance",
      "Significance",
      note(`significance.json not found in ${code(inp.dir)}: run ${code("gbr compare --json …")} and save its output there to add the paired randomization tests.`),
    );
  }
  if (isSignificanceReport(sig)) return section("significance", "Significance", twoFamilies(sig, figs));
  if (!sig.tests.length) return section("significance", "Significance", note("significance.json lists no tests."));
  const settings = [typeof sig.scope === "string" ? `scope: ${escapeHtml(sig.scope)}` : "", flipsAndSeed(sig.swaps, sig.seed)].filter(Boolean).join("; ");
  let body = note(
    `Two-sided paired randomization tests on per-query differences${settings ? ` (${settings})` : ""}; p-values before and after Holm correction over all the tests listed. Bold: significant at 0.05 after Holm.`,
  );
  body += testTable(sig.tests);
  body += figs.add(pValueChart(sig.tests));
  return section("significance", "Significance", body);
}

function flipsAndSeed(swaps: unknown, seed: unknown): string {
  const n = toNumber(swaps);
  const s = toNumber(seed);
  return [n !== undefined ? `${n.toLocaleString("en-US")} random sign flips` : "", s !== undefined ? `seed ${s}` : ""].filter(Boolean).join(", ");
}

/** reproduce's significance.json: the paper's family of 20 first, the exploratory family apart. */
function twoFamilies(sig: SignificanceReport, figs: FigureSet): string {
  const queries = toNumber(sig.queries);
  const settings = [flipsAndSeed(sig.swaps, sig.seed), queries !== undefined ? `${queries} queries` : ""].filter(Boolean).join(", ");
  let body = note(`Two-sided paired randomization tests on per-query differences${settings ? ` (${settings})` : ""}. Bold: significant at 0.05 after Holm.`);

  const paper = sig.paper;
  const computed = paper.tests.filter((t): t is ComputedPaperTest => t.status === "computed");
  const missing = paper.tests.filter((t): t is MissingPaperTest => t.status === "missing");
  const of = toNumber(paper.of) ?? paper.tests.length;
  body += `<h3>The paper's ${of} tests</h3>\n`;
  body += note(
    `${escapeHtml(toNumber(paper.computed) ?? computed.length)} of the paper's ${of} tests computed; Holm over all ${of}, missing tests counted as p = 1 ` +
      `(the largest adjusted p the missing tests could give a computed test: one significant here stays significant once all ${of} are computed).`,
  );
  if (computed.length) {
    body += testTable(computed);
    body += figs.add(pValueChart(computed, 0.05, `The paper's tests: p before and after Holm over all ${of} (missing tests at p = 1)`));
  }
  if (missing.length) {
    body +=
      `<h4>Missing tests (${missing.length} of ${of}, each counted as p = 1)</h4>\n` +
      table(
        ["A", "B", "metrics", "reason"],
        missingPairs(missing).map((g) => [text(g.a, "name"), text(g.b, "name"), text(g.metrics.join(", ")), text(g.reason ?? "", "reason")]),
      );
  }

  const base = sig.baseline;
  body += `<h3>Beyond the paper: every experiment against ${escapeHtml(base?.against ?? BASELINE_RUN)}</h3>\n`;
  if (!base) body += note(`${code(BASELINE_RUN)} did not run, so there is no exploratory family.`);
  else if (!base.tests.length) body += note(`No other experiment ran, so there is nothing to test against ${code(base.against)}.`);
  else {
    body += note(
      `Exploratory, not among the paper's claims: its own family, with Holm over these ${toNumber(base.of) ?? base.tests.length} tests only (not combined with the paper's ${of}).`,
    );
    body += testTable(base.tests);
    body += figs.add(pValueChart(base.tests, 0.05, `Against ${plotlyText(base.against)} (exploratory): p before and after Holm over these ${base.tests.length} tests`));
  }
  return body;
}

function sweepSection(inp: ReportInputs, figs: FigureSet) {
  const sw = inp.sweep;
  if (!sw) return section("sweep", "BM25 tuning sweep", note(`sweep.json not found in ${code(inp.dir)}: the k1 × b sweep has not been run for this dataset.`));
  const metric = sw.metric ?? "Recall@100";
  const rows: CellLike[][] = [];
  const point = (label: string, p: { k1?: unknown; b?: unknown; value?: unknown } | undefined) => {
    if (p) rows.push([label, number(p.k1, 2), number(p.b, 2), number(p.value)]);
  };
  point("rank_bm25 default", sw.default);
  point("best on these queries (oracle)", sw.best);
  const cv = sw.cv as Record<string, unknown> | undefined;
  if (cv && typeof cv === "object") {
    const mean = cv.mean as Record<string, unknown> | undefined;
    const value = typeof mean === "object" && mean ? mean[metric] : (cv.value ?? mean);
    if (toNumber(value) !== undefined) rows.push([`cross-validated${toNumber(cv.folds) ? ` (${cv.folds} folds)` : Array.isArray(cv.folds) ? ` (${cv.folds.length} folds)` : ""}`, text("per fold"), text(""), number(value)]);
  }
  let body = note(
    `Mean ${escapeHtml(metric)} for every (k1, b) setting, positive-only rankings. The best setting is chosen on the very queries it is scored on, so its gain is an upper bound; the cross-validated row (when present) is the honest estimate.`,
  );
  if (rows.length) body += table(["setting", "k1", "b", metric], rows, { numericHeader: [false, true, true, true] });
  body += figs.add(sweepHeatmap(sw));
  return section("sweep", "BM25 tuning sweep", body);
}

function reactSection(inp: ReportInputs, figs: FigureSet) {
  const rows = inp.reactRounds;
  if (!rows) return section("react", "REACT rounds", note(`react-rounds.csv not found in ${code(inp.dir)}: REACT-BM25 did not run (it needs a chat model).`));
  if (!rows.length) return section("react", "REACT rounds", note("react-rounds.csv has no rows."));
  const cols = Object.keys(rows[0]);
  const labels: Record<string, string> = {
    round: "round",
    keptRecall100: "kept Recall@100",
    candidateRecall100: "candidate-pool recall",
    missedGoldPairs: "gold retrieved, never kept",
    missedGoldQueries: "queries affected",
    callsPerQuery: "calls / query",
    tokensPerQuery: "tokens / query",
    inputTokensPerQuery: "input tokens / query",
    outputTokensPerQuery: "output tokens / query",
    secondsPerQuery: "seconds / query",
  };
  const counts = new Set(["round", "missedGoldPairs", "missedGoldQueries"]);
  const digits = (c: string) => (/tokens/i.test(c) ? 1 : /seconds|calls/i.test(c) ? 2 : 4);
  let body = figs.add(reactRoundsChart(rows));
  body += table(
    cols.map((c) => labels[c] ?? c),
    rows.map((r) => cols.map((c) => (counts.has(c) ? count(r[c]) : number(r[c], digits(c))))),
    { numericHeader: cols.map(() => true) },
  );
  body += missedGold(rows, cols, inp.reactMissed);
  return section("react", "REACT rounds", body);
}

/**
 * The appendix C.4 diagnostic: gold articles the planner's queries retrieved that the observer
 * never kept, by round (react-rounds.csv's missedGold* columns) and pair by pair
 * (react-missed.csv); empty when neither is there, so older outputs render as before.
 */
function missedGold(rows: CsvRecord[], cols: string[], pairs: CsvRecord[] | undefined): string {
  const byRound = cols.includes("missedGoldPairs") && cols.includes("missedGoldQueries");
  if (!byRound && !pairs) return "";
  const paper = PAPER_MISSED_GOLD;
  let ours = "";
  if (byRound) {
    const last = rows.filter((r) => toNumber(r.round) !== undefined).sort((x, y) => toNumber(x.round)! - toNumber(y.round)!).at(-1);
    if (last) ours = `This run: by round ${numAuto(last.round)}, ${numAuto(last.missedGoldPairs)} pairs over ${numAuto(last.missedGoldQueries)} queries (per round: the columns “gold retrieved, never kept” and “queries affected” above). `;
  }
  let body =
    `<h3>Gold retrieved but never kept (appendix C.4)</h3>\n` +
    note(`Relevant query–article pairs that some planner query brought into BM25's top 100 in a round ≤ r but that the observer kept in no round ≤ r, and the queries with at least one.`) +
    note(
      `${ours}Paper, on its ${paper.ofQueries} queries: by round ${paper.round}, ${paper.pairs} pairs over ${paper.queries} queries (the paper's number, a reference line: not comparable on another set of queries).`,
    );
  if (pairs && !pairs.length) body += note("react-missed.csv lists no pair: every gold article the planner's queries retrieved was kept by the observer.");
  else if (pairs) {
    const queries = new Set(pairs.map((p) => p.query)).size;
    const list = table(
      ["query", "article", "first retrieved in round", "best BM25 rank", "rounds retrieved"],
      pairs.map((p) => [text(p.query, "name"), text(p.article, "name"), count(p.firstRetrievedRound), count(p.bestRank), count(p.roundsRetrieved)]),
      { numericHeader: [false, false, true, true, true] },
    );
    // A long list stays folded so the section keeps its shape; a short one is open.
    body += `<details${pairs.length <= 25 ? " open" : ""}><summary>After the last round: ${pairs.length} pair${pairs.length === 1 ? "" : "s"} over ${queries} quer${queries === 1 ? "y" : "ies"} (react-missed.csv)</summary>\n${list}\n</details>`;
  }
  return body;
}

function costSection(inp: ReportInputs, figs: FigureSet) {
  const rows = inp.cost;
  if (!rows) return section("cost", "Cost", note(`cost.csv not found in ${code(inp.dir)}.`));
  if (!rows.length) return section("cost", "Cost", note("cost.csv has no rows."));
  let body = note(
    "Per query: online LLM calls plus one embedding per query, tokens, wall time and API-equivalent cost (USD, from the price table). " +
      "The one-time work on the corpus (indexing, embedding or translating the articles, fitting) is kept apart, as in the paper's Table 17, and never counted per query. " +
      "Embedding tokens are the provider's counts, stored with each cached vector, or o200k estimates where the provider reported none (source column).",
  );
  // Files written before v0.5 lack the one-time columns and the token source: those cells stay empty.
  const cell = (v: unknown, digits: number) => (v === undefined || v === "" ? text("") : number(v, digits));
  body += table(
    ["method", "calls / query", "LLM tokens / query", "embedding tokens / query", "token source", "seconds / query", "USD / query", "one-time calls", "one-time tokens", "one-time seconds", "one-time USD"],
    rows.map((r) => [
      text(r.method, "name"),
      number(r.callsPerQuery, 2),
      number(r.llmTokensPerQuery, 1),
      number(r.embeddingTokensPerQuery, 1),
      text(r.embeddingTokensSource ?? ""),
      number(r.secondsPerQuery),
      number(r.costPerQuery, 6),
      cell(r.oneTimeCalls, 0),
      cell(r.oneTimeTokens, 0),
      cell(r.oneTimeSeconds, 2),
      number(r.oneTimeCost, 4),
    ]),
    { numericHeader: [false, true, true, true, false, true, true, true, true, true, true] },
  );
  body += figs.add(qualityCostScatter(inp.summary, rows, "Recall@100"));
  return section("cost", "Cost", body);
}

// ---------------------------------------------------------------------------------------------
// Page

const CSS = `
:root { --fg: #111827; --muted: #6b7280; --line: #e5e7eb; --bg-alt: #f9fafb; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", Arial, sans-serif; color: var(--fg); background: #fff; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 28px 64px; }
header h1 { margin: 0 0 4px; font-size: 26px; }
header p { margin: 0; color: var(--muted); }
nav { margin: 16px 0 8px; display: flex; flex-wrap: wrap; gap: 6px 14px; font-size: 14px; }
nav a { color: #1d4ed8; text-decoration: none; }
section { margin-top: 36px; }
h2 { font-size: 21px; border-bottom: 2px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 16px; margin: 22px 0 8px; }
h4 { font-size: 14.5px; margin: 16px 0 6px; }
.table-wrap { overflow-x: auto; margin: 8px 0 16px; }
table { border-collapse: collapse; font-size: 13.5px; min-width: 40%; }
caption { text-align: left; color: var(--muted); padding: 4px 0; }
th, td { padding: 5px 10px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
th { background: #f3f4f6; font-weight: 600; white-space: nowrap; }
tbody tr:nth-child(even) { background: var(--bg-alt); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.name { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; white-space: nowrap; }
td.ids span.id { white-space: nowrap; }
td.ids { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; max-width: 420px; }
td.reason, span.reason { color: #374151; font-size: 12.5px; max-width: 520px; overflow-wrap: anywhere; }
td.setup { color: #374151; font-size: 12px; overflow-wrap: anywhere; }
table.kv td:first-child { color: var(--muted); white-space: nowrap; }
table.kv td:last-child { overflow-wrap: anywhere; }
.sd { color: var(--muted); font-size: 12px; }
.diff { padding: 1px 6px; border-radius: 4px; }
.diff.close { background: #dcfce7; color: #166534; }
.diff.near { background: #fef3c7; color: #92400e; }
.diff.far { background: #fee2e2; color: #991b1b; }
td.status-ok { color: #166534; }
td.status-skipped { color: var(--muted); }
td.status-failed { color: #b91c1c; font-weight: 600; }
details summary { cursor: pointer; }
.note { color: #374151; background: #f3f4f6; border-left: 4px solid #9ca3af; padding: 8px 12px; margin: 8px 0 12px; }
.warning { background: #fef3c7; border-left: 4px solid #d97706; padding: 8px 12px; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.92em; background: #f3f4f6; padding: 0 3px; border-radius: 3px; }
figure.plot { margin: 12px 0 20px; border: 1px solid var(--line); border-radius: 6px; padding: 4px; }
.figure { width: 100%; min-height: 300px; }
.fig-caption { color: var(--muted); font-size: 13px; margin: 4px 8px 4px; }
.fig-error { color: #b91c1c; padding: 12px; }
footer { margin-top: 48px; color: var(--muted); font-size: 13px; }
`;

// Draws every figure from its JSON block; sets data-figures on <body> when all are done
// ("drawn" or "error") so tests and scripts can wait for it.
const DRAW = `
(function () {
  var divs = Array.prototype.slice.call(document.querySelectorAll("div.figure[data-spec]"));
  function fail(div, err) {
    console.error("figure " + div.id + " failed: " + (err && err.message ? err.message : err));
    div.innerHTML = "";
    var p = document.createElement("p");
    p.className = "fig-error";
    p.textContent = "This figure could not be drawn: " + (err && err.message ? err.message : err);
    div.appendChild(p);
  }
  var jobs = divs.map(function (div) {
    try {
      if (typeof Plotly === "undefined") throw new Error("plotly.js did not load");
      var spec = JSON.parse(document.getElementById(div.getAttribute("data-spec")).textContent);
      return Promise.resolve(Plotly.newPlot(div, spec.data, spec.layout, { responsive: true, displaylogo: false, showLink: false, showSendToCloud: false }))
        .then(function () { return true; }, function (err) { fail(div, err); return false; });
    } catch (err) { fail(div, err); return Promise.resolve(false); }
  });
  Promise.all(jobs).then(function (ok) {
    document.body.setAttribute("data-figures", ok.every(Boolean) ? "drawn" : "error");
  });
})();
`;

/**
 * The report for one dataset folder of `gbr reproduce` outputs, as one self-contained HTML
 * page (plotly.js inlined, no external URL loaded). Sections: run metadata, dataset statistics
 * (Tables 1 and 6), results, reproduction (paper vs ours), per-area breakdown, and, when their
 * files are present, significance, BM25 sweep, REACT rounds and cost (with quality vs cost);
 * a missing optional file gives a note in its section instead.
 *
 * @example
 * const html = await buildReport("outputs/sample");
 * await fs.writeFile("outputs/sample/report.html", html);
 */
export async function buildReport(outDir: string): Promise<string> {
  const inp = await readReportInputs(outDir);
  const plotly = plotlyBundle();
  const dataset = typeof inp.metadata?.dataset === "string" ? inp.metadata.dataset : path.basename(path.resolve(outDir));
  const figs = new FigureSet();
  const sections = [
    metadataSection(inp, dataset, plotly.version),
    datasetSection(inp),
    resultsSection(inp, figs),
    reproductionSection(inp),
    areaSection(inp, figs),
    significanceSection(inp, figs),
    sweepSection(inp, figs),
    reactSection(inp, figs),
    costSection(inp, figs),
  ];
  const queries = toNumber(inp.metadata?.queries);
  const articles = toNumber(inp.metadata?.articles);
  const subtitle = [queries !== undefined ? `${queries} queries` : "", articles !== undefined ? `${articles} articles` : "", `${figs.count} figures`].filter(Boolean).join(" · ");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(`GreekBarRetrieval report — ${dataset}`)}</title>
<style>${CSS}</style>
</head>
<body>
<main>
<header>
<h1>${escapeHtml(`GreekBarRetrieval reproduction — ${dataset}`)}</h1>
<p>${escapeHtml(subtitle)}</p>
</header>
<nav>${sections.map((s) => `<a href="#${s.id}">${escapeHtml(s.title)}</a>`).join("\n")}</nav>
${sections.map((s) => s.html).join("\n")}
<footer>Generated by <code>gbr report</code> on ${escapeHtml(new Date().toISOString())} from ${code(inp.dir)}. Self-contained: plotly.js ${escapeHtml(plotly.version)} is inlined; the page loads nothing from the network.</footer>
</main>
<script>
${plotly.source}
</script>
<script>${DRAW}</script>
</body>
</html>
`;
}

/**
 * Builds the report for `outDir` and writes it (default `<outDir>/report.html`); returns the path.
 *
 * @example
 * await writeReport("outputs/sample"); // "outputs/sample/report.html"
 */
export async function writeReport(outDir: string, file = path.join(outDir, "report.html")): Promise<string> {
  const html = await buildReport(outDir);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, html);
  return file;
}

/**
 * Writes a report for every dataset folder under `outRoot` that has a summary.csv (or only
 * `<outRoot>/<only>`), in name order; returns the written paths. Throws when there is none.
 *
 * @example
 * await writeReports("outputs"); // ["outputs/hf/report.html", "outputs/sample/report.html"]
 */
export async function writeReports(outRoot: string, only?: string): Promise<string[]> {
  const has = async (dir: string) =>
    fs.stat(path.join(dir, "summary.csv")).then(
      (s) => s.isFile(),
      () => false,
    );
  let dirs: string[];
  if (only !== undefined) {
    const dir = path.join(outRoot, only);
    if (!(await has(dir))) throw new Error(`${path.join(dir, "summary.csv")} not found: run 'gbr reproduce --data ${only} --out ${outRoot}' first`);
    dirs = [dir];
  } else {
    let names: string[];
    try {
      names = (await fs.readdir(outRoot, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name).sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") throw new Error(`${outRoot} does not exist: run 'gbr reproduce --out ${outRoot}' first`);
      throw err;
    }
    dirs = [];
    for (const n of names) if (await has(path.join(outRoot, n))) dirs.push(path.join(outRoot, n));
    if (!dirs.length) throw new Error(`no dataset folder with a summary.csv under ${outRoot}: run 'gbr reproduce --out ${outRoot}' first`);
  }
  const written: string[] = [];
  for (const d of dirs) written.push(await writeReport(d));
  return written;
}
