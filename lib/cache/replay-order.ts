/**
 * The replay cache's lines in an order that does not depend on concurrency. Calls answered
 * side by side are appended as they finish (each at once, so a crash loses nothing), so the
 * order of a run's lines depends on timing. When the run is over, the lines this process appended
 * — if they lie together at the end of the file, no other process's between them — are put in
 * the order of their keys, in place: the same bytes, permuted, so the file keeps its size and
 * every other line its position. A run at 1 request in flight and one at 64 thus write the same
 * lines in the same order (their `at` and `seconds` aside, which record when and how long).
 *
 * Crash safety: the ordered bytes are first written in full to `<file>.reorder` (a header line
 * with the region's offset and length, then the bytes) and synced; only then are they copied over
 * the region. Opening a cache finishes a copy a crash interrupted (the journal is complete) or
 * drops a journal a crash cut short (the file was not touched yet).
 */
import fs from "node:fs";
import path from "node:path";
import { withFileLock } from "./file-lock";
import { NEWLINE, readLines, syncDir, writeAll } from "./line-file";

/** The run of lines this process appended to one file, end to end. */
interface Tail {
  start: number;
  end: number;
  lines: number;
  /** Another writer's bytes fell between ours: the order is left as it is. */
  broken: boolean;
}

const tails = new Map<string, Tail>();

/**
 * Notes one append of this process: `at` is where its bytes landed, `bytes` how many, `alone`
 * whether the file grew by exactly those bytes (no other process wrote meanwhile).
 *
 * @example
 * noteAppend("/data/replay/llm-calls.jsonl", 1024, 812, true);
 */
export function noteAppend(file: string, at: number, bytes: number, alone: boolean): void {
  const t = tails.get(file);
  if (!t) {
    tails.set(file, { start: at, end: at + bytes, lines: 1, broken: !alone });
    return;
  }
  if (!alone || at !== t.end) t.broken = true;
  t.end = Math.max(t.end, at + bytes);
  t.lines++;
}

const journalOf = (file: string): string => `${file}.reorder`;
// Changed after every completed ordering, so that a reader can tell one happened while it read.
const generationOf = (file: string): string => `${file}.order-gen`;

/**
 * Which ordering the file is at: changes each time lines are ordered in place. An index built at
 * one generation has offsets that may fall mid-line at another, so it must be built again.
 *
 * @example
 * if (orderGeneration(file) !== indexedAt) await cache.reload();
 */
export function orderGeneration(file: string): string {
  return generation(file);
}

function generation(file: string): string {
  try {
    return fs.readFileSync(generationOf(file), "utf8");
  } catch {
    return "";
  }
}
const lockOf = (file: string): string => path.join(`${file}.locks`, "reorder.lock");

// "key" is the first field of every record (replay-record.ts writes them in a fixed order).
const KEY_AT = '{"key":"'.length;

function keyOf(line: Buffer): string {
  return line.subarray(KEY_AT, KEY_AT + 64).toString("latin1");
}

/**
 * Puts the lines this process appended to each replay file in key order (see the module
 * comment); returns how many lines were ordered per file. A file whose appended lines are
 * interleaved with another process's, or that changed size since, is left as it is.
 *
 * @example
 * await orderReplayTails(); // at the end of `gbr reproduce`
 */
export async function orderReplayTails(log: (m: string) => void = () => {}): Promise<Map<string, number>> {
  const done = new Map<string, number>();
  for (const [file, t] of [...tails]) {
    tails.delete(file);
    if (t.broken || t.lines < 2) continue;
    const n = await withFileLock(lockOf(file), () => orderRegion(file, t.start, t.end), { what: `ordering the lines of ${file}`, log });
    if (n > 0) done.set(file, n);
  }
  return done;
}

async function orderRegion(file: string, start: number, end: number): Promise<number> {
  let size: number;
  try {
    size = (await fs.promises.stat(file)).size;
  } catch {
    return 0;
  }
  if (size < end) return 0; // shortened since (repaired or replaced): not ours to touch
  const lines: { key: string; offset: number; length: number }[] = [];
  for await (const { line, start: at, complete } of readLines(file, start)) {
    if (at >= end) break;
    if (!complete || at + line.length + 1 > end) return 0;
    lines.push({ key: keyOf(line), offset: at, length: line.length + 1 });
  }
  const sorted = lines.map((l, i) => ({ ...l, i })).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.i - b.i));
  if (sorted.every((l, i) => l.i === i)) return 0; // already in order

  // 1. The journal: header, then the region's bytes in the new order; synced before the file is touched.
  const journal = journalOf(file);
  const src = await fs.promises.open(file, "r");
  const jh = await fs.promises.open(journal, "w");
  try {
    await writeAll(jh, Buffer.from(JSON.stringify({ start, length: end - start }) + "\n"));
    for (const l of sorted) {
      const buf = Buffer.alloc(l.length);
      await src.read(buf, 0, l.length, l.offset);
      await writeAll(jh, buf);
    }
    await jh.sync();
  } finally {
    await jh.close();
    await src.close();
  }
  await syncDir(path.dirname(file));
  // 2. The copy over the region, then the journal goes.
  await copyJournal(file, journal);
  return lines.length;
}

/** Copies a complete journal over its region of `file`, syncs, and removes the journal. */
async function copyJournal(file: string, journal: string): Promise<boolean> {
  const jh = await fs.promises.open(journal, "r");
  let header: { start: number; length: number } | undefined;
  let bodyAt = 0;
  try {
    const head = Buffer.alloc(256);
    const { bytesRead } = await jh.read(head, 0, head.length, 0);
    const nl = head.subarray(0, bytesRead).indexOf(NEWLINE);
    if (nl > 0) {
      try {
        const h = JSON.parse(head.subarray(0, nl).toString("utf8")) as { start?: unknown; length?: unknown };
        if (typeof h.start === "number" && typeof h.length === "number") header = { start: h.start, length: h.length };
      } catch {
        header = undefined;
      }
    }
    bodyAt = nl + 1;
    const { size } = await jh.stat();
    const fileSize = (await fs.promises.stat(file)).size;
    // A journal cut short by a crash: the file was not touched yet; drop it.
    if (!header || size - bodyAt !== header.length || fileSize < header.start + header.length) {
      await jh.close();
      await fs.promises.rm(journal, { force: true });
      return false;
    }
    const fh = await fs.promises.open(file, "r+");
    try {
      const chunk = Buffer.alloc(1 << 20);
      for (let done = 0; done < header.length; ) {
        const { bytesRead } = await jh.read(chunk, 0, Math.min(chunk.length, header.length - done), bodyAt + done);
        if (bytesRead === 0) break;
        let w = 0;
        while (w < bytesRead) w += (await fh.write(chunk, w, bytesRead - w, header.start + done + w)).bytesWritten;
        done += bytesRead;
      }
      await fh.sync();
    } finally {
      await fh.close();
    }
  } finally {
    await jh.close().catch(() => undefined);
  }
  await fs.promises.writeFile(generationOf(file), `${Date.now()}-${process.pid}-${Math.random().toString(36).slice(2)}`);
  await fs.promises.rm(journal, { force: true });
  await syncDir(path.dirname(file));
  return true;
}

/**
 * Runs `read` (a pass over the replay file) so that it never builds on a region another process
 * is ordering: it waits while an ordering is under way, and runs again when one began or ended
 * during the pass (seen by the journal or the generation file). With `onTorn`, a torn pass is not
 * repeated: `onTorn()` answers instead (the caller starts over some other way) and the result is
 * false; otherwise the result is `read`'s.
 *
 * @example
 * await readSteadily(file, () => indexWholeFile());
 */
export async function readSteadily<T>(file: string, read: () => Promise<T>, onTorn?: () => void): Promise<T | false> {
  const journal = journalOf(file);
  for (let attempt = 0; ; attempt++) {
    if (fs.existsSync(journal)) await waitForOrdering(file);
    const before = generation(file);
    const value = await read();
    if (!fs.existsSync(journal) && generation(file) === before) return value;
    if (onTorn) {
      await waitForOrdering(file);
      onTorn();
      return false;
    }
    if (attempt >= 5) return value; // an ordering every pass: give up waiting, the key checks still guard reads
  }
}

/** Waits for an ordering of `file` under way in another process to end (its lock is released). */
async function waitForOrdering(file: string): Promise<void> {
  await withFileLock(lockOf(file), async () => undefined, { what: `ordering the lines of ${file}` });
}

/**
 * Finishes an ordering a crash interrupted: a complete journal is copied over its region, an
 * incomplete one dropped. Called when a replay cache is opened.
 *
 * @example
 * await recoverReplayOrder("/data/replay/llm-calls.jsonl");
 */
export async function recoverReplayOrder(file: string, log: (m: string) => void = () => {}): Promise<void> {
  const journal = journalOf(file);
  if (!fs.existsSync(journal)) return;
  await withFileLock(
    lockOf(file),
    async () => {
      if (!fs.existsSync(journal)) return;
      const copied = await copyJournal(file, journal);
      log(copied ? `${file}: finished ordering its last run's lines (interrupted before)` : `${file}: dropped an unfinished ordering journal (the file was not touched)`);
    },
    { what: `ordering the lines of ${file}`, log },
  );
}
