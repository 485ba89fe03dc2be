/**
 * The last layer of the providers' composition: what a method is handed is the run's model
 * behind the store (chat answers kept by their content address, so a rerun costs nothing), or,
 * in `gbr reproduce --plan`, a stand-in that calls nothing and counts what a real run would send.
 * The methods (lib/llm, lib/dense, lib/rerank) receive these ready objects and never choose.
 */
import type { EmbeddingPreset } from "../dense/presets";
import type { Embedder } from "../dense/types";
import { withComplete, type ChatModel } from "../llm/types";
import type { RetrieverOptions } from "../registry";
import { openReplayCache, replayCache, withReplay } from "../store";
import { countTokens } from "../util/tokens";
import { createProviders, type Providers } from "./index";
import { planChatModel } from "./plan-chat";
import { planEmbedder } from "./plan-embed";
import type { RerankClient } from "./rerank-client";

/** The run's providers, or the environment's when a library caller gave none. */
export function providersOf(opts: RetrieverOptions): Providers {
  return opts.providers ?? createProviders();
}

/**
 * The chat model the LLM methods use: `--llm` (else `GBR_CHAT_MODEL`) on the run's servers,
 * behind the store (`opts.replay`: "use" by default, "refresh" asks again, "off" keeps nothing);
 * with `opts.plan`, the plan's stand-in, which answers what the store holds and counts the rest.
 * A `--repeat` sample's seed is added outside the store, so it is part of the key as well as of
 * the request.
 */
export async function chatForMethod(opts: RetrieverOptions): Promise<ChatModel> {
  const providers = providersOf(opts);
  const cache = () => (opts.store ? replayCache(opts.store) : openReplayCache({ log: opts.log }));
  let model: ChatModel;
  if (opts.plan) {
    const plan = opts.plan;
    const id = providers.chatId(opts.llm);
    const held = opts.replay === "off" ? undefined : await cache();
    const guess = await plan.outputGuess(id, held);
    model = planChatModel(id, opts.replay === "refresh" ? undefined : held, guess, opts.sample, (input, output) => plan.tally("chat", id, 1, input, output));
  } else {
    const server = providers.chat(opts.llm);
    model = opts.replay === "off" ? server : withReplay(server, await cache(), { mode: opts.replay ?? "use", sample: opts.sample });
  }
  if (opts.seed === undefined) return model;
  const inner = model;
  return withComplete(inner, (req) => inner.complete({ ...req, seed: req.seed ?? opts.seed }));
}

/**
 * The embedder of a preset: the run's server for it, or with `opts.plan` a stand-in that sends
 * nothing and counts each text's o200k tokens (the vector store is read as it is, never written).
 */
export function embedderForMethod(p: EmbeddingPreset, opts: RetrieverOptions): Embedder {
  const plan = opts.plan;
  if (!plan) return providersOf(opts).embedder(p);
  return planEmbedder(p, (texts) => plan.tally("embedding", p.model, texts.length, texts.reduce((n, t) => n + countTokens(t), 0), 0));
}

/**
 * The cross-encoder server, or with `opts.plan` a stand-in that counts the pairs and scores
 * nothing (the store's scores are read, never written).
 */
export function rerankerForMethod(opts: RetrieverOptions): RerankClient {
  const plan = opts.plan;
  if (!plan) return providersOf(opts).reranker();
  return {
    id: "plan",
    endpoint: "plan",
    rerank: async (model, _query, documents) => {
      plan.tally("rerank", model, 1, documents.length, 0);
      return { scores: documents.map(() => 0), standIn: false };
    },
  };
}
