/**
 * Embedding in `gbr reproduce --plan`: nothing is sent and nothing is stored. What the store
 * holds is found there (it costs nothing, so its tokens count 0); every other text gets no
 * reported usage, so the pipeline counts it with its o200k estimate, exactly as a real run against
 * a server that reports no usage would. The vectors themselves do not matter to a plan: every one
 * is a made-up unit vector of PLAN_DIMS numbers, so planning ten models over a corpus holds a few
 * megabytes, not the gigabytes of their real vectors.
 */
import { createHash } from "node:crypto";
import type { VectorCache } from "../dense/embed";
import type { EmbeddingPreset } from "../dense/presets";
import type { CachedVector, Embedder, EmbedResult } from "../dense/types";

/** Size of plan mode's made-up vectors. */
export const PLAN_DIMS = 8;

function madeUp(text: string): Float32Array {
  const h = createHash("sha256").update(text, "utf8").digest();
  const v = new Float32Array(PLAN_DIMS);
  let norm = 0;
  for (let i = 0; i < PLAN_DIMS; i++) norm += (v[i] = h[i] - 127.5) ** 2;
  const s = 1 / Math.sqrt(norm || 1);
  for (let i = 0; i < PLAN_DIMS; i++) v[i] *= s;
  return v;
}

/**
 * An embedder that answers every text with a deterministic made-up unit vector, and no token
 * count.
 */
export function planEmbedder(p: EmbeddingPreset, tally: (texts: string[]) => void = () => {}, maxBatch = p.batchSize ?? 64): Embedder {
  return {
    id: `plan:${p.model}`,
    dims: PLAN_DIMS,
    maxBatch,
    endpoint: "plan",
    async embed(texts: string[]): Promise<EmbedResult> {
      tally(texts);
      const vectors = texts.map(madeUp);
      return { vectors, tokens: undefined };
    },
  };
}

/**
 * The store as plan mode sees it: reads go to the real store (what it holds is found, its tokens
 * set to 0 since cached vectors cost nothing, its vectors replaced by made-up ones), writes go
 * nowhere, and no lock is taken.
 */
export function planVectorView(store: Pick<VectorCache, "get">): VectorCache {
  return {
    async get(fingerprint: string, keys: string[]): Promise<Map<string, CachedVector>> {
      const found = await store.get(fingerprint, keys);
      const out = new Map<string, CachedVector>();
      for (const k of found.keys()) out.set(k, { vector: madeUp(k), tokens: 0 });
      return out;
    },
    async put(): Promise<void> {},
  };
}
