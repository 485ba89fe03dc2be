/** `rerank:<reranker>:<retriever>`: a first stage's top `rerankDepth` (default 100) re-ordered by a cross-encoder or `llm`. */
import type { Benchmark, DocId, Query, Retriever, Run } from "../types";
import type { RetrieverOptions, RunContext } from "../registry";
import { listwiseRerankRun } from "../llm/rerank-listwise";
import { chatForMethod } from "../llm/chat-for-method";
import { crossEncoderRerankRun } from "./cross-encoder";
import { allRerankPresets, renderRerankDocument, renderRerankQuery, rerankPreset, type RerankPreset } from "./presets";
import { measuredTime } from "../util/progress-line";
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
  const rerank = async (queries: Query[], first: Run, k: number, name: string) => {
    const run = await crossEncoderRerankRun(preset, client, queries, first, texts, { ...common, name, k, cache });
    const r = run.info?.rerank;
    // A plan of an in-process model: its rate on 8 pairs of the first question, times the pairs not yet scored.
    if (ctx.plan && preset.provider === "local" && r?.pairs && r.pairs > (r.reusedPairs ?? 0) && queries.length) {
      const docs = (first.rankings.get(queries[0].id) ?? []).slice(0, 8).map((id) => renderRerankDocument(preset, texts.get(id) ?? ""));
      const real = ctx.providers.reranker(preset);
      const query = renderRerankQuery(preset, queries[0].text);
      ctx.plan.note(await measuredTime(preset.name, "pairs to score", docs, r.pairs - (r.reusedPairs ?? 0), (d) => real.rerank(preset.model, query, d)));
    }
    return run;
  };
  return { name: by, depth, rerank };
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
