/** OpenAI-compatible chat via the `openai` SDK (one attempt per SDK call; retries and deadline are ours). */
import { DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT_S, type Config } from "../config";
import { spread } from "./endpoints";
import type OpenAI from "openai";
import { openaiServer, type OpenAIServerOptions } from "./openai-client";
import { ChatError, stripReasoning, type ChatModel, type ChatRequest, type ChatResponse } from "../models/chat";
import type { EndpointStats } from "../models/servers";
import { servedByOpenAI } from "./served-by";

export interface OpenAIChatOptions extends OpenAIServerOptions {
  model: string;
}

/** A ChatModel over an OpenAI-compatible server; `text` drops reasoning. A reasoning model can think for minutes. */
export function openaiChat(opts: OpenAIChatOptions): ChatModel {
  const { model } = opts;
  const id = `openai:${model}`;
  const server = openaiServer(id, { ...opts, timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_S.chat * 1000, concurrency: opts.concurrency ?? DEFAULT_CONCURRENCY.chat }, (message, status, cause) =>
    new ChatError(message, "PROVIDER", { status, ...(cause === undefined ? {} : { cause }) }),
  );

  async function complete(req: ChatRequest): Promise<ChatResponse> {
    // Some chat templates reject or mis-render an empty system turn.
    const system = req.system ? [{ role: "system" as const, content: req.system }] : [];
    const body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = {
      model,
      messages: [...system, { role: "user" as const, content: req.user }],
      ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
      ...(req.topP !== undefined ? { top_p: req.topP } : {}),
      ...(req.maxTokens !== undefined ? { max_tokens: req.maxTokens } : {}),
      ...(req.reasoningEffort !== undefined ? { reasoning_effort: req.reasoningEffort } : {}),
      ...(req.seed !== undefined ? { seed: req.seed } : {}),
    };
    const { response, seconds } = await server.send((client) => client.chat.completions.create(body));
    const raw = answerContent(response, server.where);
    return { text: stripReasoning(raw), raw, usage: usageOf(response), seconds, ...servedByOpenAI(response) };
  }

  return { id, endpoint: server.endpoint, complete, limitState: server.limitState, capacity: server.capacity };
}

/** The configured chat model over its base URLs; none is "NOT_CONFIGURED" (not a default to paid api.openai.com). */
export function openaiChatFrom(
  config: Config,
  model?: string,
  more: Partial<Omit<OpenAIChatOptions, "model" | "baseURL" | "apiKey">> = {},
): ChatModel {
  const c = config.chat;
  if (c.baseUrls.length === 0) {
    // No model name here: the setting is per provider, and reports group skipped work by this text.
    const brief = "no OpenAI-compatible chat server configured: set GBR_CHAT_BASE_URL (or OPENAI_BASE_URL)";
    const more = ", e.g. http://localhost:8000/v1 (vLLM, LM Studio, Ollama), and GBR_CHAT_API_KEY (or OPENAI_API_KEY) for a key";
    const gemini = "; or --llm gemini-2.5-flash with GEMINI_API_KEY";
    throw new ChatError(brief + more + gemini, "NOT_CONFIGURED", { brief: brief + gemini });
  }
  const name = openaiChatModel(model, c.model);
  const opts = { timeoutMs: c.timeoutMs, concurrency: c.concurrency, ...more, model: name, apiKey: c.apiKey };
  if (c.baseUrls.length === 1) return openaiChat({ ...opts, baseURL: c.baseUrls[0] });
  // No retry in place: spreadChat sets a failing endpoint aside and sends the request elsewhere.
  return spreadChat(c.baseUrls.map((u) => openaiChat({ maxRetries: 0, ...opts, baseURL: u })));
}

export type SpreadChatModel = ChatModel & { endpointStats(): EndpointStats[] };

/** `models` (one per endpoint) as one chat model; a failing endpoint (no answer, 429, 5xx) is set aside. */
export function spreadChat(models: readonly ChatModel[], opts: Parameters<typeof spread>[2] = {}): SpreadChatModel {
  const serverFailure = (err: unknown) => err instanceof ChatError && err.code === "PROVIDER" && (err.status === undefined || err.status === 429 || err.status >= 500);
  const { run, reports } = spread(models, serverFailure, opts);
  return { ...reports, complete: (req) => run((m) => m.complete(req)) };
}

/** `model`, else `configured` unless it names a Gemini model, else the paper's openai/gpt-oss-120b (DESIGN.md §6). */
export function openaiChatModel(model: string | undefined, configured: string | undefined): string {
  const fromConfig = configured?.trim();
  const named = fromConfig && !/^gemini/i.test(fromConfig) ? fromConfig.replace(/^openai:/i, "") : undefined;
  return model?.trim() || named || "openai/gpt-oss-120b";
}

/** `content` as text; null (vLLM's gpt-oss when reasoning took the budget) is an EMPTY error, asked again, never kept. */
function answerContent(response: OpenAI.Chat.ChatCompletion, where: string): string {
  const choices: unknown = (response as { choices?: unknown })?.choices;
  if (!Array.isArray(choices) || choices.length === 0) {
    throw new ChatError(`${where}: response has no choices`, "PROVIDER", { status: 200 });
  }
  const choice = choices[0] as { message?: { content?: unknown }; finish_reason?: unknown };
  const content = choice?.message?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p: { text?: unknown }) => (typeof p?.text === "string" ? p.text : "")).join("");
  const finish = typeof choice?.finish_reason === "string" ? `, finish_reason ${choice.finish_reason}` : "";
  const why = choice?.finish_reason === "length" ? "the output budget ran out before an answer (reasoning can take it all)" : "the server sent no text";
  throw new ChatError(`${where}: the answer has no content (content ${JSON.stringify(content ?? null)}${finish}): ${why}; not kept, asked again on the next run`, "EMPTY", { status: 200 });
}

function usageOf(response: OpenAI.Chat.ChatCompletion): { input: number; output: number } {
  const u = (response as { usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } | null }).usage;
  const n = (x: unknown) => (typeof x === "number" && Number.isFinite(x) ? x : 0);
  return { input: n(u?.prompt_tokens), output: n(u?.completion_tokens) };
}
