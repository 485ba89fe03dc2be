import type { EmbeddingPreset } from "./presets";
import { presetFingerprint, renderTemplate, textKey } from "./presets";
import { EmbeddingError, type Embedder, type Side } from "../models/embed";
import { mergeProvenance, type EmbeddingProvenance, type VectorStore } from "../store/vector-store";
import { untilFailure } from "../util/pool";

/** The part of the vector store the pipeline needs; with `exclusive`, batches re-read their keys (another process's work). */
export type VectorCache = Pick<VectorStore, "get" | "put"> & Partial<Pick<VectorStore, "exclusive" | "provenance" | "noteProvenance">>;

export interface EmbedItemsOptions {
  /** Batches in flight at once (default: the embedder's capacity, else 2). */
  concurrency?: number;
  /** Items done so far (cached ones count as done), after every batch. */
  onProgress?: (done: number, total: number) => void;
  log?: (message: string) => void;
  /** o200k estimate of a rendered text: splits a batch's count, stands in for unknown ones (else 0, split evenly). */
  estimateTokens?: (text: string) => number;
}

export interface EmbedItemsResult extends EmbeddingProvenance {
  vectors: Float32Array[];
  cached: number;
  requests: number;
  /** Every item's tokens, cached or not (stored count, else the estimate): a cached rerun reports the paying run's. */
  tokens: number;
  estimatedTokens: number;
}

/** Largest-remainder split of an integer total over weights (equal when all are 0; ties to the earlier item). */
export function apportion(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  const w = sum > 0 ? weights : weights.map(() => 1);
  const sumW = sum > 0 ? sum : weights.length;
  const shares = new Array<number>(w.length);
  const remainders = new Array<number>(w.length);
  let given = 0;
  for (let i = 0; i < w.length; i++) {
    const scaled = total * w[i];
    let q = Math.floor(scaled / sumW);
    // Floating-point division may land just above an exact integer quotient; step back if so.
    if (q * sumW > scaled) q--;
    shares[i] = q;
    remainders[i] = scaled - q * sumW;
    given += q;
  }
  const order = remainders.map((_, i) => i).sort((a, b) => remainders[b] - remainders[a] || a - b);
  for (let r = 0; r < total - given; r++) shares[order[r % order.length]]++;
  return shares;
}

/** Embeds items through the vector cache: each batch stored as it returns, so a rerun sends only what is missing. */
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
  // Estimated lazily, once per distinct text: o200k over thousands of articles takes a while.
  const estimates = new Map<string, number>();
  const estimate = (i: number): number => {
    let e = estimates.get(keys[i]);
    if (e === undefined) estimates.set(keys[i], (e = opts.estimateTokens ? opts.estimateTokens(rendered[i]) : 0));
    return e;
  };

  const missing: number[] = [];
  const seen = new Set<string>();
  keys.forEach((k, i) => {
    if (!found.has(k) && !seen.has(k)) {
      seen.add(k);
      missing.push(i);
    }
  });
  if (embedder.lengthSorted) missing.sort((a, b) => rendered[a].length - rendered[b].length || a - b);
  const cachedAtStart = items.length - keys.filter((k) => !found.has(k)).length;
  const embedded = new Set<string>();
  const batchSize = Math.max(1, embedder.maxBatch);
  const batches: number[][] = [];
  for (let i = 0; i < missing.length; i += batchSize) batches.push(missing.slice(i, i + batchSize));
  if (batches.length) opts.log?.(`${p.name}: ${cachedAtStart} of ${items.length} ${side} vectors cached; embedding ${missing.length} in ${batches.length} requests`);

  let dims = embedder.dims ?? [...found.values()][0]?.vector.length;
  let requests = 0;
  const fresh: EmbeddingProvenance = { servedModels: [], standIn: false };
  let done = items.length - missing.length;
  opts.onProgress?.(done, items.length);

  // Requests leave in batch order whatever the re-lookups take, so the provider's request log is stable.
  const sent = batches.map(() => {
    let settle!: () => void;
    const promise = new Promise<void>((r) => (settle = r));
    return { promise, settle };
  });

  const runBatch = async (b: number) => {
    try {
      await lookUpAndEmbed(b);
    } finally {
      sent[b].settle();
    }
  };

  const lookUpAndEmbed = async (b: number) => {
    if (!cache.exclusive) return embedBatch(b, batches[b]);
    await cache.exclusive(fingerprint, async () => {
      // Another process sharing the cache may have stored some of these since the lookup above.
      const now = await cache.get(fingerprint, batches[b].map((i) => keys[i]));
      for (const [k, v] of now) found.set(k, v);
      const rest = batches[b].filter((i) => !now.has(keys[i]));
      if (rest.length < batches[b].length) {
        done += batches[b].length - rest.length;
        opts.onProgress?.(done, items.length);
      }
      if (rest.length > 0) await embedBatch(b, rest);
    });
  };

  const embedBatch = async (b: number, idx: number[]) => {
    const what = describe(idx.map((i) => items[i].id), side, b, batches.length, p.name);
    let result;
    try {
      if (b > 0) await sent[b - 1].promise;
      const pending = embedder.embed(idx.map((i) => rendered[i]), side);
      sent[b].settle();
      result = await pending;
    } catch (err) {
      throw new EmbeddingError(`${what} failed: ${(err as Error).message}`, err instanceof EmbeddingError ? err.code : "PROVIDER", { cause: err });
    }
    requests++;
    if (result.servedModel && !fresh.servedModels.includes(result.servedModel)) fresh.servedModels.push(result.servedModel);
    if (result.standIn) fresh.standIn = true;
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
    const reported = result.tokens;
    if (reported !== undefined && !(Number.isInteger(reported) && reported >= 0)) {
      throw new EmbeddingError(`${what}: the provider reported ${reported} tokens, not a count`, "PROVIDER");
    }
    // A single text gets the whole count; only a real batch needs the estimates as weights.
    const shares = reported === undefined ? undefined : idx.length === 1 ? [reported] : apportion(reported, idx.map(estimate));
    const rows = result.vectors.map((vector, j) => ({ key: keys[idx[j]], id: items[idx[j]].id, side, vector, tokens: shares?.[j] }));
    await cache.put(fingerprint, rows);
    for (const r of rows) {
      found.set(r.key, r.tokens === undefined ? { vector: r.vector } : { vector: r.vector, tokens: r.tokens });
      embedded.add(r.key);
    }
    done += idx.length;
    opts.onProgress?.(done, items.length);
  };

  // The first failure stops new batches; everything stored before it stays stored.
  const failure = await untilFailure(batches.length, opts.concurrency ?? embedder.capacity ?? 2, runBatch);
  if (requests > 0) await cache.noteProvenance?.(fingerprint, fresh);
  if (failure) throw failure.error;

  const cached = keys.filter((k) => !embedded.has(k)).length;
  const vectors: Float32Array[] = [];
  let tokens = 0;
  let estimatedTokens = 0;
  keys.forEach((k, i) => {
    const hit = found.get(k)!;
    vectors.push(hit.vector);
    if (hit.tokens !== undefined) {
      tokens += hit.tokens;
    } else {
      const e = estimate(i);
      tokens += e;
      estimatedTokens += e;
    }
  });
  const old = cached > 0 && cache.provenance ? await cache.provenance(fingerprint) : { servedModels: [], standIn: false };
  return { vectors, cached, requests, tokens, estimatedTokens, ...mergeProvenance(fresh, old) };
}

function describe(ids: string[], side: Side, b: number, total: number, name: string): string {
  const kind = side === "document" ? "articles" : "queries";
  const shown = ids.length <= 3 ? ids.join(", ") : `${ids.slice(0, 3).join(", ")} … (${ids.length} in all)`;
  return `embedding ${kind} ${shown} with ${name} (batch ${b + 1} of ${total})`;
}
