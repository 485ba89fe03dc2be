/** One chat call per item (rewrites, translations) over a `withReplay` model: a rerun asks only for what is missing. */
import { DEFAULT_CONCURRENCY } from "../config";
import { GbrError } from "../util/errors";
import { untilFailure } from "../util/pool";
import { ChatError, type ChatModel, type ChatRequest, type ChatUsage } from "../models/chat";

export interface CachedCallOptions {
  /** Calls in flight at once (default 4). */
  concurrency?: number;
  /** Progress and fallback reports (default: silent). */
  log?: (msg: string) => void;
  /** Every item's outcome, reused or new, in item order; cost tables count reused usage too (same work). */
  onRecords?: (outcomes: CachedOutcome[]) => void;
}

/** `reused`: the answer came from the store, not a call made now. */
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
  model: string;
  replayed?: boolean;
  servedModel?: string;
  standIn?: boolean;
}

export interface CachedCallSpec<T extends { id: string }> {
  /** Names the batch in logs and errors, e.g. "reformulate sparse". */
  label: string;
  kind: string;
  request(item: T): ChatRequest;
  /** The item's text from an answer; `fallback` when it was empty after parsing and the input text is used. */
  parse(item: T, raw: string): { text: string; fallback?: boolean };
}

/** The parsed answer per item; on a failure those in flight finish (stored), then the error is raised. */
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
  log(`${spec.label}: ${items.length} item(s) through ${model.id}`);

  const done = new Map<string, CachedRecord>();
  let finished = 0;
  const call = async (i: number) => {
    const item = items[i];
    const res = await model.complete(requests.get(item.id)!);
    done.set(item.id, {
      id: item.id,
      kind: spec.kind,
      raw: res.raw,
      usage: res.usage,
      seconds: res.seconds,
      model: model.id,
      ...(res.replayed ? { replayed: true } : {}),
      ...(res.servedModel ? { servedModel: res.servedModel } : {}),
      ...(res.standIn ? { standIn: true } : {}),
    });
    finished++;
  };
  const failure = await untilFailure(items.length, Math.max(1, opts.concurrency ?? model.capacity ?? DEFAULT_CONCURRENCY.chat), call);
  if (failure) {
    const { error } = failure;
    const id = items[failure.index].id;
    const saved = `; ${finished} answer(s) done, rerun to continue`;
    const msg = `${spec.label}: ${id}: ${(error as Error)?.message ?? String(error)}${saved}`;
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
      return { record, request: requests.get(it.id)!, reused: record.replayed === true };
    }),
  );
  return texts;
}
