/** CSV both ways: read via csv-parse with checks and line numbers; `gbr reproduce`'s tables written and read back. */
import { promises as fs } from "node:fs";
import { CsvError, parse } from "csv-parse/sync";
import { DataError } from "./errors";
import { unlessMissing } from "./safe-files";

export type CsvRow = Record<string, string>;

/** A row of any of our tables: a CSV row's text, or a DataFrame row's values. */
export type RowLike = Readonly<Record<string, unknown>>;

type SourceRecord = { fields: string[]; line: number };

const LINE_BREAK = /\r\n|\r|\n/g;

function readRecords(text: string, file: string): SourceRecord[] {
  // Start lines are counted here (csv-parse 7.0.3's info.lines counts a quoted CRLF twice); its blank count is right.
  const records: SourceRecord[] = [];
  let next = 1;
  let blanksSeen = 0;
  const startOf = (blanksNow: number) => next + (blanksNow - blanksSeen);
  try {
    parse(text, {
      bom: true,
      // A fixed list: csv-parse's detection locks onto the first line end and would read a later bare LF as text.
      record_delimiter: ["\r\n", "\n", "\r"],
      relax_quotes: true,
      // Field counts are checked below, with this module's wording and line.
      relax_column_count: true,
      skip_empty_lines: true,
      on_record: (fields: string[], info) => {
        const line = startOf(info.empty_lines);
        records.push({ fields, line });
        // The line breaks inside its quoted fields (joined by NUL, so a CR ending one and a LF starting the next stay two).
        next = line + (fields.join("\0").match(LINE_BREAK)?.length ?? 0) + 1;
        blanksSeen = info.empty_lines;
        return fields;
      },
    });
  } catch (err) {
    if (!(err instanceof CsvError)) throw err;
    const blanks = typeof err.empty_lines === "number" ? err.empty_lines : blanksSeen;
    throw new DataError(csvProblem(err), file, startOf(blanks));
  }
  return records;
}

/** csv-parse's own "at line N" would be the drifting count. */
function csvProblem(err: CsvError): string {
  if (err.code !== "CSV_QUOTE_NOT_CLOSED") return `malformed csv record (${err.message.replace(/\s*\bat line \d+\b/g, "")})`;
  return "unterminated quoted field (the record starting on this line opens a quote that the file never closes)";
}

/**
 * RFC 4180 csv, rows keyed by the trimmed header, each with its start line; duplicate headers and wrong field counts
 * are errors, blank lines skipped, stray quotes (`5" screen`) kept literally as Python's csv module reads them.
 */
export function parseCsv(text: string, file = "<csv>"): { rows: CsvRow[]; lines: number[] } {
  const records = readRecords(text, file);
  if (records.length === 0) return { rows: [], lines: [] };
  const header = records[0].fields.map((h) => h.trim());
  const dup = header.find((h, i) => header.indexOf(h) !== i);
  if (dup !== undefined) throw new DataError(`duplicate column '${dup}' in the header`, file, records[0].line);
  const rows: CsvRow[] = [];
  const lines: number[] = [];
  for (let r = 1; r < records.length; r++) {
    const { fields: f, line: at } = records[r];
    if (f.length !== header.length) {
      throw new DataError(`expected ${header.length} fields (as in the header), found ${f.length}`, file, at);
    }
    rows.push(Object.fromEntries(header.map((h, k) => [h, f[k]])));
    lines.push(at);
  }
  return { rows, lines };
}

// What a spreadsheet evaluates at a cell's start (a formula, or a tab or CR before one); a ' before them was written here.
const FORMULA_START = /^'*[=+\-@\t\r]/;

/** A CSV field, quoted when needed; text a spreadsheet would evaluate gets a leading `'` (`csvText` takes it off). */
export function csvField(value: unknown): string {
  const raw = value === undefined || value === null ? "" : String(value);
  const s = typeof value !== "number" && FORMULA_START.test(raw) && !Number.isFinite(Number(raw)) ? `'${raw}` : raw;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** A cell `csvField` wrote, as it was given: `csvText("'=1+1")` is "=1+1", `csvText("'plain")` stays. */
export function csvText(cell: string): string {
  return cell.startsWith("'") && FORMULA_START.test(cell) ? cell.slice(1) : cell;
}

export function toCsv(header: readonly string[], rows: readonly (readonly unknown[])[]): string {
  return [header.map(csvField).join(","), ...rows.map((r) => r.map(csvField).join(","))].join("\n") + "\n";
}

/** Records from CSV text as `toCsv` was given them (see `csvText`); a leading BOM is ignored, a malformed record throws "<file>:<line>: …". */
export function parseCsvRecords(text: string, file = "<csv>"): CsvRow[] {
  return parseCsv(text, file).rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, csvText(v)])));
}

/** A file's text, or `undefined` when it does not exist (the optional outputs); other errors throw. */
export function readIfExists(file: string): Promise<string | undefined> {
  return unlessMissing(fs.readFile(file, "utf8"));
}

/** All records of a CSV file, `undefined` when it does not exist; throws (with the file and line) when it is malformed. */
export async function readCsvIfExists(file: string): Promise<CsvRow[] | undefined> {
  const text = await readIfExists(file);
  return text === undefined ? undefined : parseCsvRecords(text, file);
}

/** A cell as a number; `undefined` for a blank or non-finite cell, so a skipped experiment's blanks are not 0. */
export function toNumber(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  const s = typeof value === "number" ? value : String(value).trim();
  const n = s === "" ? NaN : Number(s);
  return Number.isFinite(n) ? n : undefined;
}
