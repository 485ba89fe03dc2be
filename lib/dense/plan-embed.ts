/**
 * The embedder a dense method is handed: the run's, or with `--plan` a stand-in: nothing sent or stored; new texts cost
 * their o200k estimate; vectors small and made up.
 */
import type { VectorCache } from "./embed";
import type { EmbeddingPreset } from "./presets";
import type { CachedVector } from "../store/vector-store";
import type { Embedder, EmbedResult, Side } from "../models/embed";
import type { RunContext } from "../registry";
import { countTemplated } from "../text/tokens";

/**
 * A preset's embedder, or with `ctx.plan` a stand-in that counts o200k tokens (the store read, never written); `keyOf`
 * (the vector store's key) for the benchmark's own texts, which a plan counts once across experiments.
 */
export function embedderForMethod(p: EmbeddingPreset, ctx: RunContext, keyOf?: (text: string, side: Side) => string): Embedder {
  const plan = ctx.plan;
  if (!plan) return ctx.providers.embedder(p);
  return planEmbedder(p, (text, side, key) => plan.tally("embedding", p.model, 1, countTemplated(side === "query" ? p.queryTemplate : p.documentTemplate, text), 0, key), keyOf);
}


const PLAN_DIMS = 8;

// A deterministic unit vector from the text (FNV-1a, then a xorshift per dimension): a stand-in, so no digest is
// needed, and a plan makes one for every text of every preset.
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

/**
 * Answers every text with a deterministic made-up unit vector and no token count, and tallies each text; `keyOf` (the
 * vector store's key of a text) is given for the benchmark's own texts, so one embedded for two experiments counts once.
 */
export function planEmbedder(p: EmbeddingPreset, tally: (text: string, side: Side, key?: string) => void = () => {}, keyOf?: (text: string, side: Side) => string, maxBatch = p.batchSize ?? 64): Embedder {
  return {
    id: `plan:${p.model}`,
    dims: PLAN_DIMS,
    maxBatch,
    endpoint: "plan",
    async embed(texts: string[], side: Side): Promise<EmbedResult> {
      for (const t of texts) tally(t, side, keyOf?.(t, side));
      const vectors = texts.map(madeUp);
      return { vectors, tokens: undefined };
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
