/** The embedding port: an Embedder turns already-templated texts into vectors. */
import os from "node:os";
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
  /** In-process models: how many of these texts exceed the model's token limit (and are cut). */
  overLimit?(texts: string[]): Promise<number>;
  /** Send texts sorted by length (in-process models: fewer padded tokens); servers keep the order they were given. */
  readonly lengthSorted?: boolean;
}

/** onnxruntime's intra-op threads for in-process models: every core (the count changes the last bits). */
export const LOCAL_THREADS = os.availableParallelism();

/** What the report and summary.csv say of an in-process run: runtime, dtype and threads. */
export const localRuntime = (m: LocalModel) => `in-process (transformers.js, onnxruntime CPU, ${m.dtype}, ${LOCAL_THREADS} threads)`;

/** An ONNX model run in-process (lib/providers/local-model.ts): its Hub repository, weights and pooling. */
export interface LocalModel {
  model: string;
  revision: string;
  /** The ONNX weights: fp32, fp16, q8, int8, uint8, q4, q4f16 or bnb4 (the file name's suffix). */
  dtype: string;
  /** Embedders: mean, cls, last (token), or model (the graph's own pooled output, e.g. sentence_embedding). */
  pooling?: "mean" | "cls" | "last" | "model";
  normalize?: boolean;
  /** Tokens a text (or a re-ranking pair) is cut to; default the tokenizer's model_max_length. */
  maxTokens?: number;
  /** Parameters in millions, for time estimates. */
  params?: number;
}

/** What picks an embedder's server: the part of an embedding preset (lib/dense/presets.ts) the providers read. */
export interface EmbedderSpec {
  name: string;
  provider: "openai" | "gemini" | "lsi" | "local";
  model: string;
  /** Vector size, when fixed; also requested from servers that support `dimensions`. */
  dims?: number;
  /** Largest batch per request (default 32 for OpenAI-compatible servers, 100 for Gemini). */
  batchSize?: number;
  /** "string": one text per request, the body only `model` and `input`, as the authors' notebook posted. */
  input?: "array" | "string";
  /** "lmstudio": sent to `GBR_LMSTUDIO_BASE_URL` when set, else to `GBR_EMBED_BASE_URL`. */
  server?: "lmstudio";
  /** The in-process form: required with provider "local"; a built-in's is used under `--local`. */
  local?: LocalModel;
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
