/** A run's model-server calls: endpoints (deadlines, retries, failover) -> limits (one rate-cap window per kind) -> meter. */
import type { Config } from "../config";
import type { Embedder, EmbedderSpec } from "../models/embed";
import type { ChatModel } from "../models/chat";
import { countTokens } from "../text/tokens";
import { chatModelFrom, chatModelId } from "./chat";
import { geminiEmbedderFrom } from "./gemini-embedder";
import { openaiEmbedderFrom } from "./openai-embedder";
import { RateCap } from "./rate-cap";
import { UsageMeter, type Pricer } from "./usage-meter";
import { splitModelId } from "../util/model-id";
import { rerankClientFrom } from "./rerank-client";
import type { RerankClient } from "../models/rerank";
import { localEmbedder, localReranker } from "./local-model";
import type { LocalModel } from "../models/embed";

/** One run's model servers, built on first use and shared by every method of the run; "NOT_CONFIGURED" without a server. */
export interface Providers {
  readonly config: Config;
  readonly meter: UsageMeter;
  chat(name?: string): ChatModel;
  chatId(name?: string): string;
  embedder(p: EmbedderSpec): Embedder;
  /** The rerank server's client, or for an in-process preset (`provider: "local"`) its model. */
  reranker(p?: { provider?: "local"; local?: LocalModel; batchSize: number }): RerankClient;
}

export function createProviders(config: Config, opts: { pricer?: Pricer; log?: (message: string) => void } = {}): Providers {
  const meter = new UsageMeter(opts.pricer);
  const caps = {
    chat: config.chat.caps && new RateCap(config.chat.caps),
    embed: config.embed.caps && new RateCap(config.embed.caps),
    rerank: config.rerank.caps && new RateCap(config.rerank.caps),
  };
  const built = new Map<string, ChatModel | Embedder | RerankClient>();
  const once = <T extends ChatModel | Embedder | RerankClient>(key: string, make: () => T): T => {
    if (!built.has(key)) built.set(key, make());
    return built.get(key) as T;
  };
  return {
    config,
    meter,
    chat: (name) => once(`chat ${name?.trim() ?? ""}`, () => chargedChat(chatModelFrom(config, name), caps.chat, meter)),
    chatId: (name) => chatModelId(config, name),
    embedder: (p) => {
      const key = JSON.stringify([p.provider, p.model, p.dims, p.batchSize, p.input, p.server, p.local]);
      return once(key, () => chargedEmbedder(presetEmbedder(config, p, opts.log), p.provider === "local" ? undefined : caps.embed, meter, p.model));
    },
    reranker: (p) => {
      const local = p?.provider === "local" ? p.local : undefined;
      if (!local) return once("rerank", () => chargedRerank(rerankClientFrom(config.rerank), caps.rerank, meter));
      return once(`rerank ${JSON.stringify([local, p!.batchSize])}`, () => chargedRerank(localReranker(config, local, p!.batchSize, opts.log), undefined, meter));
    },
  };
}

/** A preset's server: Gemini, LM Studio for authors-named presets (when set), else the embedding servers. */
function presetEmbedder(config: Config, p: EmbedderSpec, log?: (message: string) => void): Embedder {
  if (p.provider === "local") {
    if (!p.local) throw new Error(`preset '${p.name}': provider "local" without its model settings`);
    return localEmbedder(config, p.local, p.batchSize, log);
  }
  if (p.provider === "gemini") return geminiEmbedderFrom(config, p.model, p.dims, p.batchSize === undefined ? {} : { batchSize: p.batchSize });
  if (p.provider === "openai") {
    const lmstudio = p.server === "lmstudio" ? config.embed.lmstudio : undefined;
    // Only LM Studio's own key goes to LM Studio: the embedding or OpenAI key is meant for another server.
    const servers = lmstudio
      ? { ...config.embed, baseUrls: [lmstudio.baseUrl], urlVariable: "GBR_LMSTUDIO_BASE_URL", keyVariable: "GBR_LMSTUDIO_API_KEY", apiKey: lmstudio.apiKey }
      : config.embed;
    return openaiEmbedderFrom(servers, p.model, p.dims, p.batchSize, p.input ? { input: p.input } : {});
  }
  throw new Error(`preset '${p.name}': provider '${p.provider}' has no API embedder (use the lsi retriever)`);
}

/** Chat requests under the chat caps (each reserves its o200k input count plus its output limit), each answer metered. */
function chargedChat(chat: ChatModel, cap: RateCap | undefined, meter: UsageMeter): ChatModel {
  const model = splitModelId(chat.id).model;
  const complete: ChatModel["complete"] = async (req) => {
    const call = () => chat.complete(req);
    const res = cap ? await cap.run(countTokens(req.system) + countTokens(req.user) + (req.maxTokens ?? 0), call, (r) => r.usage.input + r.usage.output) : await call();
    meter.record("chat", res.usage.input + res.usage.output, { model, ...res.usage });
    return res;
  };
  return { ...chat, complete };
}

/** Embedding requests under the embedding caps (each reserves the o200k count of its texts), each answer metered. */
function chargedEmbedder(embedder: Embedder, cap: RateCap | undefined, meter: UsageMeter, model: string): Embedder {
  const embed: Embedder["embed"] = async (texts, side) => {
    const call = () => embedder.embed(texts, side);
    const res = cap ? await cap.run(texts.reduce((n, t) => n + countTokens(t), 0), call, (r) => r.tokens) : await call();
    meter.record("embed", res.tokens ?? 0, { model, input: res.tokens ?? 0, output: 0 });
    return res;
  };
  return { ...embedder, embed };
}

/** Rerank requests under the rerank caps (each reserves its query, once per article, and articles), each metered. */
function chargedRerank(client: RerankClient, cap: RateCap | undefined, meter: UsageMeter): RerankClient {
  const rerank: RerankClient["rerank"] = async (model, query, documents) => {
    const call = () => client.rerank(model, query, documents);
    const res = cap ? await cap.run(countTokens(query) * documents.length + documents.reduce((n, d) => n + countTokens(d), 0), call, (r) => r.tokens) : await call();
    if (documents.length > 0) meter.record("rerank", documents.length);
    return res;
  };
  return { ...client, rerank };
}
