/** OpenAI-compatible embeddings via the `openai` SDK (one attempt per SDK call; retries and deadline are ours). */
import { spread } from "./endpoints";
import { DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT_S, type EndpointsConfig } from "../config";
import type OpenAI from "openai";
import { openaiServer, type OpenAIServerOptions } from "./openai-client";
import { EmbeddingError, type EmbedResult, type Embedder, type Side } from "../models/embed";
import { servedByOpenAI } from "./served-by";

export interface OpenAIEmbedderOptions extends OpenAIServerOptions {
  model: string;
  /** Expected vector size, part of the id (never sent: vLLM and others reject `dimensions` for most models). */
  dims?: number;
  batchSize?: number;
  /** "string": one text per request, posted as `{"model", "input": "<text>"}` only, as the authors did. */
  input?: "array" | "string";
}

/** An Embedder over an OpenAI-compatible server: one request per `embed()` (batching is the caller's job). */
export function openaiEmbedder(opts: OpenAIEmbedderOptions): Embedder {
  const { model, dims } = opts;
  const asString = opts.input === "string";
  const maxBatch = opts.batchSize ?? (asString ? 1 : 32);
  if (asString && maxBatch !== 1) {
    throw new EmbeddingError(`openai embedder (${model}): input "string" sends one text per request, so batchSize must be 1, got ${maxBatch}`, "NOT_CONFIGURED");
  }
  const id = `openai:${model}${dims !== undefined ? `@${dims}` : ""}`;
  const server = openaiServer(id, { ...opts, timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_S.embed * 1000, concurrency: opts.concurrency ?? DEFAULT_CONCURRENCY.embed }, (message, status, cause) =>
    new EmbeddingError(message, "PROVIDER", cause === undefined ? {} : { cause }, status),
  );

  // The side is already in the template the caller applied.
  async function embed(texts: string[], _side: Side): Promise<EmbedResult> {
    if (texts.length === 0) return { vectors: [], tokens: 0 };
    if (asString && texts.length !== 1) {
      throw new RangeError(`openai embedder (${model}): ${texts.length} texts in one call, but input "string" takes one per request; split the batch first`);
    }
    const { response } = await server.send((client) =>
      asString
        ? // Not embeddings.create, which adds encoding_format: this mode sends the authors' body only.
          client.post<OpenAI.CreateEmbeddingResponse>("/embeddings", { body: { model, input: texts[0] } })
        : // encoding_format: else the SDK asks for base64, which some OpenAI-compatible servers do not implement.
          client.embeddings.create({ model, input: texts, encoding_format: "float" }),
    );
    return { vectors: orderedVectors(response, texts.length, server.where), tokens: usageTokens(response), ...servedByOpenAI(response) };
  }

  return { id, dims, maxBatch, endpoint: server.endpoint, embed, limitState: server.limitState, capacity: server.capacity };
}

/** The configured embedder over its base URLs; none is "NOT_CONFIGURED" (not a default to paid api.openai.com). */
export function openaiEmbedderFrom(
  c: EndpointsConfig,
  model: string,
  dims?: number,
  batchSize?: number,
  more: Partial<Omit<OpenAIEmbedderOptions, "model" | "baseURL" | "apiKey" | "dims" | "batchSize">> = {},
): Embedder {
  if (c.baseUrls.length === 0) {
    // No model name here: the setting is per provider, and reproduce groups presets by this text.
    const brief = "no OpenAI-compatible embedding server configured: set GBR_EMBED_BASE_URL (or OPENAI_BASE_URL)";
    const more = ", e.g. http://localhost:8000/v1 (vLLM, TEI, LM Studio, Ollama), and GBR_EMBED_API_KEY (or OPENAI_API_KEY)";
    throw new EmbeddingError(brief + more, "NOT_CONFIGURED", { brief });
  }
  const opts = { timeoutMs: c.timeoutMs, concurrency: c.concurrency, ...more, model, apiKey: c.apiKey, dims, batchSize };
  if (c.baseUrls.length === 1) return openaiEmbedder({ ...opts, baseURL: c.baseUrls[0] });
  // No retry in place: a failing endpoint is set aside.
  const embedders = c.baseUrls.map((u) => openaiEmbedder({ maxRetries: 0, ...opts, baseURL: u }));
  const { run, reports } = spread(
    embedders,
    (err) => err instanceof EmbeddingError && err.code === "PROVIDER" && (err.status === undefined || err.status === 429 || err.status >= 500),
  );
  return { ...reports, dims: embedders[0].dims, maxBatch: embedders[0].maxBatch, embed: (texts, side) => run((e) => e.embed(texts, side)) };
}

/** Vectors in input order: the API may answer out of order, `index` says which input each is. */
function orderedVectors(response: OpenAI.CreateEmbeddingResponse, n: number, where: string): Float32Array[] {
  const data: unknown = (response as { data?: unknown })?.data;
  if (!Array.isArray(data)) throw new EmbeddingError(`${where}: response has no "data" array`, "PROVIDER");
  if (data.length !== n) throw new EmbeddingError(`${where}: sent ${n} texts, got ${data.length} embeddings`, "COUNT_MISMATCH");
  const out = new Array<Float32Array | undefined>(n);
  data.forEach((item: { index?: unknown; embedding?: unknown }, position) => {
    // A server that omits `index` is taken to answer in order.
    const i = item?.index === undefined ? position : item.index;
    if (!(typeof i === "number" && Number.isInteger(i) && i >= 0 && i < n) || out[i] !== undefined) {
      throw new EmbeddingError(`${where}: embedding ${position} has a bad or repeated index ${JSON.stringify(i)}`, "COUNT_MISMATCH");
    }
    out[i] = toVector(item?.embedding, i, where);
  });
  return out as Float32Array[];
}

/** Checked element by element: Float32Array.from turns `null` into 0 (embedItems checks size and finiteness). */
function toVector(embedding: unknown, index: number, where: string): Float32Array {
  if (!Array.isArray(embedding) || embedding.length === 0) {
    throw new EmbeddingError(`${where}: embedding ${index} is not a non-empty array`, "BAD_VECTOR");
  }
  const bad = embedding.findIndex((x) => typeof x !== "number");
  if (bad >= 0) {
    throw new EmbeddingError(`${where}: embedding ${index} has a non-number at position ${bad} (${JSON.stringify(embedding[bad])})`, "BAD_VECTOR");
  }
  return Float32Array.from(embedding as number[]);
}

function usageTokens(response: OpenAI.CreateEmbeddingResponse): number | undefined {
  const usage = (response as { usage?: { prompt_tokens?: unknown; total_tokens?: unknown } | null }).usage;
  const t = usage?.prompt_tokens ?? usage?.total_tokens;
  return typeof t === "number" && Number.isInteger(t) && t >= 0 ? t : undefined;
}
