/** The embedding port: an Embedder turns already-templated texts into vectors. */
import { GbrError, type GbrErrorOptions } from "../util/errors";
import type { ServerReports } from "./servers";

/** Which side of retrieval a text is on; models embed queries and documents differently. */
export type Side = "query" | "document";

export interface EmbedResult {
  vectors: Float32Array[];
  /** Undefined without usage, so an unknown count is never taken for a free call. */
  tokens: number | undefined;
  servedModel?: string;
  standIn?: boolean;
}

/** Embeds already-templated texts; batching, caching, validation and error context are the caller's job. */
export interface Embedder extends ServerReports {
  readonly id: string;
  /** Else learnt from the first answer. */
  readonly dims?: number;
  readonly maxBatch: number;
  /** `scheme://host[:port]` (safe to log), or "local". */
  readonly endpoint: string;
  embed(texts: string[], side: Side): Promise<EmbedResult>;
}

/** What picks an embedder's server: the part of an embedding preset (lib/dense/presets.ts) the providers read. */
export interface EmbedderSpec {
  name: string;
  provider: "openai" | "gemini" | "lsi";
  model: string;
  /** Vector size, when fixed; also requested from servers that support `dimensions`. */
  dims?: number;
  /** Largest batch per request (default 32 for OpenAI-compatible servers, 100 for Gemini). */
  batchSize?: number;
  /** "string": one text per request, the body only `model` and `input`, as the authors' notebook posted. */
  input?: "array" | "string";
  /** "lmstudio": sent to `GBR_LMSTUDIO_BASE_URL` when set, else to `GBR_EMBED_BASE_URL`. */
  server?: "lmstudio";
}

/** Raised by embedders and the pipeline; NOT_CONFIGURED is "unavailable", so experiments are skipped. */
export class EmbeddingError extends GbrError {
  declare readonly code: "NOT_CONFIGURED" | "PROVIDER" | "BAD_VECTOR" | "COUNT_MISMATCH";

  constructor(
    message: string,
    code: EmbeddingError["code"],
    options: GbrErrorOptions = {},
    /** A provider failure's HTTP status (undefined: no answer). */
    readonly status?: number,
  ) {
    super(message, code, { unavailable: code === "NOT_CONFIGURED", ...options });
    this.name = "EmbeddingError";
  }
}
