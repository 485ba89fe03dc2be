/** danfojs DataFrame views of what `gbr reproduce` computes; a missing number is NaN (danfojs counts null as 0). */
import path from "node:path";
import type { DataFrame } from "danfojs-node";
import { danfoSdk } from "../util/sdk";
import type { SignificanceReport } from "../eval/significance";
import type { ResultsTable } from "../eval/results-table";
import { TABLE_FILES, type OutputTables, type Table } from "../experiments/output-tables";
import { insideFolder } from "../util/safe-files";
import { parseCsvRecords, readIfExists } from "../util/csv";
import { readSignificance } from "./report-inputs";

/** Columns that hold names, whatever their cells look like (a query id "17" is not a number). */
const TEXT_COLUMNS: ReadonlySet<string> = new Set(["experiment", "query", "article", "source", "area", "session", "goldSources", "a", "b", "metric", "family", "id", "method", "runFile", "#", "Run", "Experiment"]);

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;

/** One typing rule for both views, so they agree cell for cell: numeric (blank NaN) or boolean if all cells read so. */
export function typedCells(table: Table): unknown[][] {
  const text = table.rows.map((r) => table.columns.map((_, j) => String(r[j] ?? "")));
  const all = (j: number, re: RegExp) => !TEXT_COLUMNS.has(table.columns[j]) && text.some((r) => r[j] !== "") && text.every((r) => r[j] === "" || re.test(r[j]));
  const numeric = table.columns.map((_, j) => all(j, NUMBER));
  const boolean = table.columns.map((_, j) => all(j, /^(true|false)$/));
  return text.map((r) => r.map((cell, j) => (numeric[j] ? (cell === "" ? NaN : Number(cell)) : boolean[j] && cell !== "" ? cell === "true" : cell)));
}

export function tableFrame(table: Table): DataFrame {
  const { DataFrame: Frame } = danfoSdk();
  return new Frame(typedCells(table), { columns: table.columns });
}

export function rowsFrame(rows: readonly object[]): DataFrame {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cell = (v: unknown) => (v !== null && typeof v === "object" ? (Array.isArray(v) ? v.join(", ") : JSON.stringify(v)) : v);
  return tableFrame({ columns, rows: rows.map((r) => columns.map((c) => cell((r as Record<string, unknown>)[c]))) });
}

/** Anything shaped like a danfojs DataFrame or Series (what `frameRows` and `show.table` read). */
export interface FrameLike {
  columns: string[];
  values: unknown[] | unknown[][];
  /** Row labels; numeric positions say nothing, text labels (describe()'s) do. */
  index?: (string | number)[];
}

/**
 * The rows of a DataFrame as objects (NaN back to undefined); a text index makes a first column named "".
 * @example
 * areaBreakdownChart(frameRows(f.perQuery), ["bm25-greekstemmer"], "Recall@100");
 */
export function frameRows(df: FrameLike): Record<string, unknown>[] {
  const labelled = Array.isArray(df.index) && df.index.some((label) => typeof label === "string");
  return (df.values as unknown[]).map((v, i) => {
    const cells = Array.isArray(v) ? v : [v];
    const row: Record<string, unknown> = labelled ? { "": df.index![i] } : {};
    df.columns.forEach((c, j) => (row[c] = typeof cells[j] === "number" && Number.isNaN(cells[j]) ? undefined : cells[j]));
    return row;
  });
}

/**
 * A long table made wide, as pandas' `pivot` (danfojs has none); a missing combination is NaN, a repeated one an error.
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

/** The results table as a DataFrame: a row per run, per metric its value and the letters of the rows it beats. */
export function resultsTableFrame(t: ResultsTable): DataFrame {
  const letters = t.rows.some((r) => r.label !== undefined);
  const columns = [...(letters ? ["#"] : []), t.nameHeader ?? "Run", ...t.metrics.flatMap((m) => [m, `${m} beats`])];
  const rows = t.rows.map((row, r) => [...(letters ? [row.label ?? ""] : []), row.name, ...t.metrics.flatMap((_, m) => [t.values[r][m] ?? "", (t.superscripts[r]?.[m] ?? []).join(",")])]);
  return tableFrame({ columns, rows });
}

/** One row per test of the paper, baseline and rerank families; a paper test whose run is absent is "missing". */
export function significanceRows(report: SignificanceReport): Record<string, unknown>[] {
  const paper = report.paper.tests.map((t) => {
    const [meanA, meanB, delta] = t.status === "computed" ? [t.meanA, t.meanB, t.delta] : [NaN, NaN, NaN];
    return { family: "paper", a: t.a, b: t.b, metric: t.metric, meanA, meanB, delta, p: t.p, pHolm: t.pHolm, status: t.status };
  });
  const baseline = (report.baseline?.tests ?? []).map((t) => ({ family: "baseline", ...t, status: "computed" }));
  const rerank = (report.rerank?.tests ?? []).map((t) => ({ family: "rerank", ...t, status: "computed" }));
  return [...paper, ...baseline, ...rerank];
}

export type ResultFrames = { [K in keyof OutputTables]: DataFrame } & { significance: DataFrame };

/**
 * Every table of a reproduce as a DataFrame, straight from its result (nothing read from disk).
 * @example
 * const f = resultFrames(await reproduce(loaded, { outRoot, only: ids }));
 * showTable(f.perQuery.groupby(["experiment", "area"]).col(["Recall@100"]).mean());
 */
export function resultFrames(result: { tables: OutputTables; assessment: { significance: SignificanceReport } }): ResultFrames {
  const out: Partial<ResultFrames> = {};
  for (const [key, t] of Object.entries(result.tables) as [keyof OutputTables, Table | undefined][]) if (t) out[key] = tableFrame(t);
  out.significance = rowsFrame(significanceRows(result.assessment.significance));
  return out as ResultFrames;
}

/**
 * The same views from a `gbr reproduce` folder; an absent optional table is undefined, a missing required one throws.
 * @example
 * const f = await outputFrames("outputs/sample");
 * showTable(f.summary.loc({ rows: f.summary["status"].eq("ok") }));
 */
export async function outputFrames(dir: string): Promise<ResultFrames> {
  const out: Partial<ResultFrames> = {};
  for (const [key, name] of Object.entries(TABLE_FILES) as [keyof OutputTables, string][]) {
    const file = await insideFolder(dir, name, "followed");
    const text = await readIfExists(file);
    if (text === undefined) {
      if (key === "cost" || key === "reactRounds" || key === "reactMissed") continue;
      throw new Error(`${file} not found: is ${dir} a folder that 'gbr reproduce' wrote?`);
    }
    const header = text.replace(/^\uFEFF/, "").split(/\r?\n/, 1)[0];
    const records = parseCsvRecords(text, file);
    const columns = records.length ? Object.keys(records[0]) : header ? header.split(",") : [];
    out[key] = tableFrame({ columns, rows: records.map((r) => columns.map((c) => r[c])) });
  }
  const sigFile = path.join(dir, "significance.json");
  const sig = await readSignificance(sigFile);
  if (!sig) throw new Error(`${sigFile} not found`);
  out.significance = rowsFrame(significanceRows(sig));
  return out as ResultFrames;
}
