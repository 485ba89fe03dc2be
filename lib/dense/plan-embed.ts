/**
 * Embedding in `gbr reproduce --plan`: nothing is sent and nothing is stored. Vectors the store
 * holds are served from it (they cost nothing, so their tokens count 0); every other text gets
 * a made-up unit vector and no reported usage, so the pipeline counts it with its o200k estimate,
 * exactly as a real run against a server that reports no usage would.
 */
import { createHash } from "node:crypto";
import type { VectorCache } from "./embed";
import type { EmbeddingPreset } from "./presets";
import type { CachedVector, Embedder, EmbedResult } from "./types";

/**
 * An embedder that answers every text with a deterministic unit vector of the preset's size
 * (8 when the preset names none), and no token count.
 *
 * @example
 * const e = planEmbedder(preset("qwen3-8b"));
 * (await e.embed(["κείμενο"], "query")).tokens; // undefined
 */
export function planEmbedder(p: EmbeddingPreset, tally: (texts: string[]) => void = () => {}, maxBatch = p.batchSize ?? 64): Embedder {
  const dims = p.dims ?? 8;
  return {
    id: `plan:${p.model}`,
    dims,
    maxBatch,
    endpoint: "plan",
    async embed(texts: string[]): Promise<EmbedResult> {
      tally(texts);
      const vectors = texts.map((t) => {
        const h = createHash("sha256").update(t, "utf8").digest();
        const v = new Float32Array(dims);
        let norm = 0;
        for (let i = 0; i < dims; i++) norm += (v[i] = h[i % h.length] - 127.5) ** 2;
        const s = 1 / Math.sqrt(norm || 1);
        for (let i = 0; i < dims; i++) v[i] *= s;
        return v;
      });
      return { vectors, tokens: undefined };
    },
  };
}

/**
 * The store as plan mode sees it: reads go to the real store (with the tokens of what it holds
 * set to 0: cached vectors cost nothing), writes go nowhere, and no lock is taken.
 *
 * @example
 * const view = planVectorView(await openVectorStore());
 */
export function planVectorView(store: Pick<VectorCache, "get">): VectorCache {
  return {
    async get(fingerprint: string, keys: string[]): Promise<Map<string, CachedVector>> {
      const found = await store.get(fingerprint, keys);
      const out = new Map<string, CachedVector>();
      for (const [k, v] of found) out.set(k, { vector: v.vector, tokens: 0 });
      return out;
    },
    async put(): Promise<void> {},
  };
}
