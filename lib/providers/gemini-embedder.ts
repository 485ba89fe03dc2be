/** Gemini embeddings (gemini-embedding-001) via `@google/genai`; retried here: the SDK's retries ignore Retry-After. */
import { DEFAULT_CONCURRENCY, type Config } from "../config";
import { classifyGeminiAttempt, describeGeminiFailure, GEMINI_API_ORIGIN, GeminiAttemptFailure, geminiClient, geminiEndpoint, observeGeminiFetch } from "./gemini-http";
import { retryWithBackoff } from "../util/retry";
import { endpointOrigin, redactSecrets } from "../util/http";
import { createSemaphore } from "../util/semaphore";
import { EmbeddingError, type Embedder, type EmbedResult, type Side } from "../models/embed";
import { servedByGemini } from "./served-by";

/** The model the paper ran. */
export const GEMINI_DEFAULT_MODEL = "gemini-embedding-001";

/** The paper's vector size: gemini-embedding-001 at full size (it also serves 768 or 1536). */
export const GEMINI_DEFAULT_DIMS = 3072;


/** Gemini takes the side as a task type instead of a text prefix. */
export const GEMINI_TASK_TYPES: Readonly<Record<Side, string>> = Object.freeze({
  query: "RETRIEVAL_QUERY",
  document: "RETRIEVAL_DOCUMENT",
});

export interface GeminiEmbedderOptions {
  apiKey: string;
  /** Default "gemini-embedding-001" ("models/" prefix optional). */
  model?: string;
  /** `outputDimensionality` requested and checked on every vector (default 3072). */
  dims?: number;
  /** API root without version (default: Google's). */
  baseUrl?: string;
  /** Texts per request; the Gemini API accepts at most 100 (default 100). */
  batchSize?: number;
  /** One attempt's deadline in ms (default 120000); keep it under Node's 300 s header/body timeouts. */
  timeoutMs?: number;
  /** Attempts per batch, the first included (default 5). */
  attempts?: number;
  concurrency?: number;
  /** First backoff in ms without Retry-After (default 1000). */
  retryBaseMs?: number;
  /** Longest backoff in ms without Retry-After (default 60000). */
  retryMaxMs?: number;
}

/** An embedding failure with the last HTTP status (undefined without an answer) and the attempts made. */
export class GeminiEmbeddingError extends EmbeddingError {
  constructor(
    message: string,
    code: EmbeddingError["code"],
    override readonly status: number | undefined,
    readonly attempts: number,
  ) {
    super(message, code, {}, status);
    this.name = "EmbeddingError";
  }
}

/** An Embedder for the Gemini API: one `batchEmbedContents` request per call (the caller splits by `maxBatch`). */
export function geminiEmbedder(opts: GeminiEmbedderOptions): Embedder {
  const apiKey = opts.apiKey?.trim();
  if (!apiKey) throw new EmbeddingError("geminiEmbedder: apiKey is empty (set GEMINI_API_KEY or GOOGLE_API_KEY)", "NOT_CONFIGURED");
  // The SDK adds "models/" itself; either spelling, one identity.
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
  const redact = (s: string) => redactSecrets(s, [apiKey]);

  const ai = geminiClient({ apiKey, baseUrl, timeoutMs });
  const limit = createSemaphore(concurrency);
  const taskLabel = (n: number, side: Side) => `${n} ${side} text${n === 1 ? "" : "s"}`;

  /** One HTTP attempt; failures come back as GeminiAttemptFailure for the retry loop to judge. */
  async function attemptOnce(texts: string[], side: Side): Promise<EmbedResult> {
    // Our own per-call fetch reads what the SDK drops: a failure's headers and the body's usageMetadata.
    const seen = observeGeminiFetch({ timeoutMs, readBody: true });
    let response;
    try {
      response = await ai.models.embedContent({
        model,
        // Not bare strings: for gemini-embedding-2 the SDK merges a string[] into ONE content, one vector.
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
      // The slot is held across backoff sleeps: when told to slow down, the embedder as a whole should send less.
      return limit.run(async () => {
        let made = 0;
        try {
          return await retryWithBackoff(
            (attempt) => {
              made = attempt;
              return attemptOnce(texts, side);
            },
            { attempts, baseMs: retryBaseMs, maxMs: retryMaxMs, classify: classifyGeminiAttempt, maxWaitMs: timeoutMs, label: `Gemini ${model}` },
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

/** The Gemini embedder of a configuration; `more` sets the rest (e.g. `batchSize: 1`, as the authors embedded). */
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
      { brief: "no Gemini API key: set GEMINI_API_KEY (or GOOGLE_API_KEY)" },
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
