/**
 * Gemini embeddings (gemini-embedding-001, the paper's strongest dense model, DESIGN.md §6)
 * through the official `@google/genai` SDK, so requests are exactly what Google's client sends:
 *
 *   POST {baseUrl}/v1beta/models/{model}:batchEmbedContents      header x-goog-api-key: <key>
 *   {"requests": [{"content": {"role": "user", "parts": [{"text": …}]},
 *                  "taskType": "RETRIEVAL_QUERY", "outputDimensionality": 3072,
 *                  "model": "models/{model}"}, …]}
 *   -> {"embeddings": [{"values": [...]}, …]}
 *
 * The SDK uses `batchEmbedContents` for every Gemini API call (one text or many) and, unless
 * given `retryOptions`, never retries; its own retries would ignore Retry-After, so this module
 * retries 408/429/5xx, time-outs and dropped connections itself with lib/util/retry.ts, reading
 * the server's wait through the observing fetch of lib/providers/gemini-http.ts.
 */
import { DEFAULT_CONCURRENCY, type Config } from "../config";
import { classifyGeminiAttempt, describeGeminiFailure, GEMINI_API_ORIGIN, GeminiAttemptFailure, geminiClient, geminiEndpoint, observeGeminiFetch } from "./gemini-http";
import { retryWithBackoff } from "../util/retry";
import { endpointOrigin } from "../util/http";
import { createSemaphore } from "../util/semaphore";
import { EmbeddingError, type Embedder, type EmbedResult, type Side } from "../dense/types";
import { servedByGemini } from "./served-by";

/**
 * The model the paper ran.
 */
export const GEMINI_DEFAULT_MODEL = "gemini-embedding-001";

/**
 * The paper's vector size: gemini-embedding-001 at full size (it also serves 768 or 1536).
 */
export const GEMINI_DEFAULT_DIMS = 3072;


/**
 * Gemini takes the retrieval side as a task type instead of a text prefix, so the gemini-001
 * preset's templates are plain `{text}` and the side travels here.
 */
export const GEMINI_TASK_TYPES: Readonly<Record<Side, string>> = Object.freeze({
  query: "RETRIEVAL_QUERY",
  document: "RETRIEVAL_DOCUMENT",
});

/**
 * How to reach the Gemini API (or a local double of it) for embeddings, and how patiently.
 */
export interface GeminiEmbedderOptions {
  apiKey: string;
  /** Model name as the Gemini API knows it (default "gemini-embedding-001"; "models/" prefix optional). */
  model?: string;
  /** `outputDimensionality` requested and checked on every vector (default 3072). */
  dims?: number;
  /** API root without version, e.g. a local double "http://127.0.0.1:PORT" (default: Google's). */
  baseUrl?: string;
  /** Texts per request; the Gemini API accepts at most 100 (default 100). */
  batchSize?: number;
  /**
   * Deadline of one attempt in ms, response body included (default 120000). Keep it under
   * five minutes: with our own fetch the SDK drops its no-timeout dispatcher, so Node's
   * default 300 s header/body timeouts apply as well.
   */
  timeoutMs?: number;
  /** Attempts per batch, the first included (default 5). */
  attempts?: number;
  /** Requests in flight at once from this embedder (default 4). */
  concurrency?: number;
  /** First backoff delay in ms when the server gives no Retry-After (default 1000; tests use 1). */
  retryBaseMs?: number;
  /** Longest backoff delay in ms without Retry-After (default 60000). */
  retryMaxMs?: number;
}

/**
 * An embedding failure with the HTTP status the provider answered (undefined for time-outs and
 * network errors), so callers can tell a bad key (400/403) from an outage (5xx).
 */
export class GeminiEmbeddingError extends EmbeddingError {
  constructor(
    message: string,
    code: EmbeddingError["code"],
    /** HTTP status of the last answer, when there was one. */
    override readonly status: number | undefined,
    /** Attempts made before giving up. */
    readonly attempts: number,
  ) {
    super(message, code, {}, status);
    this.name = "EmbeddingError";
  }
}

/**
 * An Embedder for the Gemini API. `embed(texts, side)` sends all `texts` in one
 * `batchEmbedContents` request (the caller splits by `maxBatch`) with the side's task type and
 * `outputDimensionality = dims`, and returns the vectors in input order.
 */
export function geminiEmbedder(opts: GeminiEmbedderOptions): Embedder {
  const apiKey = opts.apiKey?.trim();
  if (!apiKey) throw new EmbeddingError("geminiEmbedder: apiKey is empty (set GEMINI_API_KEY or GOOGLE_API_KEY)", "NOT_CONFIGURED");
  // The SDK adds "models/" itself; accept either spelling but keep one identity.
  const model = (opts.model ?? GEMINI_DEFAULT_MODEL).replace(/^models\//, "");
  const dims = opts.dims ?? GEMINI_DEFAULT_DIMS;
  const batchSize = opts.batchSize ?? 100;
  const attempts = opts.attempts ?? 5;
  const timeoutMs = opts.timeoutMs ?? 120_000;
  const retryBaseMs = opts.retryBaseMs ?? 1000;
  const retryMaxMs = opts.retryMaxMs ?? 60_000;
  const concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY.embed;
  for (const [name, v] of Object.entries({ dims, batchSize, attempts, timeoutMs, concurrency })) {
    if (!(Number.isInteger(v) && v > 0)) throw new RangeError(`geminiEmbedder: ${name} must be a positive integer, got ${v}`);
  }
  const baseUrl = opts.baseUrl?.replace(/\/+$/, "");
  const where = baseUrl ?? "the Gemini API";
  // Scrub the key from anything we show: a proxy or a misbehaving server may echo it back.
  const redact = (s: string) => s.split(apiKey).join("[redacted]");

  const ai = geminiClient({ apiKey, baseUrl, timeoutMs });
  const limit = createSemaphore(concurrency);
  const taskLabel = (n: number, side: Side) => `${n} ${side} text${n === 1 ? "" : "s"}`;

  /** One HTTP attempt; failures come back as GeminiAttemptFailure so the retry loop can judge them. */
  async function attemptOnce(texts: string[], side: Side): Promise<EmbedResult> {
    // The SDK keeps neither the response headers of a failure nor the body's usageMetadata, so
    // a fetch of our own (scoped to this one call, hence safe under concurrency) reads both.
    // No long-request dispatcher: `timeoutMs` is meant to stay under Node's 300 s limits.
    const seen = observeGeminiFetch({ readBody: true });
    let response;
    try {
      response = await ai.models.embedContent({
        model,
        // Content objects rather than bare strings: for gemini-embedding-2 models the SDK merges
        // a string[] into ONE multi-part content, which would return one vector for the batch.
        contents: texts.map((text) => ({ role: "user", parts: [{ text }] })),
        config: { taskType: GEMINI_TASK_TYPES[side], outputDimensionality: dims, httpOptions: { fetch: seen.fetch } },
      });
    } catch (err) {
      throw describeGeminiFailure(err, { retryAfterHeaderMs: seen.retryAfterMs(), timeoutMs, where, redact });
    }
    const embeddings = response.embeddings ?? [];
    if (embeddings.length !== texts.length) {
      throw new GeminiEmbeddingError(
        `Gemini ${model}: asked for ${taskLabel(texts.length, side)}, got ${embeddings.length} vectors`,
        "COUNT_MISMATCH",
        200,
        1,
      );
    }
    const vectors = embeddings.map((e, i) => {
      const values = e.values ?? [];
      if (values.length !== dims || !values.every(Number.isFinite)) {
        throw new GeminiEmbeddingError(
          `Gemini ${model}: vector ${i} of ${texts.length} has ${values.length} values` +
            (values.length === dims ? " with a non-finite one" : "") + `, expected ${dims} finite numbers`,
          "BAD_VECTOR",
          200,
          1,
        );
      }
      return Float32Array.from(values);
    });
    // Gemini's embed answers carry no usageMetadata today: undefined, not 0, so the caller estimates.
    const body = await seen.body();
    const tokens = readUsageTokens(body);
    return { vectors, tokens, ...servedByGemini(body) };
  }

  return {
    id: `gemini:${model}@${dims}`,
    dims,
    maxBatch: batchSize,
    capacity: concurrency,
    endpoint: baseUrl ? endpointOrigin(baseUrl) : GEMINI_API_ORIGIN,
    async embed(texts: string[], side: Side): Promise<EmbedResult> {
      if (texts.length === 0) return { vectors: [], tokens: 0 };
      if (texts.length > batchSize) {
        throw new RangeError(`geminiEmbedder: ${texts.length} texts in one call, but maxBatch is ${batchSize}; split the batch first`);
      }
      // The slot is held across backoff sleeps on purpose: when the server says "slow down",
      // this embedder as a whole should send less, not refill the freed slot at once.
      return limit.run(async () => {
        let made = 0;
        try {
          return await retryWithBackoff(
            (attempt) => {
              made = attempt;
              return attemptOnce(texts, side);
            },
            { attempts, baseMs: retryBaseMs, maxMs: retryMaxMs, classify: classifyGeminiAttempt },
          );
        } catch (err) {
          // A wrong count or size is the server's bug, not a hiccup: no retry, but say which attempt.
          if (err instanceof GeminiEmbeddingError) throw new GeminiEmbeddingError(err.message, err.code, err.status, made);
          if (err instanceof GeminiAttemptFailure) {
            const tries = `${made} attempt${made === 1 ? "" : "s"}`;
            throw new GeminiEmbeddingError(
              redact(`Gemini ${model} (${taskLabel(texts.length, side)}, ${tries}): ${err.message}`),
              "PROVIDER",
              err.status,
              made,
            );
          }
          // Anything else is a bug of ours or of the SDK; still never let the key out.
          const message = err instanceof Error ? err.message : String(err);
          throw new GeminiEmbeddingError(redact(`Gemini ${model}: ${message}`), "PROVIDER", undefined, made);
        }
      });
    },
  };
}

/**
 * The Gemini embedder of a configuration: the key from `GEMINI_API_KEY` (else `GOOGLE_API_KEY`),
 * the endpoint from `GBR_GEMINI_BASE_URL` (else Google's), requests in flight from the embedding
 * settings; `more` sets the rest (e.g. `batchSize: 1`, one text per call as the authors embedded).
 */
export function geminiEmbedderFrom(
  config: Config,
  model?: string,
  dims?: number,
  more: Partial<Omit<GeminiEmbedderOptions, "apiKey" | "model" | "dims" | "baseUrl">> = {},
): Embedder {
  const apiKey = config.gemini.apiKey;
  if (!apiKey) {
    throw new EmbeddingError(
      "Gemini embeddings need an API key: set GEMINI_API_KEY (or GOOGLE_API_KEY) to a key from " +
        "https://aistudio.google.com/apikey; set GBR_GEMINI_BASE_URL to use another endpoint.",
      "NOT_CONFIGURED",
    );
  }
  return geminiEmbedder({ concurrency: config.embed.concurrency, ...geminiEndpoint(config), ...more, apiKey, model, dims });
}

/** Tokens billed, from `usageMetadata` when the API reports it (the SDK drops that field). */
function readUsageTokens(body: unknown): number | undefined {
  const u = (body as { usageMetadata?: { promptTokenCount?: unknown; totalTokenCount?: unknown } } | null)?.usageMetadata;
  const n = u?.promptTokenCount ?? u?.totalTokenCount;
  return typeof n === "number" && Number.isInteger(n) && n >= 0 ? n : undefined;
}
