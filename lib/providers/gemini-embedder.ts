/** Gemini embeddings (gemini-embedding-001) via `@google/genai`. */
import { DEFAULT_CONCURRENCY, type Config } from "../config";
import { attemptsMade, GeminiAttemptFailure, geminiEndpoint, geminiServer, type GeminiServerOptions } from "./gemini-http";
import { NEED_KEY } from "./gemini-http";
import { EmbeddingError, type Embedder, type EmbedResult, type Side } from "../models/embed";
import { servedByGemini } from "./served-by";

export interface GeminiEmbedderOptions extends GeminiServerOptions {
  model?: string;
  /** `outputDimensionality` requested and checked on every vector (default 3072, the paper's). */
  dims?: number;
  /** Texts per request (default 100, the API's most). */
  batchSize?: number;
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
  const brief = "no Gemini API key: set GEMINI_API_KEY (or GOOGLE_API_KEY)";
  if (!apiKey) throw new EmbeddingError(`Gemini embeddings: ${NEED_KEY}`, "NOT_CONFIGURED", { brief });
  // The SDK adds "models/" itself; either spelling, one identity.
  const model = (opts.model ?? "gemini-embedding-001").replace(/^models\//, "");
  const dims = opts.dims ?? 3072;
  const batchSize = opts.batchSize ?? 100;
  const id = `gemini:${model}@${dims}`;
  const settings = { ...opts, apiKey, timeoutMs: opts.timeoutMs ?? 120_000, concurrency: opts.concurrency ?? DEFAULT_CONCURRENCY.embed };
  const api = geminiServer(id, settings);
  const taskLabel = (n: number, side: Side) => `${n} ${side} text${n === 1 ? "" : "s"}`;

  async function embed(texts: string[], side: Side): Promise<EmbedResult> {
    if (texts.length === 0) return { vectors: [], tokens: 0 };
    if (texts.length > batchSize) {
      throw new RangeError(`geminiEmbedder: ${texts.length} texts in one call, but maxBatch is ${batchSize}; split the batch first`);
    }
    const { value: response, body, made } = await api.send(
      (fetch) =>
        api.ai.models.embedContent({
          model,
          // Not bare strings: for gemini-embedding-2 the SDK merges a string[] into ONE content, one vector.
          contents: texts.map((text) => ({ role: "user", parts: [{ text }] })),
          config: { taskType: `RETRIEVAL_${side.toUpperCase()}`, outputDimensionality: dims, httpOptions: { fetch } },
        }),
      (err, made) => {
        // Anything but an attempt's failure is a bug of ours or of the SDK; still never let the key out.
        const what = `Gemini ${model} (${taskLabel(texts.length, side)}, ${attemptsMade(made)})`;
        const status = err instanceof GeminiAttemptFailure ? err.status : undefined;
        const message = api.redact(`${what}: ${err instanceof Error ? err.message : String(err)}`);
        return new GeminiEmbeddingError(message, "PROVIDER", status, made);
      },
    );
    // A wrong count or size is the server's bug, not a hiccup: not retried, but the attempts said.
    const embeddings = response.embeddings ?? [];
    if (embeddings.length !== texts.length) {
      throw new GeminiEmbeddingError(`Gemini ${model}: asked for ${taskLabel(texts.length, side)}, got ${embeddings.length} vectors`, "COUNT_MISMATCH", 200, made);
    }
    const vectors = embeddings.map((e, i) => {
      const values = e.values ?? [];
      if (values.length !== dims || !values.every(Number.isFinite)) {
        throw new GeminiEmbeddingError(
          `Gemini ${model}: vector ${i} of ${texts.length} has ${values.length} values` +
            (values.length === dims ? " with a non-finite one" : "") + `, expected ${dims} finite numbers`,
          "BAD_VECTOR",
          200,
          made,
        );
      }
      return Float32Array.from(values);
    });
    return { vectors, tokens: readUsageTokens(body), ...servedByGemini(body) };
  }

  return { id, dims, maxBatch: batchSize, capacity: api.capacity, endpoint: api.endpoint, embed };
}

/** The Gemini embedder of a configuration; `more` sets the rest (e.g. `batchSize: 1`, as the authors embedded). */
export function geminiEmbedderFrom(
  config: Config,
  model?: string,
  dims?: number,
  more: Partial<Omit<GeminiEmbedderOptions, "apiKey" | "model" | "dims" | "baseUrl">> = {},
): Embedder {
  const apiKey = config.gemini.apiKey ?? "";
  return geminiEmbedder({ concurrency: config.embed.concurrency, ...geminiEndpoint(config), ...more, apiKey, model, dims });
}

/** Tokens billed, from `usageMetadata` when the API reports it (today it does not: undefined, so the caller estimates). */
function readUsageTokens(body: unknown): number | undefined {
  const u = (body as { usageMetadata?: { promptTokenCount?: unknown; totalTokenCount?: unknown } } | null)?.usageMetadata;
  const n = u?.promptTokenCount ?? u?.totalTokenCount;
  return typeof n === "number" && Number.isInteger(n) && n >= 0 ? n : undefined;
}
