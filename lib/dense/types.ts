/**
 * Dense retrieval vocabulary: an Embedder turns texts into vectors; a preset says which model,
 * through which provider, with which query and document templates (the paper's settings).
 */

/** Which side of retrieval a text is on; models embed queries and documents differently. */
export type Side = "query" | "document";

export interface EmbedResult {
  /** One vector per input text, in input order. */
  vectors: Float32Array[];
  /** Tokens the provider billed for the call (0 when it does not say). */
  tokens: number;
}

/**
 * A model behind an API (or computed locally) that embeds already-templated texts. Batching,
 * caching, validation and error context are the caller's job (see `embedTexts`), so an
 * embedder stays a thin adapter over one provider.
 *
 * @example
 * const { vectors } = await embedder.embed(["Instruct: …\nQuery:Ο Α …"], "query");
 */
export interface Embedder {
  /** Stable identity of the model as served, e.g. "openai:Qwen/Qwen3-Embedding-8B@4096". */
  readonly id: string;
  /** Vector size when known in advance (otherwise learnt from the first answer). */
  readonly dims?: number;
  /** Largest batch the provider accepts in one request. */
  readonly maxBatch: number;
  embed(texts: string[], side: Side): Promise<EmbedResult>;
}

/** Raised by embedders and the embedding pipeline; `code` is stable for callers to switch on. */
export class EmbeddingError extends Error {
  constructor(
    message: string,
    readonly code: "NOT_CONFIGURED" | "PROVIDER" | "BAD_VECTOR" | "COUNT_MISMATCH",
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "EmbeddingError";
  }
}
