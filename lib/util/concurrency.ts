/**
 * How many requests each kind of provider gets in flight per endpoint, as the user sets it:
 * `GBR_CHAT_CONCURRENCY`, `GBR_EMBED_CONCURRENCY`, `GBR_RERANK_CONCURRENCY` per kind, else
 * `GBR_CONCURRENCY` (what `--concurrency N` sets), else the kind's default (chat and rerank 4,
 * embeddings 2: a batch of 32 texts is already a large request) — enough to keep one local
 * server busy without queueing much on it. The per-question methods (REACT-BM25, reformulation,
 * translation, the listwise re-ranker) work on as many questions at once as the chat kind has
 * requests in flight, so its limit is what keeps the server busy.
 */
import { GbrError } from "./errors";

/** The kinds of provider the project calls. */
export type ProviderKind = "chat" | "embed" | "rerank";

/** Requests in flight per endpoint when nothing is set. */
export const DEFAULT_CONCURRENCY: Readonly<Record<ProviderKind, number>> = { chat: 4, embed: 2, rerank: 4 };

const PER_KIND: Readonly<Record<ProviderKind, string>> = {
  chat: "GBR_CHAT_CONCURRENCY",
  embed: "GBR_EMBED_CONCURRENCY",
  rerank: "GBR_RERANK_CONCURRENCY",
};

/**
 * The requests in flight per endpoint for `kind`; a value that is no positive integer is a
 * usage error naming its variable.
 *
 * @example
 * concurrencyFor("chat", { GBR_CONCURRENCY: "16" });                          // 16
 * concurrencyFor("embed", { GBR_CONCURRENCY: "16", GBR_EMBED_CONCURRENCY: "2" }); // 2
 * concurrencyFor("rerank", {});                                                // 4
 * concurrencyFor("embed", {});                                                 // 2
 */
export function concurrencyFor(kind: ProviderKind, env: NodeJS.ProcessEnv = process.env): number {
  for (const name of [PER_KIND[kind], "GBR_CONCURRENCY"]) {
    const raw = env[name]?.trim();
    if (!raw) continue;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1) throw new GbrError(`${name} must be a positive integer (requests in flight per endpoint), got '${raw}'`, "USAGE");
    return n;
  }
  return DEFAULT_CONCURRENCY[kind];
}
