/** What the HTML report reads from a dataset folder that `gbr reproduce` (and `gbr compare`, the sweep) wrote. */
import { promises as fs } from "node:fs";
import path from "node:path";
import type { SignificanceReport } from "../eval/significance";
import { insideFolder } from "../util/safe-files";
import { parsedOr } from "../util/errors";
import { readCsvIfExists, readIfExists } from "../util/csv";
import type { SweepJson } from "../figures/figures";
import { rowMarks } from "../figures/labels";

export function isDatasetFolder(dir: string): Promise<boolean> {
  return fs.stat(path.join(dir, "summary.csv")).then((s) => s.isFile(), () => false);
}

export async function datasetFoldersIn(root: string): Promise<string[]> {
  const names = (await fs.readdir(root, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  const found: string[] = [];
  for (const name of names) if (await isDatasetFolder(path.join(root, name))) found.push(path.join(root, name));
  return found;
}

/** Everything the report reads from one dataset folder (optional parts undefined when absent). */
export type ReportInputs = Awaited<ReturnType<typeof readReportInputs>>;

async function readJsonIfExists<T>(file: string): Promise<T | undefined> {
  const text = await readIfExists(file);
  if (text === undefined) return undefined;
  return parsedOr(() => JSON.parse(text) as T, (why) => new Error(`${file}: not valid JSON (${why})`));
}

export async function readReportInputs(dir: string) {
  const names = ["summary.csv", "per-query.csv", "table1.csv", "table6.csv", "reproduction.csv", "cost.csv", "react-rounds.csv", "react-missed.csv", "metadata.json", "significance.json", "sweep.json"];
  // A link planted in the folder is not followed out of it.
  for (const name of names) await insideFolder(dir, name, "followed");
  const f = (name: string) => path.join(dir, name);
  const summary = await readCsvIfExists(f("summary.csv"));
  if (!summary) throw new Error(`${f("summary.csv")} not found: run 'gbr reproduce --out ${path.dirname(dir)}' first`);
  const [perQuery, table1, table6, reproduction, cost, reactRounds, reactMissed] = await Promise.all(names.slice(1, 8).map((n) => readCsvIfExists(f(n))));
  for (const [name, rows] of [["summary.csv", summary], ["per-query.csv", perQuery], ["reproduction.csv", reproduction], ["cost.csv", cost]] as const) {
    // The columns rows are found by: without one, every row would be read as undefined.
    const missing = (name === "cost.csv" ? ["method"] : ["experiment"]).find((c) => rows?.length && !(c in rows[0]));
    if (missing) throw new Error(`${f(name)}: no "${missing}" column (expected the header gbr reproduce writes)`);
  }
  const metadata = await readJsonIfExists<Record<string, unknown>>(f("metadata.json"));
  const significance = await readSignificance(f("significance.json"));
  const sweep = await readJsonIfExists<SweepJson>(f("sweep.json"));
  if (sweep && !(Array.isArray(sweep.k1s) && Array.isArray(sweep.bs) && Array.isArray(sweep.z))) {
    throw new Error(`${f("sweep.json")}: expected {k1s, bs, z, …}`);
  }
  const marks = rowMarks(summary);
  return { dir, summary, marks, perQuery, table1, table6, reproduction, metadata, cost, reactRounds, reactMissed, significance, sweep };
}

/** A significance.json, checked down to each test's fields (an error names the file and the field); undefined if none. */
export async function readSignificance(file: string): Promise<SignificanceReport | undefined> {
  const sig = await readJsonIfExists<SignificanceReport>(file);
  if (sig !== undefined) checkSignificance(sig, file);
  return sig;
}

function checkSignificance(sig: SignificanceReport, file: string): void {
  const expected = `expected reproduce's {"paper": {"tests": [...]}, "baseline": …}`;
  const obj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  const fail = (field: string, what: string, v: unknown) => {
    throw new Error(`${file}: "${field}" must ${what} (found ${(JSON.stringify(v) ?? String(v)).slice(0, 60)}; ${expected})`);
  };
  const family = (name: string, v: unknown, optional: boolean) => {
    if (optional && (v === undefined || v === null)) return;
    if (!obj(v) || !Array.isArray(v.tests)) return fail(name, `${optional ? "be null or " : ""}have "tests": [...]`, v);
    for (const [i, t] of v.tests.entries()) {
      const at = `${name}.tests[${i}]`;
      if (!obj(t)) return fail(at, "be an object", t);
      for (const k of ["a", "b", "metric"]) if (typeof t[k] !== "string") fail(`${at}.${k}`, "be a string", t[k]);
      for (const k of ["p", "pHolm"]) if (typeof t[k] !== "number") fail(`${at}.${k}`, "be a number", t[k]);
      for (const k of ["meanA", "meanB", "delta"]) if (t[k] !== undefined && t[k] !== null && typeof t[k] !== "number") fail(`${at}.${k}`, "be a number", t[k]);
      if (t.missing !== undefined && !(Array.isArray(t.missing) && t.missing.every((m) => typeof m === "string"))) fail(`${at}.missing`, "be a list of ids", t.missing);
    }
  };
  if (!obj(sig) || !("paper" in sig)) throw new Error(`${file}: ${expected}`);
  family("paper", sig.paper, false);
  family("baseline", sig.baseline, true);
  family("rerank", sig.rerank, true);
}
