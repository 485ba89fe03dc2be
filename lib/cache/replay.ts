/**
 * The replay cache every chat (LLM) call goes through. Chat calls are the slow, paid and
 * non-deterministic part of the paper's methods (reformulation, translation, REACT-BM25), so each
 * completed call is recorded once, content-addressed by everything that determines its answer,
 * and a later run with the same inputs reads the recorded answer instead of calling the provider.
 * The file is also the unit of sharing: give another researcher the records of a run
 * (`exportReplay`) and they reproduce its numbers bit for bit with `GBR_REPLAY_FILE` pointing at it
 * and no provider at all (`GBR_OFFLINE=1`). Embedding vectors are cached elsewhere (the LanceDB
 * vector store, see lib/dense/vector-store.ts).
 *
 * ## File format
 * UTF-8 JSON lines, append-only, one completed call per line, fields always in this order:
 * ```
 * {"key":"<64 hex>","provider":"openai","model":"openai/gpt-oss-120b",
 *  "request":{"system":"…","user":"…","maxTokens":42000,"temperature":0.2,"topP":1,"reasoningEffort":"low","seed":7},
 *  "sample":0,"response":{"text":"…","raw":"…","usage":{"input":812,"output":95},"seconds":3.41},
 *  "at":"2026-03-01T10:00:00.000Z"}
 * ```
 * `provider`/`model` are the chat model's id split at its first ":" (an id without ":" gives
 * provider ""). `request` holds only the ChatRequest fields listed (unset ones omitted), copied
 * field by field, so nothing else a caller attaches to a request object (an API key, a client)
 * can reach the file; providers keep their credentials in their clients, never in requests.
 * Later lines win: re-recording a key (mode "refresh") appends a newer line, and `get` returns it.
 *
 * ## Key
 * `key = sha256_hex(JSON.stringify([id, system, user, maxTokens, temperature, topP,
 * reasoningEffort, seed, sample]))` where `id` is the model id ("<provider>:<model>"), an unset
 * optional parameter is `null`, and `sample` defaults to 0 (see `replayKey`). JSON.stringify of
 * an array of strings, finite numbers and null is canonical (fixed order, shortest round-trip
 * number form), so the same call always gives the same key and a change of any of them gives
 * another.
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
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { ChatError, type ChatModel, type ChatRequest, type ChatResponse } from "../llm/types";
import { dataDir } from "../paths";
import { splitModelId } from "../util/model-id";

/** The recorded part of a ChatResponse (everything but `replayed`). */
export interface ReplayResponse {
  text: string;
  raw: string;
  usage: { input: number; output: number };
  /** Wall time of the original call. */
  seconds: number;
}

/**
 * One completed call, exactly one line of the replay file.
 *
 * @example
 * const r: ReplayRecord = {
 *   key: replayKey("openai:gpt-oss-120b", req, 0), provider: "openai", model: "gpt-oss-120b",
 *   request: req, sample: 0, response: { text: "…", raw: "…", usage: { input: 10, output: 5 }, seconds: 1.2 },
 *   at: new Date().toISOString(),
 * };
 */
export interface ReplayRecord {
  /** `replayKey(provider:model, request, sample)`; checked on `put` and on open. */
  key: string;
  provider: string;
  model: string;
  request: ChatRequest;
  /** Sample index (0 unless the caller draws several samples of the same request). */
  sample: number;
  response: ReplayResponse;
  /** ISO date of the call. */
  at: string;
}

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
}

/** Options of `openReplayCache`. */
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
  const env = process.env.GBR_REPLAY_FILE;
  return path.resolve(env && env.trim() !== "" ? env : path.join(dataDir(), "replay", "llm-calls.jsonl"));
}

/**
 * The content address of one call (see the module comment for the exact definition).
 * Throws on a non-finite numeric parameter (NaN would otherwise hash like "unset") or a sample
 * that is not a non-negative integer.
 *
 * @example
 * replayKey("openai:openai/gpt-oss-120b", { system: "S", user: "U", temperature: 0.2, topP: 1 }, 0);
 * // sha256 of '["openai:openai/gpt-oss-120b","S","U",null,0.2,1,null,null,0]'
 */
export function replayKey(modelId: string, req: ChatRequest, sample = 0): string {
  checkSample(sample);
  const num = (name: string, v: number | undefined) => {
    if (v === undefined || v === null) return null;
    if (typeof v !== "number" || !Number.isFinite(v)) throw new TypeError(`replayKey: ${name} must be a finite number, got ${String(v)}`);
    return v;
  };
  const parts = [
    modelId,
    req.system,
    req.user,
    num("maxTokens", req.maxTokens),
    num("temperature", req.temperature),
    num("topP", req.topP),
    req.reasoningEffort ?? null,
    num("seed", req.seed),
    sample,
  ];
  return createHash("sha256").update(JSON.stringify(parts), "utf8").digest("hex");
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
  await cache.reload();
  return cache;
}

/** What `withReplay` does with the cache. */
export type ReplayMode = "use" | "refresh" | "off";

/** Options of `withReplay`. */
export interface WithReplayOptions {
  /**
   * "use" (default): answer from the cache when the call is recorded, else call and record.
   * "refresh" (the CLI's `--no-cache`): always call and record; the new record supersedes the old.
   * "off": neither read nor write the cache.
   */
  mode?: ReplayMode;
  /**
   * Sample index, part of the key. For `--repeat N --seed S`, repetition i (0-based) wraps the
   * model with `sample: i` and sends `seed: S + i`, so the N samples are cached separately even
   * with a provider that ignores seeds.
   */
  sample?: number;
  /**
   * Never call the wrapped model: a call not in the cache throws `ReplayMissError`.
   * Default: env `GBR_OFFLINE` is "1" or "true" (read at each call).
   */
  offline?: boolean;
}

/** A ChatModel wrapped by `withReplay`, which also knows the keys it served or recorded. */
export interface ReplayingModel extends ChatModel {
  /** Keys of every call made through this wrapper (not in mode "off"): what `exportReplay` needs to share one run. */
  readonly keys: ReadonlySet<string>;
}

/**
 * Raised in offline mode when a call has no recorded answer; names the key and the file so the
 * missing record can be found (or the run repeated online). A ChatError with code
 * "NOT_CONFIGURED", so callers that skip experiments without a provider treat it alike.
 *
 * @example
 * try { await model.complete(req); } catch (e) { if (e instanceof ReplayMissError) console.log(e.key, e.file); }
 */
export class ReplayMissError extends ChatError {
  constructor(
    readonly key: string,
    readonly file: string,
    modelId: string,
    why = "no recorded answer",
  ) {
    super(
      `offline (GBR_OFFLINE): ${why} for a call to ${modelId}, replay key ${key}, in ${file}; ` +
        `point GBR_REPLAY_FILE at a file that holds it, or unset GBR_OFFLINE to call the provider`,
      "NOT_CONFIGURED",
    );
    this.name = "ReplayMissError";
  }
}

/**
 * Wraps a chat model so every call goes through the replay cache (see `WithReplayOptions` for the
 * modes). A replayed answer has `replayed: true` and the original call's text, raw text, usage
 * and seconds; a fresh answer is recorded (fsync'd) before it is returned, and is returned exactly
 * as recorded. In mode "use", identical calls in flight at once share one provider call (the
 * others get it with `replayed: true`, so costs are not counted twice).
 *
 * @example
 * const cache = await openReplayCache();
 * const llm = withReplay(chatModel, cache, { mode: flags.noCache ? "refresh" : "use" });
 * const r = await llm.complete({ system, user, temperature: 0.2, topP: 1 }); // second run: r.replayed === true
 * await exportReplay(cache, "outputs/run-42.replay.jsonl", llm.keys);
 */
export function withReplay(model: ChatModel, cache: ReplayCache, opts: WithReplayOptions = {}): ReplayingModel {
  const mode = opts.mode ?? "use";
  const sample = opts.sample ?? 0;
  checkSample(sample);
  if (mode !== "use" && mode !== "refresh" && mode !== "off") throw new TypeError(`withReplay: unknown mode '${String(mode)}'`);
  const keys = new Set<string>();
  const { provider, model: modelName } = splitModelId(model.id);

  const callAndStore = async (key: string, req: ChatRequest): Promise<ReplayResponse> => {
    const res = await model.complete(req);
    const response = copyResponse(res);
    await cache.put({ key, provider, model: modelName, request: pickRequest(req), sample, response, at: new Date().toISOString() });
    return response;
  };

  return {
    id: model.id,
    endpoint: model.endpoint,
    keys,
    async complete(req: ChatRequest): Promise<ChatResponse> {
      const offline = opts.offline ?? offlineFromEnv();
      const key = replayKey(model.id, req, sample);
      if (mode === "off") {
        if (offline) throw new ReplayMissError(key, cache.file, model.id, "the replay cache is off");
        return model.complete(req);
      }
      keys.add(key);
      const flights = inflightFor(cache);
      if (mode === "use") {
        // Checked synchronously before any await, with the in-flight table, so two identical calls
        // can never both miss: a record is indexed before its flight is removed.
        if (cache.has(key)) {
          const hit = await cache.get(key);
          if (hit) return { ...copyResponse(hit.response), replayed: true };
        }
        const flying = flights.get(key);
        if (flying) return { ...copyResponse(await flying), replayed: true };
      }
      if (offline) throw new ReplayMissError(key, cache.file, model.id, mode === "refresh" ? "refresh (--no-cache) needs the provider" : "no recorded answer");
      const flight = callAndStore(key, req);
      if (mode === "use") flights.set(key, flight);
      try {
        return { ...copyResponse(await flight), replayed: false };
      } finally {
        if (flights.get(key) === flight) flights.delete(key);
      }
    },
  };
}

/** Which records `exportReplay` writes: a set of keys (e.g. `model.keys`) or a predicate. */
export type ReplayFilter = Iterable<string> | ((record: ReplayRecord) => boolean);

/**
 * Writes a standalone replay file of the newest record of each selected key (all when no filter),
 * in the cache's file order. Another researcher points `GBR_REPLAY_FILE` at it (with
 * `GBR_OFFLINE=1` to be sure nothing is called) and gets the same answers, hence the same numbers.
 * The file is written to a temporary name, fsync'd and renamed, so a crash never leaves half an
 * export under the real name. `missing` lists requested keys the cache does not hold (an export
 * with missing keys cannot reproduce the run by itself).
 *
 * @example
 * const { records, missing } = await exportReplay(cache, "outputs/reform-bm25.replay.jsonl", llm.keys);
 * const greekOnly = await exportReplay(cache, "x.jsonl", (r) => r.model === "openai/gpt-oss-120b");
 */
export async function exportReplay(
  cache: ReplayCache,
  outFile: string,
  filter?: ReplayFilter,
): Promise<{ file: string; records: number; missing: string[] }> {
  const out = path.resolve(outFile);
  if (out === path.resolve(cache.file)) throw new Error(`exportReplay: ${out} is the cache's own file; export to another file`);
  const wanted = filter === undefined || typeof filter === "function" ? undefined : new Set(filter);
  const keep = typeof filter === "function" ? filter : (r: ReplayRecord) => wanted === undefined || wanted.has(r.key);
  await fs.promises.mkdir(path.dirname(out), { recursive: true });
  const tmp = `${out}.${process.pid}.${Date.now()}.tmp`;
  const fh = await fs.promises.open(tmp, "w");
  let records = 0;
  const found = new Set<string>();
  try {
    for await (const r of cache.records()) {
      if (!keep(r)) continue;
      await writeAll(fh, serialise(r));
      found.add(r.key);
      records++;
    }
    await fh.sync();
  } catch (err) {
    await fh.close();
    await fs.promises.rm(tmp, { force: true });
    throw err;
  }
  await fh.close();
  await fs.promises.rename(tmp, out);
  await syncDir(path.dirname(out));
  const missing = wanted ? [...wanted].filter((k) => !found.has(k)) : [];
  return { file: out, records, missing };
}

/**
 * Imports another replay file's records into `into`, skipping keys `into` already holds (its own
 * answers are never replaced). Each record's key is checked against its content; damaged lines
 * of the source are reported through `log` and skipped. The source file is only read.
 *
 * @example
 * const { added, skipped } = await mergeReplay(await openReplayCache(), "colleague.replay.jsonl");
 */
export async function mergeReplay(
  into: ReplayCache,
  fromFile: string,
  opts: OpenReplayOptions = {},
): Promise<{ added: number; skipped: number }> {
  const from = path.resolve(fromFile);
  if (from === path.resolve(into.file)) throw new Error(`mergeReplay: ${from} is the target cache's own file`);
  // A missing source is a mistake (a typo in a path), not an empty cache.
  await fs.promises.access(from, fs.constants.R_OK);
  const src = await openReplayCache(from, opts);
  let added = 0;
  let skipped = 0;
  for await (const r of src.records()) {
    if (into.has(r.key)) {
      skipped++;
      continue;
    }
    await into.put(r);
    added++;
  }
  return { added, skipped };
}

// ---------------------------------------------------------------------------------------------

/** Byte position of one record's line (without its newline). */
interface Loc {
  offset: number;
  length: number;
}

const NEWLINE = 0x0a;
/** Every line this module writes starts so (key first); used to recover a record glued to a torn line. */
const LINE_START = Buffer.from('{"key":"', "utf8");

class FileReplayCache implements ReplayCache {
  private index = new Map<string, Loc>();
  /** Serialises appends and reloads: the tail of the promise chain. */
  private queue: Promise<unknown> = Promise.resolve();
  /** An incomplete last line seen on open: cut it off before the next append if the file is unchanged. */
  private partial: { end: number; size: number } | undefined;

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
      line = serialise(record);
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

  /** Rebuilds the index from the file (one streaming pass). */
  async reload(): Promise<void> {
    const index = new Map<string, Loc>();
    this.partial = undefined;
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

  private serialised<T>(op: () => Promise<T>): Promise<T> {
    const p = this.queue.then(op);
    this.queue = p.catch(() => undefined);
    return p;
  }

  private async append(key: string, line: Buffer): Promise<void> {
    await fs.promises.mkdir(path.dirname(this.file), { recursive: true });
    // "a+": O_APPEND (every write lands at the end, whole) and readable (to check the last byte).
    const fh = await fs.promises.open(this.file, "a+");
    let created = false;
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
      this.index.set(key, { offset: size + (buf.length - line.length), length: line.length - 1 });
    } finally {
      await fh.close();
    }
    // A new file's name is durable only once its folder is synced.
    if (created) await syncDir(path.dirname(this.file));
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

/** Cache -> calls in flight, shared by every wrapper over the same cache. */
const inflight = new WeakMap<ReplayCache, Map<string, Promise<ReplayResponse>>>();
function inflightFor(cache: ReplayCache): Map<string, Promise<ReplayResponse>> {
  let m = inflight.get(cache);
  if (!m) inflight.set(cache, (m = new Map()));
  return m;
}

function offlineFromEnv(): boolean {
  const v = (process.env.GBR_OFFLINE ?? "").trim().toLowerCase();
  return v === "1" || v === "true" || v === "yes";
}

function checkSample(sample: number): void {
  if (!Number.isSafeInteger(sample) || sample < 0) throw new TypeError(`replay: sample must be a non-negative integer, got ${String(sample)}`);
}

function joinModelId(provider: string, model: string): string {
  return provider === "" ? model : `${provider}:${model}`;
}

/** The ChatRequest fields, copied one by one in a fixed order (and nothing else: no stray secrets). */
function pickRequest(req: ChatRequest): ChatRequest {
  const out: ChatRequest = { system: req.system, user: req.user };
  if (req.maxTokens !== undefined) out.maxTokens = req.maxTokens;
  if (req.temperature !== undefined) out.temperature = req.temperature;
  if (req.topP !== undefined) out.topP = req.topP;
  if (req.reasoningEffort !== undefined) out.reasoningEffort = req.reasoningEffort;
  if (req.seed !== undefined) out.seed = req.seed;
  return out;
}

function copyResponse(r: ReplayResponse): ReplayResponse {
  return { text: r.text, raw: r.raw, usage: { input: r.usage?.input, output: r.usage?.output }, seconds: r.seconds };
}

/** What is wrong with a would-be record, or undefined when it is a valid one. */
function recordProblem(v: unknown): string | undefined {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return "not a JSON object";
  const r = v as Record<string, unknown>;
  if (typeof r.key !== "string" || !/^[0-9a-f]{64}$/.test(r.key)) return "no valid key";
  if (typeof r.provider !== "string" || typeof r.model !== "string") return "no provider/model";
  if (typeof r.sample !== "number" || !Number.isSafeInteger(r.sample) || r.sample < 0) return "no valid sample";
  if (typeof r.at !== "string") return "no date";
  const q = r.request as Record<string, unknown> | undefined;
  if (typeof q !== "object" || q === null || typeof q.system !== "string" || typeof q.user !== "string") return "no valid request";
  for (const f of ["maxTokens", "temperature", "topP", "seed"] as const) {
    if (q[f] !== undefined && (typeof q[f] !== "number" || !Number.isFinite(q[f]))) return `request.${f} is not a finite number`;
  }
  if (q.reasoningEffort !== undefined && q.reasoningEffort !== "low" && q.reasoningEffort !== "medium" && q.reasoningEffort !== "high") {
    return "request.reasoningEffort is not low/medium/high";
  }
  const s = r.response as Record<string, unknown> | undefined;
  if (typeof s !== "object" || s === null || typeof s.text !== "string" || typeof s.raw !== "string") return "no valid response text";
  const u = s.usage as Record<string, unknown> | undefined;
  if (typeof u !== "object" || u === null || typeof u.input !== "number" || typeof u.output !== "number") return "no valid response usage";
  if (typeof s.seconds !== "number" || !Number.isFinite(s.seconds)) return "no valid response seconds";
  const expected = replayKey(joinModelId(r.provider, r.model), q as unknown as ChatRequest, r.sample);
  if (expected !== r.key) return `key ${r.key} does not match the recorded call (expected ${expected})`;
  return undefined;
}

/** The record's line, newline included; throws on an invalid record or a key that does not match. */
function serialise(record: ReplayRecord): Buffer {
  const clean: ReplayRecord = {
    key: record.key,
    provider: record.provider,
    model: record.model,
    request: pickRequest(record.request ?? ({} as ChatRequest)),
    sample: record.sample,
    response: copyResponse(record.response ?? ({} as ReplayResponse)),
    at: record.at,
  };
  const problem = recordProblem(clean);
  if (problem) throw new TypeError(`replay cache: refusing to store an invalid record: ${problem}`);
  return Buffer.from(`${JSON.stringify(clean)}\n`, "utf8");
}

function parseRecord(buf: Buffer): ReplayRecord | string {
  let v: unknown;
  try {
    v = JSON.parse(buf.toString("utf8"));
  } catch {
    return "not valid JSON";
  }
  return recordProblem(v) ?? (v as ReplayRecord);
}

/** A line's record (at `shift` bytes into the line when a torn prefix was glued before it), or why not. */
function decodeLine(line: Buffer): { record: ReplayRecord; shift: number } | { problem: string } {
  const r = parseRecord(line);
  if (typeof r !== "string") return { record: r, shift: 0 };
  // Inside JSON strings a quote is escaped, so `{"key":"` only occurs where a record starts.
  const at = line.lastIndexOf(LINE_START);
  if (at > 0) {
    const again = parseRecord(line.subarray(at));
    if (typeof again !== "string") return { record: again, shift: at };
  }
  return { problem: r };
}

function isBlank(line: Buffer): boolean {
  for (const b of line) if (b !== 0x20 && b !== 0x09 && b !== 0x0d) return false;
  return true;
}

/**
 * The file's lines as byte buffers with their start offsets, streamed; the last one has
 * `complete: false` when the file does not end with a newline. Splitting bytes on 0x0A is safe in
 * UTF-8 (the byte never occurs inside a multi-byte character).
 */
async function* readLines(file: string): AsyncGenerator<{ line: Buffer; start: number; complete: boolean }> {
  let pieces: Buffer[] = [];
  let start = 0;
  let pos = 0;
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    let from = 0;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, from);
      if (nl < 0) break;
      const part = chunk.subarray(from, nl);
      const line = pieces.length ? Buffer.concat([...pieces, part]) : part;
      pieces = [];
      yield { line, start, complete: true };
      start = pos + nl + 1;
      from = nl + 1;
    }
    if (from < chunk.length) pieces.push(chunk.subarray(from));
    pos += chunk.length;
  }
  if (pieces.length) yield { line: Buffer.concat(pieces), start, complete: false };
}

async function writeAll(fh: fs.promises.FileHandle, buf: Buffer): Promise<void> {
  // One write(2) for the whole line in practice (regular files); the loop only guards short writes.
  let done = 0;
  while (done < buf.length) {
    const { bytesWritten } = await fh.write(buf, done, buf.length - done);
    done += bytesWritten;
  }
}

async function syncDir(dir: string): Promise<void> {
  // Not supported everywhere (Windows cannot open folders): best effort.
  try {
    const d = await fs.promises.open(dir, "r");
    try {
      await d.sync();
    } finally {
      await d.close();
    }
  } catch {
    /* best effort */
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.promises.stat(file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw err;
  }
}
