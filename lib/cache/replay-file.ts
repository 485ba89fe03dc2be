/**
 * An opened replay file: an in-memory index of its newest record per key, reads of single
 * records from disk, and durable appends (the record format is in replay-record.ts).
 *
 * ## Crash safety
 * A record is durable once its line, newline included, is on disk: each append is one `write` of
 * the whole line on a file opened with O_APPEND, then `fsync` (and, when the file was just
 * created, an fsync of its folder). A crash can therefore leave at most one incomplete line, at
 * the end; opening ignores it (reporting through `log`) and the next append first cuts it off, so
 * the file never holds a glued line from this process. Appends from one process are serialised
 * through a promise chain, so parallel calls never interleave. Another process appending to the
 * same file also lands whole lines (O_APPEND, one write each, on a local file system); if one of
 * them crashed mid-line and another appended after it, the glued line is recovered on open (the
 * intact record after the torn prefix is kept).
 *
 * Why open, write, fsync and close the file for every record instead of keeping a write stream:
 * a stream buffers and reports success before the data reaches the disk, and a long-lived handle
 * needs a lifecycle (close) every caller would have to get right; an LLM call takes seconds, the
 * extra open/close microseconds, so the simplest durable path wins.
 *
 * Memory: only an index key -> (byte offset, length) of the newest line per key is held; records
 * are read from disk when asked for, so a cache holding gigabytes of REACT prompts opens in one
 * streaming pass and costs a few megabytes.
 *
 * ## Sharing a file between processes
 * Two processes asking the same new call must not both pay for it. `withKeyLock` holds a lock per
 * key (a directory under `<file>.locks/`, see file-lock.ts) across the provider call and the
 * append; the waiting process then `refresh`es (indexes only the lines appended since it last
 * looked) and finds the answer. Locks are only taken for calls about to be made, so replaying a
 * read-only shared file still writes nothing.
 */
import fs from "node:fs";
import path from "node:path";
import { dataDir } from "../paths";
import { withFileLock } from "./file-lock";
import { exists, isBlank, NEWLINE, readLines, syncDir, writeAll } from "./line-file";
import { decodeLine, encodeRecord, parseRecord, type ReplayRecord } from "./replay-record";
import { noteAppend, orderGeneration, readSteadily, recoverReplayOrder } from "./replay-order";
import { readConfig } from "../config";

/**
 * An opened replay file: an index of its newest record per key, and appends to it.
 *
 * @example
 * const cache = await openReplayCache();
 * if (cache.has(key)) console.log((await cache.get(key))!.response.text);
 */
export interface ReplayCache {
  /** Absolute path of the JSONL file (it may not exist yet: it is created by the first put). */
  readonly file: string;
  /** Distinct keys recorded (a key recorded twice counts once). */
  readonly size: number;
  has(key: string): boolean;
  /** The newest record under `key`, read from disk, or undefined. */
  get(key: string): Promise<ReplayRecord | undefined>;
  /**
   * Appends a record (validated, key checked against its content) and resolves once it is on
   * disk (fsync). Concurrent puts are serialised.
   */
  put(record: ReplayRecord): Promise<void>;
  /** Every key's newest record, in file order, streamed from disk. */
  records(): AsyncGenerator<ReplayRecord>;
  /**
   * Indexes the lines other processes appended since this cache last read the file (the whole
   * file again if it shrank). Serialised with appends.
   *
   * @example
   * await cache.refresh();
   * cache.has(key); // true if another process recorded it meanwhile
   */
  refresh(): Promise<void>;
  /**
   * Runs `fn` holding the cross-process lock of one key (callers of this process take turns too),
   * so that of two processes asking the same new call only one makes it. The lock is taken over
   * from a process that died holding it once it is stale (`LOCK_STALE_MS`, 10 s).
   *
   * @example
   * const rec = await cache.withKeyLock(key, async () => {
   *   await cache.refresh();
   *   return (await cache.get(key)) ?? (await callAndRecord());
   * });
   */
  withKeyLock<T>(key: string, fn: () => Promise<T>): Promise<T>;
}

/**
 * Options of `openReplayCache`.
 *
 * @example
 * await openReplayCache("runs/replay.jsonl", { log: (m) => console.error(m) });
 */
export interface OpenReplayOptions {
  /** Where repairs and ignored lines are reported (default: a warning on stderr). */
  log?: (message: string) => void;
}

/**
 * The default replay file: `GBR_REPLAY_FILE` when set, else `<dataDir>/replay/llm-calls.jsonl`.
 * Read at call time so tests and scripts can redirect it.
 *
 * @example
 * process.env.GBR_REPLAY_FILE = "/tmp/shared-run.jsonl";
 * defaultReplayFile(); // "/tmp/shared-run.jsonl"
 */
export function defaultReplayFile(): string {
  return readConfig().replayFile ?? path.join(dataDir(), "replay", "llm-calls.jsonl");
}

/**
 * Opens (or prepares to create) a replay file and indexes it in one streaming pass. Never fails
 * on damaged content: an incomplete last line (a crash mid-write) or an unreadable line is
 * ignored and reported through `log`; the incomplete tail is cut off before the next append.
 * Opening never writes, so a read-only shared file can be replayed.
 *
 * @example
 * const cache = await openReplayCache();                            // GBR_REPLAY_FILE or data/replay/llm-calls.jsonl
 * const mine = await openReplayCache("runs/replay.jsonl", { log: console.error });
 */
export async function openReplayCache(file?: string, opts: OpenReplayOptions = {}): Promise<ReplayCache> {
  const log = opts.log ?? ((m: string) => process.stderr.write(`replay cache: ${m}\n`));
  const cache = new FileReplayCache(file === undefined ? defaultReplayFile() : path.resolve(file), log);
  await recoverReplayOrder(cache.file, log);
  await cache.reload();
  return cache;
}

/** Per file, the last append of this process in flight (appends to one file take turns). */
const appendTurns = new Map<string, Promise<unknown>>();

/** Byte position of one record's line (without its newline). */
interface Loc {
  offset: number;
  length: number;
}

class FileReplayCache implements ReplayCache {
  private index = new Map<string, Loc>();
  /** Serialises appends and reloads: the tail of the promise chain. */
  private queue: Promise<unknown> = Promise.resolve();
  /** An incomplete last line seen on open: cut it off before the next append if the file is unchanged. */
  private partial: { end: number; size: number } | undefined;
  /** `orderGeneration` of the file when the index was built (replay-order.ts). */
  private generation = "";
  /** Byte offset up to which the file's lines are indexed (a line start): where `refresh` goes on. */
  private indexedEnd = 0;
  /** Whether a wait for another process's call was reported (once per cache is enough). */
  private toldWaiting = false;

  constructor(
    readonly file: string,
    private readonly log: (message: string) => void,
  ) {}

  get size(): number {
    return this.index.size;
  }

  has(key: string): boolean {
    return this.index.has(key);
  }

  async get(key: string): Promise<ReplayRecord | undefined> {
    const loc = this.index.get(key);
    if (!loc) return undefined;
    const rec = await this.readAt(loc);
    if (rec?.key === key) return rec;
    // The file changed under us (another process rewrote it): index it again, once.
    await this.serialised(() => this.reload());
    const again = this.index.get(key);
    if (!again) return undefined;
    const rec2 = await this.readAt(again);
    if (rec2?.key === key) return rec2;
    throw new Error(`replay cache ${this.file}: the record of key ${key} could not be read back`);
  }

  put(record: ReplayRecord): Promise<void> {
    // Validated and serialised now (a bad record is rejected at once, without waiting for the
    // queue), but always reported through the promise, never as a synchronous throw.
    let line: Buffer;
    try {
      line = encodeRecord(record);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.serialised(() => this.append(record.key, line));
  }

  async *records(): AsyncGenerator<ReplayRecord> {
    if (!(await exists(this.file))) return;
    for await (const { line, start, complete } of readLines(this.file)) {
      if (!complete) continue;
      const d = decodeLine(line);
      if (!("record" in d)) continue;
      // Only the newest line per key (the one the index points at).
      if (this.index.get(d.record.key)?.offset === start + d.shift) yield d.record;
    }
  }

  refresh(): Promise<void> {
    return this.serialised(() => this.catchUp());
  }

  withKeyLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    return withFileLock(path.join(`${this.file}.locks`, `${key}.lock`), fn, {
      what: `the call with replay key ${key.slice(0, 12)}… of ${this.file}`,
      log: this.log,
      // Two cache objects of this process (one per LLM retriever) may ask the same key: they too
      // take turns, and the second finds the first's record.
      inProcess: "exclusive",
      onWait: (m) => {
        if (this.toldWaiting) return;
        this.toldWaiting = true;
        this.log(`${m} (its answer will be replayed here; further waits are not reported)`);
      },
    });
  }

  /** Rebuilds the index from the file (one streaming pass). */
  async reload(): Promise<void> {
    // Read while no other process is ordering its lines in place (replay-order.ts): an index
    // built from a half-copied region would miss keys and make calls again.
    await readSteadily(this.file, () => this.reloadNow());
  }

  private async reloadNow(): Promise<void> {
    this.generation = orderGeneration(this.file);
    const index = new Map<string, Loc>();
    this.partial = undefined;
    this.indexedEnd = 0;
    if (!(await exists(this.file))) {
      this.index = index;
      return;
    }
    let lineNo = 0;
    for await (const { line, start, complete } of readLines(this.file)) {
      lineNo++;
      if (!complete) {
        this.partial = { end: start, size: start + line.length };
        this.log(
          `${this.file}: ignoring an incomplete last line (${line.length} bytes without a newline, a write cut short by a crash); ` +
            `it will be repaired (truncated) before the next record is appended`,
        );
        break;
      }
      this.indexedEnd = start + line.length + 1;
      if (isBlank(line)) continue;
      const d = decodeLine(line);
      if ("record" in d) {
        if (d.shift > 0) this.log(`${this.file}: line ${lineNo} is a torn write followed by a complete record; kept the record`);
        index.set(d.record.key, { offset: start + d.shift, length: line.length - d.shift });
      } else {
        this.log(`${this.file}: ignoring line ${lineNo} (${d.problem})`);
      }
    }
    this.index = index;
  }

  /** Indexes the complete lines after `indexedEnd`; an incomplete tail is left for a later pass. */
  private async catchUp(): Promise<void> {
    // As reload: if another process reordered lines meanwhile, what was read may be torn; the
    // whole file is indexed again once the ordering is over.
    const steady = await readSteadily(
      this.file,
      async () => {
        await this.catchUpNow();
        return true;
      },
      () => undefined,
    );
    if (steady === false) await this.reload();
  }

  private async catchUpNow(): Promise<void> {
    // Lines ordered in place since this index was built: its offsets, and where it stopped, may
    // now fall mid-line.
    if (orderGeneration(this.file) !== this.generation) return this.reloadNow();
    let size: number;
    try {
      size = (await fs.promises.stat(this.file)).size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      size = 0;
    }
    // Shorter than what was indexed: not an append (the file was replaced or repaired); start over.
    if (size < this.indexedEnd) return this.reloadNow();
    if (size === this.indexedEnd) return;
    for await (const { line, start, complete } of readLines(this.file, this.indexedEnd)) {
      // Most likely a line another process is writing right now: read it next time.
      if (!complete) break;
      this.indexedEnd = start + line.length + 1;
      if (isBlank(line)) continue;
      const d = decodeLine(line);
      if ("record" in d) this.index.set(d.record.key, { offset: start + d.shift, length: line.length - d.shift });
      else this.log(`${this.file}: ignoring the line at byte ${start} (${d.problem})`);
    }
  }

  private serialised<T>(op: () => Promise<T>): Promise<T> {
    const p = this.queue.then(op);
    this.queue = p.catch(() => undefined);
    return p;
  }

  private append(key: string, line: Buffer): Promise<void> {
    // Every cache object of this process on one file appends in turn (one retriever's object and
    // another's may write at once): so this process's lines lie end to end, for replay-order.ts.
    const prev = appendTurns.get(this.file) ?? Promise.resolve();
    const mine = prev.then(() => this.appendNow(key, line));
    const tail = mine.catch(() => undefined);
    appendTurns.set(this.file, tail);
    void tail.then(() => {
      if (appendTurns.get(this.file) === tail) appendTurns.delete(this.file);
    });
    return mine;
  }

  private async appendNow(key: string, line: Buffer): Promise<void> {
    await fs.promises.mkdir(path.dirname(this.file), { recursive: true });
    // "a+": O_APPEND (every write lands at the end, whole) and readable (to check the last byte).
    const fh = await fs.promises.open(this.file, "a+");
    let created = false;
    let alone = true;
    try {
      let { size } = await fh.stat();
      created = size === 0;
      let buf = line;
      if (this.partial && size === this.partial.size) {
        // The crash tail seen on open is still the end of the file: cut it off.
        await fh.truncate(this.partial.end);
        this.log(`${this.file}: repaired: cut the incomplete last line (${size - this.partial.end} bytes) before appending`);
        size = this.partial.end;
      } else if (size > 0) {
        // Someone else may have left a line without its newline since: start on a fresh line anyway.
        const last = Buffer.alloc(1);
        await fh.read(last, 0, 1, size - 1);
        if (last[0] !== NEWLINE) {
          buf = Buffer.concat([Buffer.from("\n"), line]);
          this.log(`${this.file}: the file did not end with a newline (a torn write by another process?); starting a fresh line`);
        }
      }
      this.partial = undefined;
      await writeAll(fh, buf);
      await fh.sync();
      // O_APPEND puts the line at the end as it is at the write, which is `size` only if no other
      // process appended since the stat: grown by exactly our bytes means that none did.
      alone = (await fh.stat()).size === size + buf.length;
      this.index.set(key, { offset: size + (buf.length - line.length), length: line.length - 1 });
      noteAppend(this.file, size + (buf.length - line.length), line.length, alone && buf.length === line.length);
      if (alone && size === this.indexedEnd) this.indexedEnd = size + buf.length;
    } finally {
      await fh.close();
    }
    // A new file's name is durable only once its folder is synced.
    if (created) await syncDir(path.dirname(this.file));
    // Lines of another process landed next to ours: index them all (ours too, at its true offset).
    if (!alone) await this.catchUp();
  }

  private async readAt(loc: Loc): Promise<ReplayRecord | undefined> {
    let fh: fs.promises.FileHandle;
    try {
      fh = await fs.promises.open(this.file, "r");
    } catch {
      return undefined;
    }
    try {
      const buf = Buffer.alloc(loc.length);
      let got = 0;
      while (got < loc.length) {
        const { bytesRead } = await fh.read(buf, got, loc.length - got, loc.offset + got);
        if (bytesRead === 0) return undefined;
        got += bytesRead;
      }
      const r = parseRecord(buf);
      return typeof r === "string" ? undefined : r;
    } finally {
      await fh.close();
    }
  }
}
