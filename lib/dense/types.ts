/** Dense retrieval vocabulary: an Embedder turns texts into vectors. */
import type { EndpointStats } from "../providers/endpoints";
import { GbrError, type GbrErrorOptions } from "../util/errors";

/** Which side of retrieval a text is on; models embed queries and documents differently. */
export type Side = "query" | "document";

export interface EmbedResult {
  vectors: Float32Array[];
  /** Tokens the provider reported; undefined without usage, so an unknown count is never taken for a free call. */
  tokens: number | undefined;
  /** The model the server says embedded (OpenAI's `model`), when it says. */
  servedModel?: string;
  /** Embedded by the project's own test double: a stand-in, not a result. */
  standIn?: boolean;
}

/** Embeds already-templated texts; batching, caching, validation and error context are the caller's job. */
export interface Embedder {
  /** Stable identity of the model as served, e.g. "openai:Qwen/Qwen3-Embedding-8B@4096". */
  readonly id: string;
  /** Vector size when known in advance (otherwise learnt from the first answer). */
  readonly dims?: number;
  readonly maxBatch: number;
  /** `scheme://host[:port]` with no credentials, path or query (safe to log), or "local". */
  readonly endpoint: string;
  embed(texts: string[], side: Side): Promise<EmbedResult>;
  /** Requests in flight at once over all endpoints: how many batches a caller keeps going. */
  readonly capacity?: number;
  /** The adaptive in-flight limit (lib/providers/adaptive-limit.ts), when the embedder adapts it. */
  limitState?(): { max: number; current: number; lowest: number; refusals: number };
  endpointStats?(): EndpointStats[];
}

/** Raised by embedders and the pipeline; NOT_CONFIGURED is "unavailable", so experiments are skipped. */
export class EmbeddingError extends GbrError {
  declare readonly code: "NOT_CONFIGURED" | "PROVIDER" | "BAD_VECTOR" | "COUNT_MISMATCH";

  constructor(
    message: string,
    code: EmbeddingError["code"],
    options: GbrErrorOptions = {},
    /** A provider failure's HTTP status (undefined: no answer), to tell a failing server from a bad request. */
    readonly status?: number,
  ) {
    super(message, code, { unavailable: code === "NOT_CONFIGURED", ...options });
    this.name = "EmbeddingError";
  }
}
