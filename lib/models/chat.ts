/** The chat port: one small interface every provider (OpenAI-compatible, Gemini) implements; methods never see an SDK. */
import { GbrError, type GbrErrorOptions } from "../util/errors";
import type { ServerReports } from "./servers";

/** A chat request, as sent and as the store keeps it (its record's `request`). */
export interface ChatRequest {
  system: string;
  user: string;
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  reasoningEffort?: "low" | "medium" | "high";
  /** Provider-side sampling seed (--repeat/--seed). */
  seed?: number;
}

/** Generation parameters under OpenAI chat API names (Gemini maps them); runs record these, so they were sent. */
export interface ChatParams {
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  reasoning_effort?: "low" | "medium" | "high";
  seed?: number;
}

/** Unset fields absent, as from the request body. */
export function chatParams(req: ChatRequest): ChatParams {
  const { temperature, topP: top_p, maxTokens: max_tokens, reasoningEffort: reasoning_effort, seed } = req;
  const p = { temperature, top_p, max_tokens, reasoning_effort, seed };
  return Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined)) as ChatParams;
}

/** Tokens as the provider counted them (output: reasoning included when the provider reports it so). */
export type ChatUsage = { input: number; output: number };

/** `text` without reasoning, `raw` as returned; `seconds` (a replayed call's: the original's); `servedModel`, if said. */
export interface ChatResponse {
  text: string;
  raw: string;
  usage: ChatUsage;
  seconds: number;
  replayed?: boolean;
  servedModel?: string;
  /** From the project's test double: whatever is made from it shows the mechanics, not a result. */
  standIn?: boolean;
}

export interface ChatModel extends ServerReports {
  /** "<provider>:<model>", e.g. "openai:openai/gpt-oss-120b" or "gemini:gemini-2.5-flash". */
  readonly id: string;
  /** scheme://host:port of the server it calls, recorded with runs. */
  readonly endpoint?: string;
  complete(req: ChatRequest): Promise<ChatResponse>;
}

/** `code` is stable for callers to switch on; NOT_CONFIGURED is "unavailable", so experiments are skipped. `status`: a
 * provider failure's last HTTP status (undefined on time-out), to tell 401/403/404 from an outage (5xx). */
export class ChatError extends GbrError {
  declare readonly code: "NOT_CONFIGURED" | "PROVIDER" | "EMPTY" | "BUDGET";
  readonly status?: number;

  constructor(message: string, code: ChatError["code"], options: GbrErrorOptions & { status?: number } = {}) {
    super(message, code, { unavailable: code === "NOT_CONFIGURED", ...options });
    this.name = "ChatError";
    if (options.status !== undefined) this.status = options.status;
  }
}

/** Harmony analysis, `<think>`/`<analysis>` blocks (unterminated at the start: out of tokens thinking) removed, trimmed. */
export function stripReasoning(text: string): string {
  let out = harmonyFinal(text).replace(/<(think|analysis)>[\s\S]*?<\/\1>/gi, "");
  out = out.replace(/^\s*<(think|analysis)>[\s\S]*$/i, "");
  return out.trim();
}

/** The final channel of unparsed gpt-oss harmony markup (llama.cpp, LM Studio); only analysis: "" (out of tokens). */
function harmonyFinal(raw: string): string {
  if (!raw.includes("<|channel|>")) return raw;
  const marker = /<\|channel\|>final(?:\s[^<]*)?<\|message\|>/g;
  let last = -1;
  for (let m = marker.exec(raw); m; m = marker.exec(raw)) last = m.index + m[0].length;
  if (last < 0) return /^\s*(?:<\|start\|>assistant)?<\|channel\|>analysis/.test(raw) ? "" : raw;
  return raw.slice(last).replace(/<\|(?:return|end|call)\|>\s*$/, "");
}
