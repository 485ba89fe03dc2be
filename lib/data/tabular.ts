/** Row readers for the formats a dataset card may point at, keeping each row's line or row number for errors. */
import { promises as fs } from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { parquetReadObjects } from "hyparquet";
import type { Compressors } from "hyparquet";
import { parseJsonlLines, readUtf8 } from "./beir";
import { DataError, parsedOr } from "../util/errors";
import { parseCsv } from "../util/csv";

/** A row keyed by column: strings (csv), JSON values (jsonl, json), parquet values (INT64: number/string). */
export type Row = Record<string, unknown>;

/** Rows plus where each one sits in its file: row `i`'s 1-based line (csv, jsonl), and "line 12" or "row 3". */
export type Table = { file: string; rows: Row[]; lineOf(i: number): number | undefined; describe(i: number): string };

/** Reads a table (the formats a dataset card may name: csv, jsonl, json, parquet), keeping row positions. */
export async function readTable(file: string): Promise<Table> {
  switch (path.extname(file).slice(1).toLowerCase()) {
    case "csv": {
      const { rows, lines } = parseCsv(await readText(file), file);
      return table(file, rows, lines);
    }
    case "jsonl": {
      const records = parseJsonlLines((await readText(file)).split(/\r\n?|\n/), file);
      return table(file, records.map((r) => r.value), records.map((r) => r.line));
    }
    case "json":
      return table(file, parseJsonRows(await readText(file), file));
    case "parquet":
      return table(file, await readParquet(file));
    default:
      throw new DataError(`unsupported file type '${path.extname(file) || "(none)"}'; expected csv, jsonl, json or parquet`, file);
  }
}

function table(file: string, rows: Row[], lines?: number[]): Table {
  return { file, rows, lineOf: (i) => lines?.[i], describe: (i) => (lines ? `line ${lines[i]}` : `row ${i + 1}`) };
}

async function readText(file: string): Promise<string> {
  // Strict: a lenient decode would turn a Windows-1253 export's Greek into U+FFFD, ids included.
  const text = await readUtf8(file);
  // Spreadsheet exports of the card's csv files often start with a BOM; it is not data.
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** A json file is an array of row objects. */
function parseJsonRows(text: string, file: string): Row[] {
  const value: unknown = parsedOr(() => JSON.parse(text), (why) => new DataError(`malformed JSON (${why})`, file));
  if (!Array.isArray(value)) throw new DataError("expected a JSON array of rows", file);
  const bad = value.findIndex((r) => r === null || typeof r !== "object" || Array.isArray(r));
  if (bad >= 0) throw new DataError(`row ${bad + 1} is not a JSON object`, file);
  return value as Row[];
}

/** hyparquet decodes snappy itself, zlib gzip and brotli; ZSTD has no node 20 decoder and fails saying so. */
const COMPRESSORS: Compressors = {
  GZIP: (input) => new Uint8Array(zlib.gunzipSync(input)),
  BROTLI: (input) => new Uint8Array(zlib.brotliDecompressSync(input)),
};

async function readParquet(file: string): Promise<Row[]> {
  let rows: Record<string, unknown>[];
  try {
    // Whole-file read: files are a few MB, and ArrayBuffer is what hyparquet's CommonJS typings accept.
    const buf = await fs.readFile(file);
    const bytes = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer;
    rows = (await parquetReadObjects({ file: bytes, compressors: COMPRESSORS })) as Record<string, unknown>[];
  } catch (err) {
    throw new DataError(`cannot read parquet (${(err as Error).message})`, file);
  }
  return rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, plain(v)])));
}

/** INT64 columns decode as bigint, which JSON and string comparisons mishandle. */
function plain(v: unknown): unknown {
  if (typeof v === "bigint") {
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
  }
  return v;
}
