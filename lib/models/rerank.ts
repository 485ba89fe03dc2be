/** The rerank port: a cross-encoder server scores articles against a query. */
import { GbrError } from "../util/errors";
import type { ServerReports } from "./servers";

/** One score per document sent, in the order sent. */
export interface RerankResult {
  scores: number[];
  servedModel?: string;
  standIn: boolean;
  tokens?: number;
  /** In-process models: pairs over the model's token limit, cut by its tokenizer. */
  truncated?: number;
}

/** Scores documents against a query through a rerank server; limiting requests in flight is the caller's choice. */
export interface RerankClient extends ServerReports {
  readonly id: string;
  readonly endpoint: string;
  /** In-process models: the runtime, dtype and threads (lib/models/embed.ts localRuntime). */
  readonly runtime?: string;
  rerank(model: string, query: string, documents: readonly string[]): Promise<RerankResult>;
  /** Reports every answer's status (retries included); the cross-encoder steers its requests in flight by them. */
  onStatus?(listener: (status: number) => void): () => void;
}

/** A failed rerank request; NOT_CONFIGURED is "unavailable", BAD_ANSWER a 200 that does not say what was asked. */
export class RerankError extends GbrError {
  declare readonly code: "NOT_CONFIGURED" | "HTTP" | "NETWORK" | "TIMEOUT" | "BAD_ANSWER";

  constructor(
    message: string,
    code: RerankError["code"],
    readonly status?: number,
    readonly retryable = false,
    readonly retryAfterMs?: number,
    hint?: string,
    brief?: string,
  ) {
    super(message, code, { unavailable: code === "NOT_CONFIGURED", ...(hint ? { hint } : {}), ...(brief ? { brief } : {}) });
    this.name = "RerankError";
  }
}

