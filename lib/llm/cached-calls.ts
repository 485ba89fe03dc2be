/** One chat call per item (rewrites, translations) over a `withReplay` model: a rerun asks only for what is missing. */
import { DEFAULT_CONCURRENCY } from "../config";
import { promises as fs } from "node:fs";
import { GbrError } from "../util/errors";
import { untilFailure } from "../util/pool";
import { digestOf } from "../util/safe-files";
import { ChatError, type ChatModel, type ChatRequest, type ChatResponse, type ChatUsage } from "../models/chat";
import type { ParserName } from "./prompts";

export interface CachedCallOptions {
  /** A v0.8 per-item result file (JSONL): records there for the same request and model are reused. */
  legacyFile?: string;
  /** Calls in flight at once (default 4). */
  concurrency?: number;
  /** Progress and fallback reports (default: silent). */
  log?: (msg: string) => void;
  /** Every item's outcome, reused or new, in item order; cost tables count reused usage too (same work). */
  onRecords?: (outcomes: CachedOutcome[]) => void;
}

/** `reused`: the answer came from the store or a v0.8 result file, not a call made now. */
export interface CachedOutcome<R extends CachedRecord = CachedRecord> {
  record: R;
  request: ChatRequest;
  reused: boolean;
}

export interface CachedRecord {
  id: string;
  /** The batch kind ("sparse"/"dense" for rewrites, "article"/"query" for translations). */
  kind: string;
  /** The answer exactly as returned (reasoning included), so parsing can be redone. */
  raw: string;
  usage: ChatUsage;
  seconds: number;
  /** True when the parsed answer was empty and the input text was used instead. */
  fallback?: boolean;
  /** ChatModel.id that answered. */
  model?: string;
  replayed?: boolean;
  servedModel?: string;
  /** Answered by the project's test double. */
  standIn?: boolean;
  /** The prompt set's parser that made the stored text; re-parsed from `raw` on reuse. */
  parser?: ParserName;
  /** sha256 of the exact request: a v0.8 record is reused only for the same prompt, text and settings. */
  requestSha256?: string;
}

export interface CachedCallSpec<T extends { id: string }, R extends CachedRecord> {
  /** Names the batch in logs and errors, e.g. "reformulate sparse". */
  label: string;
  kind: string;
  request(item: T): ChatRequest;
  /** Is a v0.8 line complete enough to reuse (e.g. has its text field)? Default: yes. */
  isValid?(rec: Record<string, unknown>): boolean;
  /** Builds the record to store from the model's answer (parsing, fallback). */
  toRecord(item: T, res: ChatResponse, base: Omit<CachedRecord, "fallback">): R;
}

/** sha256 of a chat request, fields in a fixed order so the hash does not depend on how the object was built. */
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
  return digestOf(canonical);
}

/** Reads a v0.8 result file; torn, blank or invalid lines (not UTF-8 JSON with a string `id`) are skipped. */
export async function readCacheFile(file: string): Promise<{ records: Record<string, unknown>[]; skipped: number }> {
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { records: [], skipped: 0 };
    throw err;
  }
  const utf8 = new TextDecoder("utf-8", { fatal: true });
  const records: Record<string, unknown>[] = [];
  let skipped = 0;
  let start = 0;
  while (start < bytes.length) {
    const nl = bytes.indexOf(0x0a, start);
    const end = nl < 0 ? bytes.length : nl;
    const raw = bytes.subarray(start, end);
    start = end + 1;
    if (raw.toString("latin1").trim() === "") continue;
    try {
      const v = JSON.parse(utf8.decode(raw)) as unknown;
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
 * One call per item; v0.8 records for the same id, kind, request and model are reused. On a failure no new calls
 * start, those in flight finish (stored), and the error is raised, so a rerun continues where this one stopped.
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
  if (opts.legacyFile) {
    const { records, skipped } = await readCacheFile(opts.legacyFile);
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
    if (skipped > 0) log(`${spec.label}: ${skipped} unreadable line(s) in ${opts.legacyFile} ignored`);
    if (stale > 0) log(`${spec.label}: ${stale} record(s) of ${opts.legacyFile} were made with another prompt, input or model; asking again`);
    for (const id of done.keys()) fromFile.add(id);
  }
  const todo = items.filter((it) => !done.has(it.id));
  log(`${spec.label}: ${items.length} item(s)${done.size ? `, ${done.size} from v0.8 results` : ""}, ${todo.length} through ${model.id}`);

  let finished = 0;
  const call = async (i: number) => {
    const item = todo[i];
    const req = requests.get(item.id)!;
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
    done.set(item.id, rec);
    finished++;
  };
  const failure = await untilFailure(todo.length, Math.max(1, opts.concurrency ?? model.capacity ?? DEFAULT_CONCURRENCY.chat), call);
  if (failure) {
    const { error } = failure;
    const id = todo[failure.index].id;
    const saved = `; ${finished} answer(s) done, rerun to continue`;
    const msg = `${spec.label}: ${id}: ${(error as Error)?.message ?? String(error)}${saved}`;
    // Keep the error's family and code: callers switch on it, and an offline replay miss stays skipped, not failed.
    const keep = { cause: error, unavailable: error instanceof GbrError && error.unavailable, hint: (error as GbrError).hint, brief: (error as GbrError).brief };
    if (error instanceof ChatError) throw new ChatError(msg, error.code, keep);
    if (error instanceof GbrError) throw new GbrError(msg, error.code, keep);
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
