/**
 * What a method is handed (it never chooses): the run's model behind the store (answers by content address, so a rerun
 * costs nothing), or in `gbr reproduce --plan` a stand-in that calls nothing and counts what a real run would send.
 */
import type { EmbeddingPreset } from "../dense/presets";
import type { Embedder, Side } from "../dense/types";
import { withComplete, type ChatModel } from "../llm/types";
import type { RetrieverOptions, RunContext } from "../registry";
import { replayCache, withReplay } from "../store";
import { countTemplated } from "../text/tokens";
import { planChatModel } from "./plan-chat";
import { planEmbedder } from "./plan-embed";
import type { RerankClient } from "./rerank-client";

/**
 * `--llm` (else `GBR_CHAT_MODEL`) behind the store (`ctx.replay`: "use", "refresh" asks again, "off" keeps nothing), or
 * the plan's stand-in. A `--repeat` sample's seed is added outside the store, so it is in the key and the request.
 * `inputs`: the items a method renders its requests from (rewrites, translations); a plan counts such a request once
 * across experiments when they are the benchmark's own (`PlanMode.given`).
 *
 * @example
 * const model = await chatForMethod({ llm: "openai/gpt-oss-120b" }, ctx, bench.queries);
 */
export async function chatForMethod(opts: Pick<RetrieverOptions, "llm" | "sample" | "seed">, ctx: RunContext, inputs?: readonly object[]): Promise<ChatModel> {
  const cache = async () => replayCache(await ctx.store());
  let model: ChatModel;
  if (ctx.plan) {
    const plan = ctx.plan;
    const id = ctx.providers.chatId(opts.llm);
    const held = ctx.replay === "off" ? undefined : await cache();
    const guess = await plan.outputGuess(id, held);
    const tally = (input: number, output: number, key?: string) => plan.tally("chat", id, 1, input, output, key);
    model = planChatModel(id, ctx.replay === "refresh" ? undefined : held, guess, opts.sample, tally, inputs !== undefined && plan.given(inputs), plan.tokensOf);
  } else {
    const server = ctx.providers.chat(opts.llm);
    model = ctx.replay === "off" ? server : withReplay(server, await cache(), { mode: ctx.replay, sample: opts.sample, offline: ctx.providers.config.offline });
  }
  if (opts.seed === undefined) return model;
  const inner = model;
  return withComplete(inner, (req) => inner.complete({ ...req, seed: req.seed ?? opts.seed }));
}

/**
 * A preset's embedder, or with `ctx.plan` a stand-in that counts o200k tokens (the store read, never written); `keyOf`
 * (the vector store's key) for the benchmark's own texts, which a plan counts once across experiments.
 */
export function embedderForMethod(p: EmbeddingPreset, ctx: RunContext, keyOf?: (text: string, side: Side) => string): Embedder {
  const plan = ctx.plan;
  if (!plan) return ctx.providers.embedder(p);
  return planEmbedder(p, (text, side, key) => plan.tally("embedding", p.model, 1, countTemplated(side === "query" ? p.queryTemplate : p.documentTemplate, text), 0, key), keyOf);
}

/** The cross-encoder server, or with `ctx.plan` a stand-in counting pairs (the store's scores read, never written). */
export function rerankerForMethod(ctx: RunContext): RerankClient {
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
