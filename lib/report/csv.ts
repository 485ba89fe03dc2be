/**
 * Reading back the CSV files `gbr reproduce` writes (summary.csv, per-query.csv, table1.csv,
 * cost.csv, …) for the report. Parsing is `parseCsv` of lib/data/tabular.ts (csv-parse
 * underneath, with the same header, field-count and line-number rules as the Hub's csv files,
 * so both kinds of error read "<file>:<line>: …"); this module only adds the conveniences the
 * report needs: string-valued records, a missing-file answer for the optional outputs, and
 * number coercion that treats an empty cell as "no value" rather than 0.
 */
import { promises as fs } from "node:fs";
import { parseCsv } from "../util/csv";

/** One CSV record keyed by header name; every value is the cell's text. */
export type CsvRecord = Record<string, string>;

/**
 * Records from CSV text (header line first). A leading byte-order mark is ignored; a malformed
 * record throws a DataError whose message starts "<file>:<line>: ".
 */
export function parseCsvRecords(text: string, file = "<csv>"): CsvRecord[] {
  return parseCsv(text, file).rows.map((row) => {
    const out: CsvRecord = {};
    for (const [k, v] of Object.entries(row)) out[k] = v === undefined || v === null ? "" : String(v);
    return out;
  });
}

/**
 * All records of a CSV file; throws (with the file and line) when it is malformed or missing.
 */
export async function readCsv(file: string): Promise<CsvRecord[]> {
  return parseCsvRecords(await fs.readFile(file, "utf8"), file);
}

/**
 * Like `readCsv`, but `undefined` when the file does not exist (the optional outputs:
 * cost.csv, react-rounds.csv). Other errors (unreadable, malformed) still throw.
 */
export async function readCsvIfExists(file: string): Promise<CsvRecord[] | undefined> {
  try {
    return await readCsv(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

/**
 * A cell as a number: `undefined` for an empty cell, `null`, `undefined` or text that is not a
 * finite number (so a skipped experiment's blank metrics are not mistaken for 0).
 */
export function toNumber(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  const s = String(value).trim();
  if (s === "") return undefined;
  const n = Number(s);
  return Number.isFinite(n) ? n : undefined;
}
