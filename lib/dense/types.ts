/**
 * Dense retrieval vocabulary: an Embedder turns texts into vectors; a preset says which model,
 * through which provider, with which query and document templates (the paper's settings).
 */
import type { EndpointStats } from "../providers/endpoints";
import { GbrError, type GbrErrorOptions } from "../util/errors";

/** Which side of retrieval a text is on; models embed queries and documents differently. */
export type Side = "query" | "document";

/**
 * What one embedding call returned.
 */
export interface EmbedResult {
  /** One vector per input text, in input order. */
  vectors: Float32Array[];
  /**
   * Tokens the provider reported for the whole call; undefined when its answer carries no usage
   * (some OpenAI-compatible servers; Gemini's embed answers), so that an unknown count is never
   * mistaken for a free call. 0 for an empty call, which sends nothing.
   */
  tokens: number | undefined;
  /** The model the server says embedded (OpenAI's `model`), when it says. */
  servedModel?: string;
  /** Embedded by the project's own test double (it marks its answers): a stand-in, not a result. */
  standIn?: boolean;
}

/**
 * What produced a table's vectors.
 */
export interface EmbeddingProvenance {
  /** Model names the servers reported, each once. */
  servedModels: string[];
  /** Some vectors came from the project's test double. */
  standIn: boolean;
}

/**
 * Both provenances in one: every served model name once (`a`'s first), stand-in if either is.
 */
export function mergeProvenance(a: EmbeddingProvenance, b: EmbeddingProvenance): EmbeddingProvenance {
  return { servedModels: [...new Set([...a.servedModels, ...b.servedModels])], standIn: a.standIn || b.standIn };
}

/**
 * A vector as the cache holds it, with the tokens the provider reported for its text when known
 * (a batch's count apportioned over its texts; unknown for providers without usage and for rows
 * written before token counts were stored).
 */
export interface CachedVector {
  vector: Float32Array;
  tokens?: number;
}

/**
 * A model behind an API (or computed locally) that embeds already-templated texts. Batching,
 * caching, validation and error context are the caller's job (see `embedTexts`), so an
 * embedder stays a thin adapter over one provider.
 */
export interface Embedder {
  /** Stable identity of the model as served, e.g. "openai:Qwen/Qwen3-Embedding-8B@4096". */
  readonly id: string;
  /** Vector size when known in advance (otherwise learnt from the first answer). */
  readonly dims?: number;
  /** Largest batch the provider accepts in one request. */
  readonly maxBatch: number;
  /**
   * Where the requests go, as `scheme://host[:port]` (the port shown unless it is the scheme's
   * default; no credentials, path or query string, so it is safe to log and to record), or
   * "local" for a model computed in this process.
   */
  readonly endpoint: string;
  embed(texts: string[], side: Side): Promise<EmbedResult>;
  /**
   * Requests it takes in flight at once over all its endpoints (`GBR_EMBED_CONCURRENCY` or
   * `--concurrency` per endpoint): how many batches a caller keeps going.
   */
  readonly capacity?: number;
  /** The in-flight limit as the server's answers steered it (lib/providers/adaptive-limit.ts), when the embedder adapts it. */
  limitState?(): { max: number; current: number; lowest: number; refusals: number };
  /** With several endpoints: each one's requests sent, answered and failed so far (lib/providers/endpoints.ts). */
  endpointStats?(): EndpointStats[];
}

/**
 * Raised by embedders and the embedding pipeline; `code` is stable for callers to switch on:
 * NOT_CONFIGURED (no provider set up: unavailable, so experiments are skipped), PROVIDER,
 * BAD_VECTOR, COUNT_MISMATCH.
 */
export class EmbeddingError extends GbrError {
  declare readonly code: "NOT_CONFIGURED" | "PROVIDER" | "BAD_VECTOR" | "COUNT_MISMATCH";

  constructor(
    message: string,
    code: EmbeddingError["code"],
    options: GbrErrorOptions = {},
    /** A provider failure's HTTP status (undefined: no answer, a time-out), so a failing server can be told from a bad request. */
    readonly status?: number,
  ) {
    super(message, code, { unavailable: code === "NOT_CONFIGURED", ...options });
    this.name = "EmbeddingError";
  }
}
