import type { VectorCache } from "./embed";
import type { EmbeddingPreset } from "./presets";
import type { CachedVector } from "../store/vector-store";
import type { Embedder, EmbedResult, Side } from "../models/embed";
import type { RunContext } from "../registry";
import { countTemplated } from "../text/tokens";

/** A preset's embedder, or with `ctx.plan` a stand-in counting o200k tokens, each text (by `keyOf`) once across experiments. */
export function embedderForMethod(p: EmbeddingPreset, ctx: RunContext, keyOf?: (text: string, side: Side) => string): Embedder {
  const plan = ctx.plan;
  if (!plan) return ctx.providers.embedder(p);
  return planEmbedder(p, (text, side, key) => plan.tally("embedding", p.model, 1, countTemplated(side === "query" ? p.queryTemplate : p.documentTemplate, text), 0, key), keyOf);
}


const PLAN_DIMS = 8;

// A deterministic unit vector from the text (FNV-1a, then a xorshift per dimension): cheaper than a digest.
function madeUp(text: string): Float32Array {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  const v = new Float32Array(PLAN_DIMS);
  let norm = 0;
  for (let i = 0; i < PLAN_DIMS; i++) {
    h ^= h << 13;
    h ^= h >>> 17;
    h ^= h << 5;
    norm += (v[i] = ((h >>> 0) % 255) - 127) ** 2;
  }
  const s = 1 / Math.sqrt(norm || 1);
  for (let i = 0; i < PLAN_DIMS; i++) v[i] *= s;
  return v;
}

export function planEmbedder(p: EmbeddingPreset, tally: (text: string, side: Side, key?: string) => void = () => {}, keyOf?: (text: string, side: Side) => string): Embedder {
  return {
    id: `plan:${p.model}`,
    dims: PLAN_DIMS,
    maxBatch: p.batchSize ?? 64,
    endpoint: "plan",
    async embed(texts: string[], side: Side): Promise<EmbedResult> {
      for (const t of texts) tally(t, side, keyOf?.(t, side));
      return { vectors: texts.map(madeUp), tokens: undefined };
    },
  };
}

/** The store as plan mode sees it: real reads (tokens 0, vectors made up), no writes, no lock. */
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
