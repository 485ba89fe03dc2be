/** One chat call per item (rewrites, translations) over a `withReplay` model: a rerun asks only for what is missing. */
import { DEFAULT_CONCURRENCY } from "../config";
import { GbrError, isUnavailable } from "../util/errors";
import { untilFailure } from "../util/pool";
import { ChatError, type ChatModel, type ChatRequest, type ChatResponse } from "../models/chat";

export interface CachedCallOptions {
  concurrency?: number;
  log?: (msg: string) => void;
  /** Every item's outcome, reused or new, in item order; cost tables count reused usage too (same work). */
  onRecords?: (outcomes: CachedOutcome[]) => void;
}

/** One item's request and answer; `reused`: from the store, not a call made now; `fallback`: the item's text was used. */
export type CachedOutcome = { request: ChatRequest; response: ChatResponse; reused: boolean; fallback: boolean };

export interface CachedCallSpec<T extends { id: string; text: string }> {
  label: string;
  request(item: T): ChatRequest;
  parse(raw: string): string;
  /** An empty parsed answer stays empty (the authors' parsers); else the item's own text stands in. */
  keepEmpty: boolean;
}

/** `error` under `message`, its family and code kept: callers switch on them, and an offline replay miss stays skipped. */
export function relabel(error: unknown, message: string): Error {
  const keep = { cause: error, unavailable: isUnavailable(error), hint: (error as GbrError)?.hint, brief: (error as GbrError)?.brief };
  if (error instanceof ChatError) return new ChatError(message, error.code, keep);
  if (error instanceof GbrError) return new GbrError(message, error.code, keep);
  return new Error(message, { cause: error });
}

/** Two items with one id would share one answer. */
export function checkUniqueIds(items: readonly { id: string }[], label: string): void {
  const seen = new Set<string>();
  for (const { id } of items) {
    if (seen.has(id)) throw new RangeError(`${label}: duplicate id '${id}'`);
    seen.add(id);
  }
}

/** The parsed answer per item; on a failure those in flight finish (stored), then the error is raised. */
export async function runCachedCalls<T extends { id: string; text: string }>(
  items: readonly T[],
  model: ChatModel,
  opts: CachedCallOptions,
  spec: CachedCallSpec<T>,
): Promise<Map<string, string>> {
  const log = opts.log ?? (() => {});
  checkUniqueIds(items, spec.label);
  const requests = items.map((it) => spec.request(it));
  log(`${spec.label}: ${items.length} item(s) through ${model.id}`);
  const done: ChatResponse[] = [];
  const call = async (i: number) => void (done[i] = await model.complete(requests[i]));
  const failure = await untilFailure(items.length, Math.max(1, opts.concurrency ?? model.capacity ?? DEFAULT_CONCURRENCY.chat), call);
  if (failure) {
    const { error } = failure;
    const finished = `${Object.keys(done).length} answer(s) done, rerun to continue`;
    throw relabel(error, `${spec.label}: ${items[failure.index].id}: ${(error as Error)?.message ?? String(error)}; ${finished}`);
  }
  const texts = new Map<string, string>();
  const outcomes = items.map((item, i): CachedOutcome => {
    const parsed = spec.parse(done[i].raw);
    const fallback = parsed === "" && !spec.keepEmpty;
    const text = fallback ? item.text : parsed;
    if (fallback) log(`${spec.label}: ${item.id}: the answer was empty after parsing; using the original text`);
    texts.set(item.id, text);
    return { request: requests[i], response: done[i], reused: done[i].replayed === true, fallback };
  });
  const fallbacks = outcomes.filter((o) => o.fallback).length;
  if (fallbacks > 0) log(`${spec.label}: ${fallbacks} item(s) fell back to the original text (empty answers)`);
  opts.onRecords?.(outcomes);
  return texts;
}
