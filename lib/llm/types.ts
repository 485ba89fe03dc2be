/**
 * The chat side of the toolkit: one small interface every provider (OpenAI-compatible servers
 * such as vLLM serving gpt-oss-120b, Gemini) implements, so that reformulation, translation and
 * REACT-BM25 never see a provider's SDK.
 */

export interface ChatRequest {
  system: string;
  user: string;
  /** Output token limit (the paper: 42,000; the REACT observer 44,096). */
  maxTokens?: number;
  /** The paper uses 0.2. */
  temperature?: number;
  /** The paper uses 1. */
  topP?: number;
  /** Passed through to models that take it (gpt-oss: "low" in the paper). */
  reasoningEffort?: "low" | "medium" | "high";
  /** Provider-side sampling seed, when the provider supports one (used by --repeat/--seed). */
  seed?: number;
}

export interface ChatUsage {
  /** Prompt tokens as the provider counted them. */
  input: number;
  /** Completion tokens (reasoning included when the provider reports it so). */
  output: number;
}

export interface ChatResponse {
  /** The answer with `<think>…</think>` / `<analysis>…</analysis>` blocks removed. */
  text: string;
  /** The answer exactly as the provider returned it. */
  raw: string;
  usage: ChatUsage;
  /** Wall time of the call (for a replayed call: the time of the original call). */
  seconds: number;
  /** True when served from the replay cache without a network call. */
  replayed?: boolean;
}

/**
 * A chat model behind one provider.
 *
 * @example
 * const r = await model.complete({ system: "…", user: "…", temperature: 0.2, topP: 1 });
 * r.text; r.usage.input; r.seconds;
 */
export interface ChatModel {
  /** "<provider>:<model>", e.g. "openai:openai/gpt-oss-120b" or "gemini:gemini-2.5-flash". */
  readonly id: string;
  complete(req: ChatRequest): Promise<ChatResponse>;
}

/** Raised by chat providers and the LLM methods; `code` is stable for callers to switch on. */
export class ChatError extends Error {
  constructor(
    message: string,
    readonly code: "NOT_CONFIGURED" | "PROVIDER" | "EMPTY" | "BUDGET",
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "ChatError";
  }
}

/**
 * A provider failure with the HTTP status of the last answer (undefined for time-outs and
 * connection failures), so callers can tell a bad key (401/403) or unknown model (404) from an
 * outage (5xx). `code` is always "PROVIDER" (or "NOT_CONFIGURED" for bad options). Shared by every
 * chat provider, so callers need not know which one answered.
 *
 * @example
 * try { await model.complete(req); }
 * catch (e) { if (e instanceof ChatProviderError && e.status === 429) console.error("rate limited"); }
 */
export class ChatProviderError extends ChatError {
  constructor(
    message: string,
    code: ChatError["code"],
    /** HTTP status of the last answer, when there was one. */
    readonly status: number | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, code, options);
    this.name = "ChatError";
  }
}

/**
 * Removes reasoning blocks some models print before their answer: `<think>…</think>` and
 * `<analysis>…</analysis>` (also an unterminated block at the start, which means the model ran
 * out of tokens while thinking), then trims.
 *
 * @example
 * stripReasoning("<think>ο χρήστης ρωτά…</think>\nKEYWORDS: μίσθωση"); // "KEYWORDS: μίσθωση"
 */
export function stripReasoning(text: string): string {
  let out = text.replace(/<(think|analysis)>[\s\S]*?<\/\1>/gi, "");
  out = out.replace(/^\s*<(think|analysis)>[\s\S]*$/i, "");
  return out.trim();
}
