/**
 * DataFrame views (danfojs-node) of everything `gbr reproduce` and the notebooks compute: the
 * summary, per-query metrics (with legal area, exam session and the gold articles' statutes),
 * each gold article's rank, the reproduction table, the significance tests, the cost table,
 * the BM25 sweep grid and the REACT round table. A notebook then works as with pandas:
 * `groupby`, `sortValues`, `loc({ rows: mask })`, `describe`, and `showTable` to display.
 * Filter with `loc`, not `query()`: danfojs makes every column a property of the frame, and
 * the per-query tables have a column named "query", which hides the method.
 *
 * One typing rule for every view, in memory or read back from the CSV files: a column is
 * numeric when every non-empty cell reads as a number, boolean when every one reads true or
 * false (ids, areas, statutes and sessions stay text whatever they look like); a missing number is NaN, never null, because danfojs counts a
 * null as 0 in a group's mean, while NaN stays visible (drop it with `dropNa()` first); a
 * missing text is "". So a view of a reproduce's results and the view of its CSV files agree
 * cell for cell (test/integration/frames.test.ts).
 *
 * danfojs (about 1 s to load, with TensorFlow.js) is required on the first call of a view,
 * never when this module is imported.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import type { DataFrame } from "danfojs-node";
import { danfoSdk } from "../util/sdk";
import { METRICS } from "../eval/metrics";
import type { SignificanceReport } from "../eval/significance";
import type { SweepResult } from "../eval/sweep-result";
import { TABLE_FILES, type OutputTables, type Table } from "../experiments/output-tables";
import { parseCsvRecords } from "./csv";

/** Columns that hold names, whatever their cells look like (a query id "17" is not a number). */
const TEXT_COLUMNS: ReadonlySet<string> = new Set(["experiment", "query", "article", "source", "area", "session", "goldSources", "a", "b", "metric", "family", "id", "method"]);

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;

/** A cell as the CSV file holds it (what `toCsv` writes, before quoting). */
function cellText(v: unknown): string {
  return v === undefined || v === null ? "" : String(v);
}

/**
 * The typed cells of a table: the one rule both views follow (numbers for numeric columns with
 * NaN for a blank, text otherwise with "" for a blank).
 */
export function typedCells(table: Table): unknown[][] {
  const text = table.rows.map((r) => table.columns.map((_, j) => cellText(r[j])));
  const all = (j: number, re: RegExp) => !TEXT_COLUMNS.has(table.columns[j]) && text.some((r) => r[j] !== "") && text.every((r) => r[j] === "" || re.test(r[j]));
  const numeric = table.columns.map((_, j) => all(j, NUMBER));
  const boolean = table.columns.map((_, j) => all(j, /^(true|false)$/));
  return text.map((r) => r.map((cell, j) => (numeric[j] ? (cell === "" ? NaN : Number(cell)) : boolean[j] && cell !== "" ? cell === "true" : cell)));
}

/**
 * A DataFrame of a table, typed as described above (an empty table keeps its columns).
 */
export function tableFrame(table: Table): DataFrame {
  const { DataFrame: Frame } = danfoSdk();
  return new Frame(typedCells(table), { columns: table.columns });
}

/**
 * A DataFrame of row objects (columns in first-seen key order; arrays and objects become text).
 */
export function rowsFrame(rows: readonly object[]): DataFrame {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cell = (v: unknown) => (v !== null && typeof v === "object" ? (Array.isArray(v) ? v.join(", ") : JSON.stringify(v)) : v);
  return tableFrame({ columns, rows: rows.map((r) => columns.map((c) => cell((r as Record<string, unknown>)[c]))) });
}

/**
 * The rows of a DataFrame as objects (NaN back to undefined), e.g. to hand to a figure builder.
 *
 * @example
 * areaBreakdownChart(frameRows(f.perQuery), ["bm25-greekstemmer"], "Recall@100");
 */
export function frameRows(df: Pick<DataFrame, "columns" | "values">): Record<string, unknown>[] {
  return (df.values as unknown[][]).map((r) => Object.fromEntries(df.columns.map((c, j) => [c, typeof r[j] === "number" && Number.isNaN(r[j]) ? undefined : r[j]])));
}

/**
 * A long table made wide, as pandas' `pivot` does (danfojs has none): one row per distinct
 * value of `index`, one column per distinct value of `columns` (both in first-seen order),
 * cells from `values`; a combination that does not occur is NaN, and one that occurs twice is
 * an error naming it (aggregate with `groupby` first).
 *
 * @example
 * const means = f.perQuery.groupby(["experiment", "area"]).col(["Recall@100"]).mean();
 * showTable(pivot(means, { index: "area", columns: "experiment", values: "Recall@100_mean" }));
 */
export function pivot(df: Pick<DataFrame, "columns" | "values">, spec: { index: string; columns: string; values: string }): DataFrame {
  const at = (c: string) => {
    const j = df.columns.indexOf(c);
    if (j < 0) throw new Error(`pivot: no column '${c}' (columns: ${df.columns.join(", ")})`);
    return j;
  };
  const [ji, jc, jv] = [at(spec.index), at(spec.columns), at(spec.values)];
  const rows = new Map<string, Map<string, unknown>>();
  const cols: string[] = [];
  for (const r of df.values as unknown[][]) {
    const key = String(r[ji]);
    const col = String(r[jc]);
    if (!cols.includes(col)) cols.push(col);
    const row = rows.get(key) ?? new Map<string, unknown>();
    if (row.has(col)) throw new Error(`pivot: two rows for ${spec.index} '${key}' and ${spec.columns} '${col}'; aggregate them first (groupby)`);
    row.set(col, r[jv]);
    rows.set(key, row);
  }
  return tableFrame({ columns: [spec.index, ...cols], rows: [...rows].map(([key, row]) => [key, ...cols.map((c) => row.get(c) ?? "")]) });
}

/**
 * The paper's 20 tests, the exploratory family against the baseline and the re-ranking family
 * (each re-ranked run against its first stage), one row per test: family ("paper", "baseline"
 * or "rerank"), a, b, metric, meanA, meanB, delta, p, pHolm, status (a
 * paper test whose run is absent is "missing", with NaN means).
 */
export function significanceRows(report: SignificanceReport): Record<string, unknown>[] {
  const paper = report.paper.tests.map((t) => ({
    family: "paper",
    a: t.a,
    b: t.b,
    metric: t.metric,
    meanA: t.status === "computed" ? t.meanA : NaN,
    meanB: t.status === "computed" ? t.meanB : NaN,
    delta: t.status === "computed" ? t.delta : NaN,
    p: t.p,
    pHolm: t.pHolm,
    status: t.status,
  }));
  const baseline = (report.baseline?.tests ?? []).map((t) => ({ family: "baseline", ...t, status: "computed" }));
  // Files written before the re-ranking family existed have no `rerank` key.
  const rerank = (report.rerank?.tests ?? []).map((t) => ({ family: "rerank", ...t, status: "computed" }));
  return [...paper, ...baseline, ...rerank];
}

/**
 * `significanceRows` as a DataFrame.
 */
export function significanceFrame(report: SignificanceReport): DataFrame {
  return rowsFrame(significanceRows(report));
}

/**
 * The BM25 sweep grid, one row per (k1, b) with the five mean metrics, in grid order; pivot it
 * with `sweepHeatmap` (lib/eval/sweep-result.ts) for the paper's figure.
 */
export function sweepFrame(sweep: SweepResult): DataFrame {
  return rowsFrame(sweep.grid.map((e) => ({ k1: e.k1, b: e.b, ...Object.fromEntries(METRICS.map((m) => [m, e.mean[m]])) })));
}

/** The DataFrame views of one reproduce (the optional tables only when they were written). */
export interface ResultFrames {
  summary: DataFrame;
  perQuery: DataFrame;
  goldRanks: DataFrame;
  table1: DataFrame;
  table6: DataFrame;
  reproduction: DataFrame;
  cost?: DataFrame;
  reactRounds?: DataFrame;
  reactMissed?: DataFrame;
  significance: DataFrame;
}

/**
 * Every table of a reproduce as a DataFrame, straight from its result (nothing read from disk).
 *
 * @example
 * const f = resultFrames(await reproduce(loaded, { outRoot, only: ids }));
 * showTable(f.perQuery.groupby(["experiment", "area"]).col(["Recall@100"]).mean());
 */
export function resultFrames(result: { tables: OutputTables; assessment: { significance: SignificanceReport } }): ResultFrames {
  const out: Partial<ResultFrames> = {};
  for (const [key, t] of Object.entries(result.tables) as [keyof OutputTables, Table | undefined][]) if (t) out[key] = tableFrame(t);
  out.significance = significanceFrame(result.assessment.significance);
  return out as ResultFrames;
}

/**
 * The same views from a folder `gbr reproduce` wrote (its CSV files and significance.json), to
 * work on a finished run without running it again. A table whose file is absent is undefined
 * (a required one missing throws, naming the file).
 *
 * @example
 * const f = await outputFrames("outputs/sample");
 * showTable(f.summary.loc({ rows: f.summary["status"].eq("ok") }));
 */
export async function outputFrames(dir: string): Promise<ResultFrames> {
  const out: Partial<ResultFrames> = {};
  for (const [key, name] of Object.entries(TABLE_FILES) as [keyof OutputTables, string][]) {
    const file = path.join(dir, name);
    let text: string;
    try {
      text = await fs.readFile(file, "utf8");
    } catch (err) {
      const optional = key === "cost" || key === "reactRounds" || key === "reactMissed";
      if ((err as NodeJS.ErrnoException).code === "ENOENT" && optional) continue;
      if ((err as NodeJS.ErrnoException).code === "ENOENT") throw new Error(`${file} not found: is ${dir} a folder that 'gbr reproduce' wrote?`);
      throw err;
    }
    const header = text.replace(/^\uFEFF/, "").split(/\r?\n/, 1)[0];
    const records = parseCsvRecords(text, file);
    // The header's own order, also for a table without rows.
    const columns = records.length ? Object.keys(records[0]) : header ? header.split(",") : [];
    out[key] = tableFrame({ columns, rows: records.map((r) => columns.map((c) => r[c])) });
  }
  const sigFile = path.join(dir, "significance.json");
  out.significance = significanceFrame(JSON.parse(await fs.readFile(sigFile, "utf8")) as SignificanceReport);
  return out as ResultFrames;
}
