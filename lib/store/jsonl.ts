/** A store kind as one JSONL file and back: export to share a run's records, import (v0.8's replay file too). */
import path from "node:path";
import { linePieces, MAX_LINE_BYTES } from "../util/line-pieces";
import { decodeRecord, jsonOf, type RecordKind, type Store } from "./store";
import { writeAtomically } from "../util/safe-files";

/** The records of `kind` (or those `keep` selects) as JSONL in key order (same records, same bytes), atomically. */
export async function exportKind<T extends { key: string }>(
  store: Store,
  kind: RecordKind<T>,
  outFile: string,
  keep: (record: T) => boolean = () => true,
): Promise<{ file: string; records: number }> {
  const out = path.resolve(outFile);
  let records = 0;
  await writeAtomically(
    out,
    async (fh) => {
      for await (const r of store.records(kind)) {
        if (!keep(r)) continue;
        await fh.write(`${JSON.stringify(r)}\n`);
        records++;
      }
    },
    path.dirname(out),
    "--file",
  );
  return { file: out, records };
}

/** Adds the JSONL records the store lacks, checked: damaged lines skipped, a torn last line ignored, a key's last wins. */
export async function importFile<T extends { key: string }>(
  store: Store,
  kind: RecordKind<T>,
  file: string,
  opts: { log?: (m: string) => void; convert?: (lines: AsyncIterable<unknown>) => AsyncIterable<T>; maxLineBytes?: number } = {},
): Promise<{ added: number; skipped: number; damaged: number }> {
  const log = opts.log ?? (() => {});
  let damaged = 0;
  let added = 0;
  let skipped = 0;
  // Keys this import wrote: a later line of one of them is a newer answer (v0.8's refresh) and replaces it.
  const mine = new Set<string>();
  const take = async (r: T) => {
    if (!mine.has(r.key) && store.has(kind, r.key) && (await store.get(kind, r.key))) {
      skipped++;
      return;
    }
    await store.put(kind, r);
    if (!mine.has(r.key)) added++;
    mine.add(r.key);
  };
  const lines = recordLines(file, log, opts.maxLineBytes);
  const bad = (lineNo: number, why: string) => (damaged++, log(`${file}: skipping line ${lineNo} (${why})`));
  if (opts.convert) {
    for await (const r of opts.convert(jsonValues(lines, bad))) await take(r);
  } else {
    for await (const { line, lineNo } of lines) {
      const r = decodeLine(kind, line);
      if (typeof r === "string") bad(lineNo, r);
      else await take(r);
    }
  }
  return { added, skipped, damaged };
}

/** How every record line starts (key first): where a record glued to a torn line begins. */
const LINE_START = Buffer.from('{"key":"', "utf8");

function decodeLine<T extends { key: string }>(kind: RecordKind<T>, line: Buffer): T | string {
  const r = decodeRecord(kind, line);
  if (typeof r !== "string") return r;
  // Inside JSON strings a quote is escaped, so `{"key":"` only occurs where a record starts.
  const at = line.lastIndexOf(LINE_START);
  if (at > 0) {
    const again = decodeRecord(kind, line.subarray(at));
    if (typeof again !== "string") return again;
  }
  return r;
}

type Line = { line: Buffer; lineNo: number };

/** A file's complete, non-blank lines with their numbers. */
async function* recordLines(file: string, log: (m: string) => void, maxLineBytes?: number): AsyncGenerator<Line> {
  let lineNo = 0;
  for await (const { line, complete } of readLines(file, maxLineBytes)) {
    lineNo++;
    if (!complete) {
      log(`${file}: ignoring an incomplete last line (a write cut short)`);
      break;
    }
    if (!isBlank(line)) yield { line, lineNo };
  }
}

async function* jsonValues(lines: AsyncIterable<Line>, bad: (lineNo: number, why: string) => void): AsyncGenerator<unknown> {
  // Lines are within V8's string limit (readLines), so a decoder error is bad bytes.
  for await (const { line, lineNo } of lines) {
    const json = jsonOf(line);
    if (typeof json === "string") bad(lineNo, json);
    else yield json.value;
  }
}

/** A file's lines as bytes, streamed; an unended last line has `complete: false`; too long a line is a DataError. */
export async function* readLines(file: string, maxLineBytes = MAX_LINE_BYTES): AsyncGenerator<{ line: Buffer; complete: boolean }> {
  let lineNo = 1;
  for await (const piece of linePieces(file, { pieceBytes: 1 << 20, maxLineBytes, line: () => lineNo })) {
    let from = 0;
    for (let nl = 0; (nl = piece.indexOf(0x0a, from)) >= 0; from = nl + 1) {
      lineNo++;
      yield { line: piece.subarray(from, nl), complete: true };
    }
    if (from < piece.length) yield { line: piece.subarray(from), complete: false };
  }
}

function isBlank(line: Buffer): boolean {
  for (const b of line) if (b !== 0x20 && b !== 0x09 && b !== 0x0d) return false;
  return true;
}
