/** OpenAI-compatible chat via the `openai` SDK, one attempt per SDK call, retried and timed by our own loop and deadline. */
import { AdaptiveLimit, observingFetch } from "../util/adaptive-limit";
import { DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT_S, type Config } from "../config";
import { spreadChat } from "./chat-endpoints";
import type OpenAI from "openai";
import { createSemaphore } from "../util/semaphore";
import { checkedBaseUrl, deadlineFetch, endpointOrigin } from "../util/http";
import { classifyOpenAIAttempt, describeOpenAIError, errorMentionsKey, OPENAI_PLACEHOLDER_KEY, safeBaseURL } from "./openai-errors";
import { retryWithBackoff } from "../util/retry";
import { ChatError, ChatProviderError, stripReasoning, type ChatModel, type ChatRequest, type ChatResponse } from "../models/chat";
import { openaiSdk } from "../util/sdk";
import { servedByOpenAI } from "./served-by";

export interface OpenAIChatOptions {
  /** e.g. "openai/gpt-oss-120b" (vLLM) or "gpt-oss:120b" (Ollama). */
  model: string;
  /** Up to and including the API version, e.g. "http://localhost:8000/v1". */
  baseURL: string;
  /** Local servers usually ignore it. */
  apiKey?: string;
  /** Retries after the first attempt (default 4). */
  maxRetries?: number;
  /** Per-attempt deadline in ms, body included (default 600 000: a reasoning model can think for minutes, unstreamed). */
  timeoutMs?: number;
  concurrency?: number;
  /** OpenAI's reasoning models (o-series, gpt-5) want "max_completion_tokens", which local servers may not know. */
  maxTokensField?: "max_tokens" | "max_completion_tokens";
}

const DEFAULTS = { maxRetries: 4, timeoutMs: DEFAULT_TIMEOUT_S.chat * 1000 } as const;

/** The paper's chat model (DESIGN.md §6). */
const DEFAULT_MODEL = "openai/gpt-oss-120b";

/** A ChatModel over an OpenAI-compatible server; `text` drops reasoning (and a `reasoning` field); "" stays "". */
export function openaiChat(opts: OpenAIChatOptions): ChatModel {
  const { model, baseURL } = opts;
  if (!model) throw new ChatError("openai chat: model name is empty", "NOT_CONFIGURED");
  if (!baseURL) throw new ChatError(`openai chat (${model}): base URL is empty`, "NOT_CONFIGURED");
  const apiKey = opts.apiKey || OPENAI_PLACEHOLDER_KEY;
  const maxRetries = opts.maxRetries ?? DEFAULTS.maxRetries;
  if (!(Number.isInteger(maxRetries) && maxRetries >= 0)) throw new RangeError(`maxRetries must be an integer >= 0, got ${maxRetries}`);
  const concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY.chat;
  if (!(Number.isInteger(concurrency) && concurrency >= 1)) throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  // The SDK validates `timeout` as a positive integer.
  const timeout = Math.max(1, Math.round(opts.timeoutMs ?? DEFAULTS.timeoutMs));
  const maxTokensField = opts.maxTokensField ?? "max_tokens";

  const limit = createSemaphore(concurrency);
  const adaptive = new AdaptiveLimit(limit, concurrency);
  const client = new (openaiSdk().default)({
    apiKey,
    baseURL,
    maxRetries: 0,
    timeout,
    fetch: observingFetch(adaptive, deadlineFetch(timeout)) as unknown as NonNullable<ConstructorParameters<typeof OpenAI>[0]>["fetch"],
  });
  const id = `openai:${model}`;
  const where = `${id} at ${safeBaseURL(baseURL)}`;

  async function complete(req: ChatRequest): Promise<ChatResponse> {
    const body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = {
      model,
      // Some chat templates reject or mis-render an empty system turn.
      messages: [
        ...(req.system ? [{ role: "system" as const, content: req.system }] : []),
        { role: "user" as const, content: req.user },
      ],
      ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
      ...(req.topP !== undefined ? { top_p: req.topP } : {}),
      ...(req.maxTokens !== undefined ? { [maxTokensField]: req.maxTokens } : {}),
      ...(req.reasoningEffort !== undefined ? { reasoning_effort: req.reasoningEffort } : {}),
      ...(req.seed !== undefined ? { seed: req.seed } : {}),
    };
    // The slot is held through the retries: a server that asked us to wait gets no other queued requests.
    return limit.run(async () => {
      const started = performance.now();
      let response: OpenAI.Chat.ChatCompletion;
      try {
        response = await retryWithBackoff(() => client.chat.completions.create(body), {
          attempts: maxRetries + 1,
          baseMs: 500,
          maxMs: 8000,
          classify: classifyOpenAIAttempt,
          maxWaitMs: timeout,
          label: where,
        });
      } catch (err) {
        throw providerError(err, where, apiKey, { timeout, maxRetries });
      }
      const seconds = (performance.now() - started) / 1000;
      const raw = answerContent(response, where);
      const usage = usageOf(response);
      return { text: stripReasoning(raw), raw, usage, seconds, ...servedByOpenAI(response) };
    });
  }

  return { id, endpoint: endpointOrigin(baseURL), complete, limitState: () => adaptive.state(), capacity: concurrency };
}

/** The configured chat model over its base URLs; none is "NOT_CONFIGURED" (not a default to paid api.openai.com). */
export function openaiChatFrom(
  config: Config,
  model?: string,
  more: Partial<Omit<OpenAIChatOptions, "model" | "baseURL" | "apiKey">> = {},
): ChatModel {
  const c = config.chat;
  if (c.baseUrls.length === 0) {
    throw new ChatError(
      // No model name here: the setting is per provider, and reports group skipped work by this text.
      "no OpenAI-compatible chat server configured: set GBR_CHAT_BASE_URL (or OPENAI_BASE_URL) to an " +
        "OpenAI-compatible endpoint such as http://localhost:8000/v1 (vLLM serving openai/gpt-oss-120b, LM Studio, " +
        "Ollama), and GBR_CHAT_API_KEY (or OPENAI_API_KEY) if it needs a key; or pick a Gemini model " +
        "(--llm gemini-2.5-flash with GEMINI_API_KEY)",
      "NOT_CONFIGURED",
      { brief: "no OpenAI-compatible chat server configured: set GBR_CHAT_BASE_URL (or OPENAI_BASE_URL), or --llm gemini-2.5-flash with GEMINI_API_KEY" },
    );
  }
  for (const u of c.baseUrls) checkedBaseUrl(c.urlVariable, u, c.keyVariable);
  const name = openaiChatModel(model, c.model);
  const opts = { timeoutMs: c.timeoutMs, concurrency: c.concurrency, ...more, model: name, apiKey: c.apiKey };
  if (c.baseUrls.length === 1) return openaiChat({ ...opts, baseURL: c.baseUrls[0] });
  // No retry in place: spreadChat sets a failing endpoint aside and sends the request elsewhere.
  return spreadChat(c.baseUrls.map((u) => openaiChat({ maxRetries: 0, ...opts, baseURL: u })));
}

/** `model`, else `configured` unless it names a Gemini model, else openai/gpt-oss-120b. */
export function openaiChatModel(model: string | undefined, configured: string | undefined): string {
  const fromConfig = configured?.trim();
  const named = fromConfig && !/^gemini/i.test(fromConfig) ? fromConfig.replace(/^openai:/i, "") : undefined;
  return model?.trim() || named || DEFAULT_MODEL;
}

/**
 * `content` is a string or an array of text parts. Null (vLLM's gpt-oss when reasoning took the whole budget) is no
 * answer: an EMPTY error for the request, so that it is reported and asked again, never kept as an empty answer.
 */
function answerContent(response: OpenAI.Chat.ChatCompletion, where: string): string {
  const choices: unknown = (response as { choices?: unknown })?.choices;
  if (!Array.isArray(choices) || choices.length === 0) {
    throw new ChatProviderError(`${where}: response has no choices`, "PROVIDER", 200);
  }
  const choice = choices[0] as { message?: { content?: unknown }; finish_reason?: unknown };
  const content = choice?.message?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((p: { text?: unknown }) => (typeof p?.text === "string" ? p.text : "")).join("");
  }
  const finish = typeof choice?.finish_reason === "string" ? `, finish_reason ${choice.finish_reason}` : "";
  const why = choice?.finish_reason === "length" ? "the output budget ran out before an answer (reasoning can take it all)" : "the server sent no text";
  throw new ChatProviderError(`${where}: the answer has no content (content ${JSON.stringify(content ?? null)}${finish}): ${why}; not kept, asked again on the next run`, "EMPTY", 200);
}


function usageOf(response: OpenAI.Chat.ChatCompletion): { input: number; output: number } {
  const u = (response as { usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } | null }).usage;
  const n = (x: unknown) => (typeof x === "number" && Number.isFinite(x) ? x : 0);
  return { input: n(u?.prompt_tokens), output: n(u?.completion_tokens) };
}

function providerError(err: unknown, where: string, apiKey: string, cfg: { timeout: number; maxRetries: number }): ChatError {
  if (err instanceof ChatError) return err;
  const { message, status } = describeOpenAIError(err, { where, apiKey, timeoutMs: cfg.timeout, maxRetries: cfg.maxRetries });
  // No cause when it would carry the key that the message redacts.
  return new ChatProviderError(message, "PROVIDER", status, errorMentionsKey(err, apiKey) ? undefined : { cause: err });
}
