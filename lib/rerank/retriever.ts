/**
 * `rerank:<reranker>:<retriever>`: any retriever's top `rerankDepth` (default 100) re-ordered by a cross-encoder preset
 * (GBR_RERANK_BASE_URL) or `llm` (listwise). The first stage has the same options, so with a job's BuildCache it is the
 * very run the other experiments use; a re-ranker that cannot run here is reported before the first stage is built.
 */
import type { Benchmark, DocId, Query, Retriever } from "../types";
import type { PartBuilder, RetrieverOptions, RunContext } from "../registry";
import { GbrError } from "../util/errors";
import { listwiseRerankRun } from "../llm/rerank-listwise";
import { chatForMethod } from "../llm/chat-for-method";
import { crossEncoderRerankRun } from "./cross-encoder";
import { rerankPreset } from "./presets";
import { openScoreCache } from "../store";
import type { RerankClient } from "../models/rerank";

/** Re-ranker names (presets, `llm`) have no colon; the first stage may (`rerank:llm:reform:bm25-greekstemmer`). */
export function parseRerankName(name: string): { reranker: string; retriever: string } {
  const m = /^rerank:([^:]+):(.+)$/.exec(name);
  if (!m) throw new GbrError(`'${name}' is not rerank:<reranker>:<retriever> (e.g. rerank:bge-reranker-v2-m3:bm25-greekstemmer or rerank:llm:react-bm25)`, "USAGE");
  if (m[2].startsWith("rerank:")) throw new GbrError(`'${name}': re-ranking a re-ranked run is not supported`, "USAGE");
  return { reranker: m[1], retriever: m[2] };
}

/** Article texts by id, once per benchmark (the re-rankers read whole articles). */
const texts = new WeakMap<Benchmark, Map<DocId, string>>();
function docTexts(bench: Benchmark): Map<DocId, string> {
  let m = texts.get(bench);
  if (!m) texts.set(bench, (m = new Map(bench.docs.map((d) => [d.id, d.text]))));
  return m;
}

export async function rerankRetriever(name: string, bench: Benchmark, opts: RetrieverOptions, ctx: RunContext, part: PartBuilder): Promise<Retriever> {
  const { reranker, retriever } = parseRerankName(name);
  const depth = opts.rerankDepth ?? 100;
  const common = { name, depth, log: ctx.log, onProgress: ctx.onProgress };
  if (reranker === "llm") {
    const model = await chatForMethod(opts, ctx);
    const first = await part(retriever);
    return {
      name,
      retrieve: async (queries: Query[], k: number) =>
        listwiseRerankRun(model, queries, await first.retrieve(queries, Math.max(k, depth)), docTexts(bench), { ...common, k, window: opts.rerankWindow, step: opts.rerankStep }),
    };
  }
  const preset = rerankPreset(reranker);
  // --plan: pairs are counted, not scored; the store's scores are read, never written.
  const client = rerankerForMethod(ctx);
  const cache = await openScoreCache(await ctx.store(), { readOnly: ctx.plan !== undefined });
  const first = await part(retriever);
  return {
    name,
    retrieve: async (queries: Query[], k: number) => crossEncoderRerankRun(preset, client, queries, await first.retrieve(queries, Math.max(k, depth)), docTexts(bench), { ...common, k, cache }),
  };
}

/** The cross-encoder server, or with `ctx.plan` a stand-in counting pairs (the store's scores read, never written). */
function rerankerForMethod(ctx: RunContext): RerankClient {
  const plan = ctx.plan;
  if (!plan) return ctx.providers.reranker();
  return {
    id: "plan",
    endpoint: "plan",
    rerank: async (model, _query, documents) => {
      plan.tally("rerank", model, 1, documents.length, 0);
      return { scores: documents.map(() => 0), standIn: false };
    },
  };
}
