/** A store kind as one JSONL file and back: export to share a run's records, import (v0.8's replay file too). */
import fs from "node:fs";
import path from "node:path";
import { decodeRecord, type RecordKind, type Store } from "./store";
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

/**
 * Adds the records of a JSONL file the store lacks (never replacing its own), checked as stored ones: damaged lines
 * skipped, a torn last line ignored, a record glued after one recovered, the last of a key winning (as v0.8's).
 */
export async function importFile<T extends { key: string }>(
  store: Store,
  kind: RecordKind<T>,
  file: string,
  opts: { log?: (m: string) => void; convert?: (lines: AsyncIterable<unknown>) => AsyncIterable<T> } = {},
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
  if (opts.convert) {
    for await (const r of opts.convert(jsonLines(file, log, () => damaged++))) await take(r);
  } else {
    let lineNo = 0;
    for await (const { line, complete } of readLines(file)) {
      lineNo++;
      if (!complete) {
        log(`${file}: ignoring an incomplete last line (a write cut short)`);
        break;
      }
      if (isBlank(line)) continue;
      const r = decodeLine(kind, line);
      if (typeof r === "string") {
        damaged++;
        log(`${file}: skipping line ${lineNo} (${r})`);
      } else await take(r);
    }
  }
  return { added, skipped, damaged };
}

/** Every line a record writer starts with (key first); where a record glued to a torn line begins. */
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

/** The JSON values of a file's complete lines (strict UTF-8); others reported and counted. */
async function* jsonLines(file: string, log: (m: string) => void, bad: () => void): AsyncGenerator<unknown> {
  const utf8 = new TextDecoder("utf-8", { fatal: true });
  let lineNo = 0;
  for await (const { line, complete } of readLines(file)) {
    lineNo++;
    if (!complete) break;
    if (isBlank(line)) continue;
    try {
      yield JSON.parse(utf8.decode(line));
    } catch {
      bad();
      log(`${file}: skipping line ${lineNo} (not valid UTF-8 JSON)`);
    }
  }
}

/** A file's lines as bytes, streamed (0x0A is never inside a UTF-8 character); an unended last line: `complete: false`. */
export async function* readLines(file: string): AsyncGenerator<{ line: Buffer; complete: boolean }> {
  let pieces: Buffer[] = [];
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    let from = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, from);
      if (nl < 0) break;
      const part = chunk.subarray(from, nl);
      yield { line: pieces.length ? Buffer.concat([...pieces, part]) : part, complete: true };
      pieces = [];
      from = nl + 1;
    }
    if (from < chunk.length) pieces.push(chunk.subarray(from));
  }
  if (pieces.length) yield { line: Buffer.concat(pieces), complete: false };
}

function isBlank(line: Buffer): boolean {
  for (const b of line) if (b !== 0x20 && b !== 0x09 && b !== 0x0d) return false;
  return true;
}
