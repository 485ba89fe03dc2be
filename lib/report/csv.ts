/** Reading back `gbr reproduce`'s CSV files over `parseCsv`: string records, "<file>:<line>" errors, blanks not 0. */
import { promises as fs } from "node:fs";
import { csvText, parseCsv } from "../util/csv";

/** One CSV record keyed by header name; every value is the cell's text. */
export type CsvRecord = Record<string, string>;

/** Records from CSV text as `toCsv` was given them (see `csvText`); a leading BOM is ignored, a malformed record throws "<file>:<line>: …". */
export function parseCsvRecords(text: string, file = "<csv>"): CsvRecord[] {
  return parseCsv(text, file).rows.map((row) => {
    const out: CsvRecord = {};
    for (const [k, v] of Object.entries(row)) out[k] = v === undefined || v === null ? "" : csvText(String(v));
    return out;
  });
}

/** A file's text, or `undefined` when it does not exist (the optional outputs); other errors throw. */
export async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

/** All records of a CSV file; throws (with the file and line) when it is malformed or missing. */
export async function readCsv(file: string): Promise<CsvRecord[]> {
  return parseCsvRecords(await fs.readFile(file, "utf8"), file);
}

/** Like `readCsv`, but `undefined` when the file does not exist. */
export async function readCsvIfExists(file: string): Promise<CsvRecord[] | undefined> {
  const text = await readIfExists(file);
  return text === undefined ? undefined : parseCsvRecords(text, file);
}

/** A cell as a number; `undefined` for a blank or non-finite cell, so a skipped experiment's blanks are not 0. */
export function toNumber(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  const s = String(value).trim();
  if (s === "") return undefined;
  const n = Number(s);
  return Number.isFinite(n) ? n : undefined;
}
