/** `rerank:<reranker>:<retriever>`: a first stage's top `rerankDepth` (default 100) re-ordered by a cross-encoder or `llm`. */
import type { Benchmark, DocId, Query, Retriever, Run } from "../types";
import type { RetrieverOptions, RunContext } from "../registry";
import { listwiseRerankRun } from "../llm/rerank-listwise";
import { chatForMethod } from "../llm/chat-for-method";
import { crossEncoderRerankRun } from "./cross-encoder";
import { allRerankPresets, rerankPreset, type RerankPreset } from "./presets";
import { userPresetsFile } from "../dense/presets";
import { openScoreCache } from "../store";
import type { RerankClient } from "../models/rerank";

export interface Reranker {
  readonly name: string;
  readonly depth: number;
  rerank(queries: Query[], first: Run, k: number, runName: string): Promise<Run>;
}

/** The re-ranker `by` names over a benchmark's articles; rejects, saying what to set, when it cannot run here. */
export async function reranker(by: string, bench: Benchmark, opts: RetrieverOptions, ctx: RunContext): Promise<Reranker> {
  const depth = opts.rerankDepth ?? 100;
  if (!(Number.isInteger(depth) && depth >= 1)) throw new RangeError(`re-ranking depth must be a positive integer, got ${depth}`);
  const common = { depth, log: ctx.log, onProgress: ctx.onProgress };
  const texts = new Map<DocId, string>(bench.docs.map((d) => [d.id, d.text]));
  if (by === "llm") {
    const model = await chatForMethod(opts, ctx);
    return {
      name: by,
      depth,
      rerank: (queries, first, k, name) => listwiseRerankRun(model, queries, first, texts, { ...common, name, k, window: opts.rerankWindow, step: opts.rerankStep }),
    };
  }
  const preset = rerankPreset(by, allRerankPresets(userPresetsFile(ctx.providers.config), ctx.providers.config.local));
  const client = rerankerForMethod(ctx, preset);
  const cache = await openScoreCache(await ctx.store(), { readOnly: ctx.plan !== undefined });
  return { name: by, depth, rerank: (queries, first, k, name) => crossEncoderRerankRun(preset, client, queries, first, texts, { ...common, name, k, cache }) };
}

/** A first stage re-ordered by a re-ranker, named as its string form ("rerank:llm:bm25-greekstemmer"). */
export function rerankRetriever(first: Retriever, by: Reranker, name = `rerank:${by.name}:${first.name}`): Retriever {
  return { name, retrieve: async (queries: Query[], k: number) => by.rerank(queries, await first.retrieve(queries, Math.max(k, by.depth)), k, name) };
}

/** The cross-encoder server, or with `ctx.plan` a stand-in counting pairs (the store's scores read, never written). */
function rerankerForMethod(ctx: RunContext, preset: RerankPreset): RerankClient {
  const plan = ctx.plan;
  if (!plan) return ctx.providers.reranker(preset);
  return {
    id: "plan",
    endpoint: "plan",
    rerank: async (model, _query, documents) => {
      plan.tally("rerank", model, 1, documents.length, 0);
      return { scores: documents.map(() => 0), standIn: false };
    },
  };
}
