/** One chat call per item (rewrites, translations) over a `withReplay` model: a rerun asks only for what is missing. */
import { DEFAULT_CONCURRENCY } from "../config";
import { promises as fs } from "node:fs";
import { GbrError } from "../util/errors";
import { untilFailure } from "../util/pool";
import { digestOf } from "../util/safe-files";
import { ChatError, type ChatModel, type ChatRequest, type ChatUsage } from "../models/chat";

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
export interface CachedOutcome {
  record: CachedRecord;
  request: ChatRequest;
  reused: boolean;
}

export interface CachedRecord {
  id: string;
  /** The batch kind ("sparse"/"dense" for rewrites, "article"/"query" for translations). */
  kind: string;
  /** The answer exactly as returned (reasoning included): parsed again on every use. */
  raw: string;
  usage: ChatUsage;
  seconds: number;
  /** True when the parsed answer was empty and the input text was used instead. */
  fallback?: boolean;
  /** ChatModel.id that answered. */
  model?: string;
  replayed?: boolean;
  servedModel?: string;
  standIn?: boolean;
  /** sha256 of the exact request: a v0.8 record is reused only for the same prompt, text and settings. */
  requestSha256?: string;
}

export interface CachedCallSpec<T extends { id: string }> {
  /** Names the batch in logs and errors, e.g. "reformulate sparse". */
  label: string;
  kind: string;
  request(item: T): ChatRequest;
  /** The item's text from an answer; `fallback` when it was empty after parsing and the input text is used. */
  parse(item: T, raw: string): { text: string; fallback?: boolean };
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

/** Reads a v0.8 result file; torn, blank or invalid lines (not JSON with a string `id`) are skipped. */
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
      const v = JSON.parse(line) as { id?: unknown } | null;
      if (typeof v?.id === "string") {
        records.push(v as Record<string, unknown>);
        continue;
      }
    } catch {
      // a torn line: asked again
    }
    skipped++;
  }
  return { records, skipped };
}

/**
 * The parsed answer per item, in item order; v0.8 records for the same id, kind, request and model are reused. On a
 * failure no new calls start, those in flight finish (stored), and the error is raised, so a rerun continues.
 */
export async function runCachedCalls<T extends { id: string }>(
  items: readonly T[],
  model: ChatModel,
  opts: CachedCallOptions,
  spec: CachedCallSpec<T>,
): Promise<Map<string, string>> {
  const log = opts.log ?? (() => {});
  const seen = new Set<string>();
  for (const it of items) {
    if (seen.has(it.id)) throw new Error(`${spec.label}: duplicate id '${it.id}'`);
    seen.add(it.id);
  }
  const requests = new Map(items.map((it) => [it.id, spec.request(it)] as const));
  const shas = new Map([...requests].map(([id, req]) => [id, requestSha256(req)] as const));

  const done = new Map<string, CachedRecord>();
  if (opts.legacyFile) {
    const { records, skipped } = await readCacheFile(opts.legacyFile);
    const mismatched = new Set<string>();
    for (const rec of records) {
      const id = rec.id as string;
      // Another batch's line, or a damaged one (asked again).
      if (!requests.has(id) || rec.kind !== spec.kind || typeof rec.raw !== "string") continue;
      const fits =
        (rec.requestSha256 === undefined || rec.requestSha256 === shas.get(id)) &&
        (rec.model === undefined || rec.model === model.id);
      if (fits) done.set(id, rec as unknown as CachedRecord); // the last fitting line wins
      else mismatched.add(id);
    }
    const stale = [...mismatched].filter((id) => !done.has(id)).length;
    if (skipped > 0) log(`${spec.label}: ${skipped} unreadable line(s) in ${opts.legacyFile} ignored`);
    if (stale > 0) log(`${spec.label}: ${stale} record(s) of ${opts.legacyFile} were made with another prompt, input or model; asking again`);
  }
  const fromFile = new Set(done.keys());
  const todo = items.filter((it) => !done.has(it.id));
  log(`${spec.label}: ${items.length} item(s)${done.size ? `, ${done.size} from v0.8 results` : ""}, ${todo.length} through ${model.id}`);

  let finished = 0;
  const call = async (i: number) => {
    const item = todo[i];
    const res = await model.complete(requests.get(item.id)!);
    done.set(item.id, {
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
    finished++;
  };
  const failure = await untilFailure(todo.length, Math.max(1, opts.concurrency ?? model.capacity ?? DEFAULT_CONCURRENCY.chat), call);
  if (failure) {
    const { error } = failure;
    const id = todo[failure.index].id;
    const msg = `${spec.label}: ${id}: ${(error as Error)?.message ?? String(error)}; ${finished} answer(s) done, rerun to continue`;
    // Keep the error's family and code: callers switch on it, and an offline replay miss stays skipped, not failed.
    const keep = { cause: error, unavailable: error instanceof GbrError && error.unavailable, hint: (error as GbrError).hint, brief: (error as GbrError).brief };
    if (error instanceof ChatError) throw new ChatError(msg, error.code, keep);
    if (error instanceof GbrError) throw new GbrError(msg, error.code, keep);
    throw new Error(msg, { cause: error });
  }
  const texts = new Map<string, string>();
  let fallbacks = 0;
  for (const item of items) {
    const record = done.get(item.id)!;
    const { text, fallback } = spec.parse(item, record.raw);
    if (fallback) {
      record.fallback = true;
      fallbacks++;
      log(`${spec.label}: ${item.id}: the answer was empty after parsing; using the original text`);
    }
    texts.set(item.id, text);
  }
  if (fallbacks > 0) log(`${spec.label}: ${fallbacks} item(s) fell back to the original text (empty answers)`);
  opts.onRecords?.(
    items.map((it) => {
      const record = done.get(it.id)!;
      return { record, request: requests.get(it.id)!, reused: fromFile.has(it.id) || record.replayed === true };
    }),
  );
  return texts;
}
