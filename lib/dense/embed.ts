import type { EmbeddingPreset } from "./presets";
import { presetFingerprint, renderTemplate, textKey } from "./presets";
import { EmbeddingError, type Embedder, type Side } from "./types";

/** The part of the vector store the embedding pipeline needs (see vector-store.ts). */
export interface VectorCache {
  get(fingerprint: string, keys: string[]): Promise<Map<string, Float32Array>>;
  put(fingerprint: string, rows: { key: string; id: string; side: Side; vector: Float32Array }[]): Promise<void>;
}

export interface EmbedItemsOptions {
  /** Batches in flight at once (default 2; the embedder may limit further). */
  concurrency?: number;
  /** Called after every finished batch with items done so far (cached ones count as done). */
  onProgress?: (done: number, total: number) => void;
  log?: (message: string) => void;
  /**
   * Token estimate for texts served from the cache, so that API-equivalent cost is reported
   * for a rerun that sent nothing (providers count tokens only for what they embed).
   */
  estimateTokens?: (text: string) => number;
}

export interface EmbedItemsResult {
  /** One vector per item, in item order, exactly as the provider returned it. */
  vectors: Float32Array[];
  /** Each item's cache key (what the store and its ANN index know the vector by). */
  keys: string[];
  /** Items served from the cache, and requests/tokens spent on the rest. */
  cached: number;
  requests: number;
  tokens: number;
  /** Estimated tokens of the cached items (0 without `estimateTokens`). */
  cachedTokens: number;
}

/**
 * Embeds articles or queries with a preset, through the persistent vector cache: each item's
 * templated text is hashed (with its side) into a key, cached vectors are reused, and the
 * rest go to the provider in batches, each stored as soon as it returns. A run that stops
 * half-way therefore resumes with only the missing batches, and a second run sends nothing.
 * Every batch is checked (one vector per text, a consistent size, finite values) before it is
 * stored; a failure names the items of the batch.
 *
 * @example
 * const { vectors, requests } = await embedItems(bench.docs, "document", preset("qwen3-8b"), embedder, store);
 */
export async function embedItems(
  items: readonly { id: string; text: string }[],
  side: Side,
  p: EmbeddingPreset,
  embedder: Embedder,
  cache: VectorCache,
  opts: EmbedItemsOptions = {},
): Promise<EmbedItemsResult> {
  const fingerprint = presetFingerprint(p);
  const rendered = items.map((it) => renderTemplate(p, side, it.text));
  // The side is part of the key: providers such as Gemini embed the same text differently per side.
  const keys = rendered.map((r) => textKey(`${side}\n${r}`));
  const found = await cache.get(fingerprint, [...new Set(keys)]);

  // One request per distinct missing text, in item order.
  const missing: number[] = [];
  const seen = new Set<string>();
  keys.forEach((k, i) => {
    if (!found.has(k) && !seen.has(k)) {
      seen.add(k);
      missing.push(i);
    }
  });
  const cached = items.length - keys.filter((k) => !found.has(k)).length;
  const batchSize = Math.max(1, embedder.maxBatch);
  const batches: number[][] = [];
  for (let i = 0; i < missing.length; i += batchSize) batches.push(missing.slice(i, i + batchSize));
  if (batches.length) opts.log?.(`${p.name}: ${cached} of ${items.length} ${side} vectors cached; embedding ${missing.length} in ${batches.length} requests`);

  let dims = embedder.dims ?? [...found.values()][0]?.length;
  let requests = 0;
  let tokens = 0;
  let done = items.length - missing.length;
  opts.onProgress?.(done, items.length);

  const runBatch = async (b: number) => {
    const idx = batches[b];
    const what = describe(idx.map((i) => items[i].id), side, b, batches.length, p.name);
    let result;
    try {
      result = await embedder.embed(idx.map((i) => rendered[i]), side);
    } catch (err) {
      throw new EmbeddingError(`${what} failed: ${(err as Error).message}`, err instanceof EmbeddingError ? err.code : "PROVIDER", { cause: err });
    }
    requests++;
    tokens += result.tokens;
    if (result.vectors.length !== idx.length) {
      throw new EmbeddingError(`${what}: the provider returned ${result.vectors.length} vectors for ${idx.length} texts`, "COUNT_MISMATCH");
    }
    result.vectors.forEach((v, j) => {
      const id = items[idx[j]].id;
      dims ??= v.length;
      if (v.length !== dims) throw new EmbeddingError(`${what}: vector for '${id}' has ${v.length} dimensions, expected ${dims}`, "BAD_VECTOR");
      for (let x = 0; x < v.length; x++) {
        if (!Number.isFinite(v[x])) throw new EmbeddingError(`${what}: vector for '${id}' contains ${v[x]} at position ${x}`, "BAD_VECTOR");
      }
    });
    await cache.put(
      fingerprint,
      result.vectors.map((vector, j) => ({ key: keys[idx[j]], id: items[idx[j]].id, side, vector })),
    );
    result.vectors.forEach((v, j) => found.set(keys[idx[j]], v));
    done += idx.length;
    opts.onProgress?.(done, items.length);
  };

  // A small pool: up to `concurrency` batches in flight; the first failure stops new batches,
  // and everything stored before it stays stored.
  let next = 0;
  let failure: unknown;
  const worker = async () => {
    while (failure === undefined && next < batches.length) {
      const b = next++;
      try {
        await runBatch(b);
      } catch (err) {
        failure ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(opts.concurrency ?? 2, batches.length) }, worker));
  if (failure !== undefined) throw failure;

  const vectors = keys.map((k) => found.get(k)!);
  let cachedTokens = 0;
  if (opts.estimateTokens && cached > 0) {
    const fresh = new Set(missing.map((i) => keys[i]));
    rendered.forEach((r, i) => {
      if (!fresh.has(keys[i])) cachedTokens += opts.estimateTokens!(r);
    });
  }
  return { vectors, keys, cached, requests, tokens, cachedTokens };
}

function describe(ids: string[], side: Side, b: number, total: number, name: string): string {
  const kind = side === "document" ? "articles" : "queries";
  const shown = ids.length <= 3 ? ids.join(", ") : `${ids.slice(0, 3).join(", ")} … (${ids.length} in all)`;
  return `embedding ${kind} ${shown} with ${name} (batch ${b + 1} of ${total})`;
}

/**
 * An in-memory VectorCache, for tests and one-off runs that should leave nothing on disk.
 *
 * @example
 * const cache = memoryCache();
 * await embedItems(queries, "query", p, embedder, cache);
 */
export function memoryCache(): VectorCache & { size(): number } {
  const tables = new Map<string, Map<string, Float32Array>>();
  return {
    async get(fp, keys) {
      const t = tables.get(fp);
      const out = new Map<string, Float32Array>();
      if (t) for (const k of keys) if (t.has(k)) out.set(k, t.get(k)!);
      return out;
    },
    async put(fp, rows) {
      let t = tables.get(fp);
      if (!t) tables.set(fp, (t = new Map()));
      for (const r of rows) t.set(r.key, r.vector);
    },
    size: () => [...tables.values()].reduce((s, t) => s + t.size, 0),
  };
}
