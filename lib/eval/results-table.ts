/** The one results table (as ranx's Report): runs × metrics, bold best, significance letters; text, LaTeX, Markdown. */
import { formatFixed } from "../util/format-fixed";
import { printable } from "../util/printable";
import { formatTable } from "../util/text-table";
import type { EvalMetric, Metric, MetricValues, Scores } from "./metrics";
import type { Comparison, SignificanceTest } from "./compare-runs";
import { correct, CORRECTION_NAMES, TEST_NAMES, type Correction, type PairedTestName } from "./paired-tests";

/** The two footnote marks a row may carry (LaTeX \dag and \ddag, Unicode † and ‡ in Markdown). */
export type FootnoteMark = "dagger" | "ddagger";

/** values, superscripts (labels of the rows a value beats) and best are [row][metric]; the caption is plain text. */
export interface ResultsTable {
  rows: { label?: string; name: string; marks?: FootnoteMark[] }[];
  metrics: string[];
  values: (number | null)[][];
  superscripts: string[][][];
  best: boolean[][];
  caption: string;
  label: string;
  /** What each mark used by a row means, in this order. */
  footnotes?: { mark: FootnoteMark; text: string }[];
  digits?: number;
  nameHeader?: string;
}

export const PAPER_FORMATS = ["latex", "markdown"] as const;
export type PaperFormat = (typeof PAPER_FORMATS)[number];

/** The table in one of its formats. */
export function renderPaperTable(table: ResultsTable, format: PaperFormat | "text"): string {
  return format === "latex" ? renderLatex(table) : format === "markdown" ? renderMarkdown(table) : renderText(table);
}

/** ranx's letters; Unicode has no superscript q, so the text tables skip it and these labels do too (one lettering). */
const LETTERS = "abcdefghijklmnoprstuvwxyz";

/** Row labels a, b, c …; past 25 rows a … z, aa, ab … (q included: such labels are never Unicode superscripts). */
export function rowLabels(count: number): string[] {
  if (count <= LETTERS.length) return [...LETTERS.slice(0, count)];
  return Array.from({ length: count }, (_, i) => {
    let s = "";
    for (let k = i + 1; k > 0; k = Math.floor((k - 1) / 26)) s = String.fromCharCode(97 + ((k - 1) % 26)) + s;
    return s;
  });
}

/** Per column, the rows with the highest value as shown (ties all best); rows not `eligible` (an oracle) never compete. */
export function bestPerColumn(values: readonly (readonly (number | null)[])[], digits = 4, eligible?: readonly boolean[]): boolean[][] {
  const shown = values.map((row) => row.map((v) => (v === null || !Number.isFinite(v) ? null : Number(formatFixed(v, digits)))));
  const competes = (v: number | null, r: number): v is number => v !== null && (eligible?.[r] ?? true);
  const top = (values[0] ?? []).map((_, m) => Math.max(...shown.flatMap((row, r) => (competes(row[m], r) ? [row[m]!] : []))));
  return shown.map((row, r) => row.map((v, m) => competes(v, r) && v === top[m]));
}

/** A test as `gbr compare --json` and significance.json give it. */
export type TestOutcome = Pick<SignificanceTest, "a" | "b" | "delta" | "pHolm"> & { metric: string };

/**
 * Each row's letters per metric: the rows it beats (pHolm < alpha and the values agree with delta: with --repeat the
 * values are means over samples, the tests use sample 0). A pair tested in two families: the first decides.
 */
export function significanceLetters(
  rows: readonly { name: string; label: string }[],
  metrics: readonly string[],
  values: readonly (readonly (number | null)[])[],
  tests: readonly TestOutcome[],
  alpha = 0.05,
): string[][][] {
  const index = new Map(rows.map((r, i) => [r.name, i]));
  const column = new Map(metrics.map((m, j) => [m, j]));
  const beaten = rows.map(() => metrics.map(() => new Set<number>()));
  const seen = new Set<string>();
  for (const t of tests) {
    const key = [[t.a, t.b].sort().join("\u0000"), t.metric].join("\u0001");
    if (seen.has(key)) continue;
    seen.add(key);
    const j = column.get(t.metric);
    const ia = index.get(t.a);
    const ib = index.get(t.b);
    if (j === undefined || ia === undefined || ib === undefined || ia === ib) continue;
    if (!(t.pHolm < alpha) || t.delta === 0 || !Number.isFinite(t.delta)) continue;
    const [w, l] = t.delta > 0 ? [ia, ib] : [ib, ia];
    // A missing value on either side marks nothing.
    if ((values[w][j] ?? -Infinity) > (values[l][j] ?? Infinity)) beaten[w][j].add(l);
  }
  return beaten.map((perMetric) => perMetric.map((set) => [...set].sort((x, y) => x - y).map((i) => rows[i].label)));
}

/** Unicode superscripts of rowLabels' letters (a … z without q, which Unicode lacks). */
const SUPERSCRIPTS: Record<string, string> = Object.fromEntries([...LETTERS].map((c, i) => [c, "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻ"[i]]));

/** Terminal text: no bold; a value's letters as Unicode superscripts, or "[x,y]" past 25 rows (q has none). */
export function renderText(t: ResultsTable): string {
  const digits = t.digits ?? 4;
  const letters = t.rows.some((r) => r.label !== undefined);
  const ascii = t.rows.length > LETTERS.length;
  const marks = (sup: readonly string[]) => (!sup.length ? "" : ascii ? ` [${sup.join(",")}]` : sup.map((l) => SUPERSCRIPTS[l]).join(""));
  const body = t.rows.map((row, r) => {
    const name = row.name + (row.marks?.length ? ` ${row.marks.map((m) => MARKDOWN_MARK[m]).join("")}` : "");
    const cells = t.metrics.map((_, m) => {
      const v = t.values[r][m];
      return v === null ? "-" : formatFixed(v, digits) + marks(t.superscripts[r]?.[m] ?? []);
    });
    return [...(letters ? [row.label ?? ""] : []), name, ...cells];
  });
  return formatTable([...(letters ? ["#"] : []), (t.nameHeader ?? "Run").toLowerCase(), ...t.metrics], body);
}

const LATEX_SPECIALS: Record<string, string> = {
  "\\": "\\textbackslash{}",
  "{": "\\{",
  "}": "\\}",
  _: "\\_",
  "&": "\\&",
  "%": "\\%",
  // Text-mode \$ takes its glyph from a bitmap (TS1) font under LaTeX's default OT1 encoding; math's is Type 1.
  $: "\\ensuremath{\\$}",
  "#": "\\#",
  "~": "\\textasciitilde{}",
  "^": "\\textasciicircum{}",
  // In LaTeX's default OT1 font encoding these three print as other glyphs (¡, ¿, —).
  "<": "\\textless{}",
  ">": "\\textgreater{}",
  "|": "\\textbar{}",
  // Braced, so that the \\ or \midrule before a cell does not read "[2pt]…" as its optional argument.
  "[": "{[}",
};

/** Text as LaTeX text-mode source: specials escaped, whitespace runs one space, controls shown as escapes. */
export function escapeLatex(text: string): string {
  return printable(text.replace(/\s+/g, " ")).replace(/[\\{}_&%$#~^<>|[]/g, (c) => LATEX_SPECIALS[c]);
}

// Math-mode daggers: text-mode \dag pulls in a bitmap (TS1) font under LaTeX's default encoding.
const LATEX_MARK: Record<FootnoteMark, string> = { dagger: "\\dagger", ddagger: "\\ddagger" };

/** The letters of beaten rows: run together when all are single letters, else comma-separated. */
function joinLabels(labels: readonly string[]): string {
  return labels.join(labels.some((l) => l.length > 1) ? "," : "");
}

/** A `table` float with a booktabs tabular, caption above, notes below, in ranx's Report layout. */
export function renderLatex(t: ResultsTable): string {
  const digits = t.digits ?? 4;
  const letters = t.rows.some((r) => r.label !== undefined);
  const nonAscii = [t.caption, ...t.rows.map((r) => r.name), ...t.metrics].some((s) => /[^\x00-\x7f]/.test(s));
  // A metric is two columns, r@{}l: the number right-aligned so its digits line up, its letters just after it.
  const head = [...(letters ? ["\\#"] : []), escapeLatex(t.nameHeader ?? "Run"), ...t.metrics.map((m) => `\\multicolumn{2}{c}{${escapeLatex(m)}}`)];
  const body = t.rows.map((row, r) => {
    const marks = (row.marks ?? []).map((m) => LATEX_MARK[m]).join(",");
    const name = escapeLatex(row.name) + (marks ? `$^{${marks}}$` : "");
    const cells = t.metrics.flatMap((_, m) => {
      const v = t.values[r][m];
      if (v === null) return ["--", ""];
      const text = formatFixed(v, digits);
      const sup = t.superscripts[r]?.[m] ?? [];
      return [t.best[r]?.[m] ? `\\textbf{${text}}` : text, sup.length ? `\\textsuperscript{${escapeLatex(joinLabels(sup))}}` : ""];
    });
    return [...(letters ? [escapeLatex(row.label ?? "")] : []), name, ...cells].reduce((line, c) => (c ? `${line} & ${c}` : `${line} &`)) + " \\\\";
  });
  const used = new Set(t.rows.flatMap((r) => r.marks ?? []));
  const notes = (t.footnotes ?? []).filter((f) => used.has(f.mark));
  return [
    "% Made by greekbar-retrieval (gbr). Needs \\usepackage{booktabs} in the preamble.",
    "% Too wide for the page? Try \\small or \\setlength{\\tabcolsep}{4pt} after \\centering, or table* in two columns.",
    ...(nonAscii ? ["% Some names hold non-ASCII characters: pdflatex needs fonts for them (or use xelatex or lualatex)."] : []),
    "\\begin{table}[htbp]",
    "\\centering",
    `\\caption{${escapeLatex(t.caption)}}`,
    `\\label{${t.label.replace(/[^A-Za-z0-9:._-]/g, "-")}}`,
    `\\begin{tabular}{${letters ? "c" : ""}l${"r@{}l".repeat(t.metrics.length)}}`,
    "\\toprule",
    head.join(" & ") + " \\\\",
    "\\midrule",
    ...body,
    "\\bottomrule",
    "\\end{tabular}",
    ...(notes.length
      ? ["\\par\\smallskip", `{\\footnotesize ${notes.map((n) => `$^{${LATEX_MARK[n.mark]}}$${escapeLatex(n.text)}`).join("\\\\\n")}\\par}`]
      : []),
    "\\end{table}",
    "",
  ].join("\n");
}

const MARKDOWN_MARK: Record<FootnoteMark, string> = { dagger: "†", ddagger: "‡" };

/** Prose as GitHub Markdown: a backslash before what could start formatting, a link, math, an entity, a tag or end a cell. */
export function escapeMarkdown(text: string): string {
  return printable(text.replace(/\s+/g, " ")).replace(/[\\`*_[\]|~$&]|<(?=[A-Za-z/!?])/g, (c) => `\\${c}`);
}

/** A name as a code span for a table cell: only `|` needs its backslash; the fence outgrows any backticks inside. */
export function markdownCode(text: string): string {
  const s = printable(text.replace(/\s+/g, " ").trim());
  const longest = Math.max(0, ...(s.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  const pad = s.startsWith("`") || s.endsWith("`") ? " " : "";
  return `${fence}${pad}${s.replace(/\|/g, "\\|")}${pad}${fence}`;
}

/** A pipe table: `Table: caption` before it (pandoc reads that as the caption), names as code, notes after. */
export function renderMarkdown(t: ResultsTable): string {
  const digits = t.digits ?? 4;
  const letters = t.rows.some((r) => r.label !== undefined);
  const head = [...(letters ? ["#"] : []), escapeMarkdown(t.nameHeader ?? "Run"), ...t.metrics.map(escapeMarkdown)];
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  const body = t.rows.map((row, r) => {
    const marks = (row.marks ?? []).map((m) => MARKDOWN_MARK[m]).join("");
    const name = markdownCode(row.name) + (marks ? ` ${marks}` : "");
    const cells = t.metrics.map((_, m) => {
      const v = t.values[r][m];
      if (v === null) return "–";
      const text = formatFixed(v, digits);
      const sup = t.superscripts[r]?.[m] ?? [];
      return (t.best[r]?.[m] ? `**${text}**` : text) + (sup.length ? `<sup>${escapeMarkdown(joinLabels(sup))}</sup>` : "");
    });
    return line([...(letters ? [escapeMarkdown(row.label ?? "")] : []), name, ...cells]);
  });
  const used = new Set(t.rows.flatMap((r) => r.marks ?? []));
  const notes = (t.footnotes ?? []).filter((f) => used.has(f.mark)).map((n) => `${MARKDOWN_MARK[n.mark]} ${escapeMarkdown(n.text)}`);
  return [
    `Table: ${escapeMarkdown(t.caption)}`,
    "",
    line(head),
    line(head.map((_, i) => (i < head.length - t.metrics.length ? "---" : "---:"))),
    ...body,
    ...(notes.length ? ["", notes.join("\\\n")] : []),
    "",
  ].join("\n");
}

/** One run's mean metrics: a single row, nothing bold (one row is trivially best), no letters (nothing tested). */
export function evalPaperTable(run: { name: string; mean: Scores }, metrics: readonly EvalMetric[], queries: number): ResultsTable {
  return {
    rows: [{ name: run.name }],
    metrics: [...metrics],
    values: [metrics.map((m) => run.mean[m])],
    superscripts: [metrics.map(() => [])],
    best: [metrics.map(() => false)],
    caption: `Run ${run.name}: mean over ${queries} ${queries === 1 ? "query" : "queries"}.`,
    label: "tab:gbr-eval",
  };
}

/** Runs × metrics as `formatComparison` shows them; `pairs`: the --pair pairs when given (else every pair was tested). */
export function comparisonPaperTable(
  runs: readonly { name: string; mean: MetricValues }[],
  comparison: Comparison,
  metrics: readonly Metric[],
  opts: { swaps: number; seed: number | bigint; queries: number; pairs?: readonly (readonly [string, string])[]; alpha?: number; test?: PairedTestName; correction?: Correction },
): ResultsTable {
  const { alpha = 0.05, test = "randomization", correction = "holm" } = opts;
  const labels = rowLabels(runs.length);
  const values = runs.map((r) => metrics.map((m) => r.mean[m]));
  const rows = runs.map((r, i) => ({ name: r.name, label: labels[i] }));
  const tested = opts.pairs?.length
    ? `the pairs given (${opts.pairs.map(([a, b]) => `${a} vs ${b}`).join(", ")})`
    : "every pair of runs";
  const caption =
    `Runs compared on ${opts.queries} queries. Bold: the best value of each column (tied values all bold). ` +
    `A superscript letter marks a value significantly higher than that of the run with that letter: two-sided ${TEST_NAMES[test]} ` +
    `${test === "randomization" ? `(${opts.swaps.toLocaleString("en-US")} random sign flips, numpy seed ${opts.seed}) ` : ""}on ${tested}, ` +
    (correction === "none" ? `no correction, p < ${alpha}.` : `${CORRECTION_NAMES[correction]} correction over all ${comparison.tests.length} tests, corrected p < ${alpha}.`);
  // The letters read pHolm: here the p after the chosen correction (Holm's own by default).
  const adjusted = correct(comparison.tests.map((t) => t.p), correction);
  return {
    rows,
    metrics: [...metrics],
    values,
    superscripts: significanceLetters(rows, metrics, values, comparison.tests.map((t, i) => ({ ...t, pHolm: adjusted[i] })), alpha),
    best: bestPerColumn(values),
    caption,
    label: "tab:gbr-compare",
  };
}
