/**
 * LLM calls over many items that survive a crash: each finished answer is appended to a JSONL
 * file at once, a rerun reuses every answer made by an identical request (same prompt, input,
 * settings and model) and asks only for what is missing. Reformulation and translation run
 * their calls through it.
 */
import { DEFAULT_CONCURRENCY } from "../config";
import { createHash } from "node:crypto";
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import { GbrError } from "../util/errors";
import { ChatError, type ChatModel, type ChatRequest, type ChatResponse, type ChatUsage, type ParserName } from "./types";

/**
 * Options of every cached LLM batch (reformulation, translation).
 *
 * @example
 * const opts: CachedCallOptions = { outFile: "outputs/llm/sparse.jsonl", concurrency: 8, log: console.error };
 */
export interface CachedCallOptions {
  /** JSONL file: read first (unless resume is false), one line appended per finished item. */
  outFile?: string;
  /** Reuse the records already in outFile (default true); false starts the file afresh. */
  resume?: boolean;
  /** Calls in flight at once (default 4). */
  concurrency?: number;
  /** Progress and fallback reports (default: silent). */
  log?: (msg: string) => void;
  /**
   * Receives every item's outcome at the end, reused or new, in item order: the cost table counts
   * the usage recorded with reused answers too (a resumed run stands for the same work), and runs
   * record the parameters of the requests behind the answers.
   */
  onRecords?: (outcomes: CachedOutcome[]) => void;
}

/**
 * One item of a cached batch: its record, the request its answer belongs to (the stored answer
 * of a reused record was made by an identical request: its sha256 matched), and whether the
 * answer came from a saved file or the replay cache rather than a call made now.
 *
 * @example
 * opts.onRecords = (outcomes) => console.log(outcomes.filter((o) => o.reused).length, "reused");
 */
export interface CachedOutcome<R extends CachedRecord = CachedRecord> {
  record: R;
  request: ChatRequest;
  reused: boolean;
}

/**
 * Fields every cached record carries, whatever it holds.
 *
 * @example
 * const { records } = await readCacheFile(file);
 * const tokens = records.reduce((n, r) => n + (r as unknown as CachedRecord).usage.output, 0);
 */
export interface CachedRecord {
  id: string;
  /** The batch kind ("sparse"/"dense" for rewrites, "article"/"query" for translations). */
  kind: string;
  /** The answer exactly as the provider returned it (reasoning included), so parsing can be redone. */
  raw: string;
  usage: ChatUsage;
  seconds: number;
  /** True when the parsed answer was empty and the input text was used instead. */
  fallback?: boolean;
  /** ChatModel.id that answered. */
  model?: string;
  /** The answer came from the replay cache (recorded earlier), not from a call made for this record. */
  replayed?: boolean;
  /** The model the server said answered, when it said. */
  servedModel?: string;
  /** Answered by the project's test double: a stand-in. */
  standIn?: boolean;
  /** The parser that made the stored text (`parser` of the prompt set); the text is re-parsed from `raw` on reuse. */
  parser?: ParserName;
  /**
   * sha256 of the exact request (system, user, sampling settings). A record is reused only for
   * the same request, so a changed prompt set, query text or setting is asked again instead of
   * silently served from an older run.
   */
  requestSha256?: string;
}

/**
 * What a batch must say about itself to run through `runCachedCalls`.
 *
 * @example
 * const spec: CachedCallSpec<Query, CachedRecord & { answer: string }> = {
 *   label: "demo", kind: "demo", request: (q) => ({ system: "…", user: q.text }),
 *   toRecord: (q, res, base) => ({ ...base, answer: res.text }),
 * };
 */
export interface CachedCallSpec<T extends { id: string }, R extends CachedRecord> {
  /** Names the batch in logs and errors, e.g. "reformulate sparse". */
  label: string;
  kind: string;
  request(item: T): ChatRequest;
  /** Is a stored line complete enough to reuse (e.g. has its text field)? Default: yes. */
  isValid?(rec: Record<string, unknown>): boolean;
  /** Builds the record to store from the model's answer (parsing, fallback). */
  toRecord(item: T, res: ChatResponse, base: Omit<CachedRecord, "fallback">): R;
}

/**
 * sha256 of a chat request, fields in a fixed order so the hash does not depend on how the
 * object was built.
 *
 * @example
 * requestSha256({ system: "s", user: "u", temperature: 0.2 }) === requestSha256({ temperature: 0.2, user: "u", system: "s" }); // true
 */
export function requestSha256(req: ChatRequest): string {
  const canonical = JSON.stringify([
    req.system,
    req.user,
    req.maxTokens ?? null,
    req.temperature ?? null,
    req.topP ?? null,
    req.reasoningEffort ?? null,
    req.seed ?? null,
  ]);
  return createHash("sha256").update(canonical, "utf8").digest("hex");
}

/**
 * Reads a JSONL cache, tolerating what a crash can leave: a torn last line, blank lines. Lines
 * that are not JSON objects with a string `id` are skipped and counted (a cache is worth
 * reading even if one line is damaged; the item is simply asked again).
 *
 * @example
 * const { records, skipped } = await readCacheFile("outputs/sparse-rewrites.jsonl");
 */
export async function readCacheFile(file: string): Promise<{ records: Record<string, unknown>[]; skipped: number }> {
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { records: [], skipped: 0 };
    throw err;
  }
  const records: Record<string, unknown>[] = [];
  let skipped = 0;
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const v = JSON.parse(line) as unknown;
      if (v && typeof v === "object" && !Array.isArray(v) && typeof (v as { id?: unknown }).id === "string") {
        records.push(v as Record<string, unknown>);
      } else skipped++;
    } catch {
      skipped++;
    }
  }
  return { records, skipped };
}

/**
 * An appender for one JSONL file: each record becomes one `appendFile` call of one complete line
 * (O_APPEND, a single write), and calls are chained so concurrent workers never interleave. A
 * file whose last line was torn by a crash gets a newline first, so the next record starts on a
 * line of its own.
 */
async function openAppender(file: string, fresh: boolean): Promise<(rec: object) => Promise<void>> {
  await fs.mkdir(path.dirname(path.resolve(file)), { recursive: true });
  if (fresh) await fs.writeFile(file, "");
  else if (existsSync(file)) {
    const handle = await fs.open(file, "r");
    try {
      const { size } = await handle.stat();
      if (size > 0) {
        const last = Buffer.alloc(1);
        await handle.read(last, 0, 1, size - 1);
        if (last[0] !== 0x0a) await fs.appendFile(file, "\n");
      }
    } finally {
      await handle.close();
    }
  }
  let chain: Promise<void> = Promise.resolve();
  return (rec: object) => {
    const line = JSON.stringify(rec) + "\n";
    chain = chain.then(() => fs.appendFile(file, line, "utf8"));
    return chain;
  };
}

/**
 * Runs one chat call per item through `model`, resumably: records already in `opts.outFile`
 * for the same id, kind, request and model are reused; every new answer is appended as soon as
 * it arrives. On a failed call no new calls start, the calls in flight finish and are saved, and
 * the error is raised (so a rerun continues where this one stopped). Returns the records by id,
 * in the order of `items`.
 *
 * @example
 * const recs = await runCachedCalls(queries, model, { outFile: "x.jsonl" }, {
 *   label: "demo", kind: "demo",
 *   request: (q) => ({ system: "…", user: q.text }),
 *   toRecord: (q, res, base) => ({ ...base, answer: res.text }),
 * });
 */
export async function runCachedCalls<T extends { id: string }, R extends CachedRecord>(
  items: readonly T[],
  model: ChatModel,
  opts: CachedCallOptions,
  spec: CachedCallSpec<T, R>,
): Promise<Map<string, R>> {
  const log = opts.log ?? (() => {});
  const seen = new Set<string>();
  for (const it of items) {
    if (seen.has(it.id)) throw new Error(`${spec.label}: duplicate id '${it.id}'`);
    seen.add(it.id);
  }
  const requests = new Map(items.map((it) => [it.id, spec.request(it)] as const));
  const shas = new Map([...requests].map(([id, req]) => [id, requestSha256(req)] as const));

  const done = new Map<string, R>();
  const fromFile = new Set<string>();
  const resume = opts.resume ?? true;
  if (opts.outFile && resume) {
    const { records, skipped } = await readCacheFile(opts.outFile);
    const mismatched = new Set<string>();
    for (const rec of records) {
      const id = rec.id as string;
      if (!requests.has(id) || rec.kind !== spec.kind) continue; // another batch's line
      if (spec.isValid && !spec.isValid(rec)) continue; // damaged: ask again
      const fits =
        (rec.requestSha256 === undefined || rec.requestSha256 === shas.get(id)) &&
        (rec.model === undefined || rec.model === model.id);
      if (fits) done.set(id, rec as unknown as R); // the last fitting line wins
      else mismatched.add(id);
    }
    const stale = [...mismatched].filter((id) => !done.has(id)).length;
    if (skipped > 0) log(`${spec.label}: ${skipped} unreadable line(s) in ${opts.outFile} ignored`);
    if (stale > 0) log(`${spec.label}: ${stale} cached record(s) were made with another prompt, input or model; asking again`);
    for (const id of done.keys()) fromFile.add(id);
  }
  const todo = items.filter((it) => !done.has(it.id));
  log(`${spec.label}: ${items.length} item(s), ${items.length - todo.length} cached, ${todo.length} to ask ${model.id}`);

  const append = opts.outFile ? await openAppender(opts.outFile, !resume) : undefined;
  let failure: { error: unknown; id: string } | undefined;
  let next = 0;
  let finished = 0;
  const worker = async () => {
    while (failure === undefined && next < todo.length) {
      const item = todo[next++];
      const req = requests.get(item.id)!;
      try {
        const res = await model.complete(req);
        const rec = spec.toRecord(item, res, {
          id: item.id,
          kind: spec.kind,
          raw: res.raw,
          usage: res.usage,
          seconds: res.seconds,
          model: model.id,
          requestSha256: shas.get(item.id),
          ...(res.replayed ? { replayed: true } : {}),
          ...(res.servedModel ? { servedModel: res.servedModel } : {}),
          ...(res.standIn ? { standIn: true } : {}),
        });
        if (rec.fallback) log(`${spec.label}: ${item.id}: the answer was empty after parsing; using the original text`);
        if (append) await append(rec);
        done.set(item.id, rec);
        finished++;
      } catch (error) {
        if (failure === undefined) failure = { error, id: item.id };
      }
    }
  };
  const width = Math.max(1, Math.min(opts.concurrency ?? model.capacity ?? DEFAULT_CONCURRENCY.chat, todo.length));
  await Promise.all(Array.from({ length: width }, worker));
  if (failure !== undefined) {
    const { error, id } = failure;
    const saved = opts.outFile ? `; ${finished} new answer(s) saved in ${opts.outFile}, rerun to continue` : "";
    const msg = `${spec.label}: ${id}: ${(error as Error)?.message ?? String(error)}${saved}`;
    // Keep the error's family: a ChatError its code (callers switch on it), any GbrError its
    // code and whether it means "cannot run here" (an offline replay miss is skipped, not
    // failed); anything else (a full disk, a bug) stays a plain Error, with the same context.
    if (error instanceof ChatError) throw new ChatError(msg, error.code, { cause: error, unavailable: error.unavailable, hint: error.hint });
    if (error instanceof GbrError) throw new GbrError(msg, error.code, { cause: error, unavailable: error.unavailable, hint: error.hint });
    throw new Error(msg, { cause: error });
  }
  const fallbacks = [...done.values()].filter((r) => r.fallback).length;
  if (fallbacks > 0) log(`${spec.label}: ${fallbacks} item(s) fell back to the original text (empty answers)`);
  const result = new Map(items.map((it) => [it.id, done.get(it.id)!] as const));
  opts.onRecords?.(
    items.map((it) => {
      const record = result.get(it.id)!;
      return { record, request: requests.get(it.id)!, reused: fromFile.has(it.id) || record.replayed === true };
    }),
  );
  return result;
}
