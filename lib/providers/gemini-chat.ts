/**
 * Gemini chat via `@google/genai`, retrying 408/429/5xx, time-outs and drops itself (the SDK ignores Retry-After). No
 * `reasoningEffort`: thinking controls differ by generation, a wrong one is a 400, the paper uses it only for gpt-oss.
 */
import { DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT_S, type Config } from "../config";
import type { GenerateContentConfig, GenerateContentResponse } from "@google/genai";
import { createSemaphore } from "../util/semaphore";
import { classifyGeminiAttempt, describeGeminiFailure, GEMINI_API_ORIGIN, GeminiAttemptFailure, geminiClient, geminiEndpoint, observeGeminiFetch } from "./gemini-http";
import { endpointOrigin, redactSecrets } from "../util/http";
import { retryWithBackoff } from "../util/retry";
import { ChatError, ChatProviderError, stripReasoning, type ChatModel, type ChatRequest, type ChatResponse } from "../models/chat";
import { servedByGemini } from "./served-by";

/** Used when neither an argument nor GBR_CHAT_MODEL names one. */
export const GEMINI_CHAT_DEFAULT_MODEL = "gemini-2.5-flash";

export interface GeminiChatOptions {
  apiKey: string;
  /** e.g. "gemini-2.5-flash" ("models/" prefix optional). */
  model: string;
  /** API root without version (default: Google's). */
  baseUrl?: string;
  /** Attempts per call, the first included (default 5). */
  attempts?: number;
  /** One attempt's deadline in ms (default 600 000: thinking models take minutes; Google stops at 10 min). */
  timeoutMs?: number;
  concurrency?: number;
  /** First backoff in ms without Retry-After (default 1000). */
  retryBaseMs?: number;
  /** Longest backoff in ms without Retry-After (default 60000). */
  retryMaxMs?: number;
}

/**
 * A ChatModel over the Gemini API. The answer is the first candidate's non-thought text; `usage.output` counts
 * thinking tokens too, as Google bills them. An empty answer (MAX_TOKENS, SAFETY) is returned as such.
 */
export function geminiChat(opts: GeminiChatOptions): ChatModel {
  const apiKey = opts.apiKey?.trim();
  if (!apiKey) throw new ChatError("geminiChat: apiKey is empty (set GEMINI_API_KEY or GOOGLE_API_KEY)", "NOT_CONFIGURED");
  const model = geminiModelName(opts.model ?? "");
  if (!model) throw new ChatError("geminiChat: model name is empty", "NOT_CONFIGURED");
  const attempts = opts.attempts ?? 5;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_S.chat * 1000;
  const concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY.chat;
  for (const [name, v] of Object.entries({ attempts, timeoutMs, concurrency })) {
    if (!(Number.isInteger(v) && v > 0)) throw new RangeError(`geminiChat: ${name} must be a positive integer, got ${v}`);
  }
  const retryBaseMs = opts.retryBaseMs ?? 1000;
  const retryMaxMs = opts.retryMaxMs ?? 60_000;
  const baseUrl = opts.baseUrl?.trim().replace(/\/+$/, "") || undefined;
  const where = baseUrl ?? "the Gemini API";
  const id = `gemini:${model}`;
  // Scrub the key from anything we show: a proxy or a misbehaving server may echo it back.
  const redact = (s: string) => redactSecrets(s, [apiKey]);

  const ai = geminiClient({ apiKey, baseUrl, timeoutMs });
  const limit = createSemaphore(concurrency);

  /** One HTTP attempt; failures come back as GeminiAttemptFailure for the retry loop to judge. */
  async function attemptOnce(req: ChatRequest): Promise<{ response: GenerateContentResponse; body: unknown }> {
    // The raw body too: the SDK drops fields it does not know, such as the test double's mark.
    const seen = observeGeminiFetch({ timeoutMs, readBody: true });
    const config: GenerateContentConfig = {
      // Left out when empty: Gemini rejects a systemInstruction without text.
      ...(req.system ? { systemInstruction: req.system } : {}),
      ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
      ...(req.topP !== undefined ? { topP: req.topP } : {}),
      ...(req.maxTokens !== undefined ? { maxOutputTokens: req.maxTokens } : {}),
      ...(req.seed !== undefined ? { seed: req.seed } : {}),
      httpOptions: { fetch: seen.fetch },
    };
    try {
      const response = await ai.models.generateContent({ model, contents: req.user, config });
      return { response, body: await seen.body() };
    } catch (err) {
      throw describeGeminiFailure(err, { retryAfterHeaderMs: seen.retryAfterMs(), timeoutMs, where, redact });
    }
  }

  async function complete(req: ChatRequest): Promise<ChatResponse> {
    // The slot is held across backoff sleeps: when told to slow down, the model as a whole should send less.
    return limit.run(async () => {
      const started = performance.now();
      let made = 0;
      let answer: { response: GenerateContentResponse; body: unknown };
      try {
        answer = await retryWithBackoff(
          (attempt) => {
            made = attempt;
            return attemptOnce(req);
          },
          { attempts, baseMs: retryBaseMs, maxMs: retryMaxMs, classify: classifyGeminiAttempt, maxWaitMs: timeoutMs, label: `${id} at ${where}` },
        );
      } catch (err) {
        const tries = `${made} attempt${made === 1 ? "" : "s"}`;
        if (err instanceof GeminiAttemptFailure) {
          throw new ChatProviderError(redact(`${id} at ${where} (${tries}): ${err.message}`), "PROVIDER", err.status);
        }
        // Anything else is a bug of ours or of the SDK; still never let the key out.
        const message = err instanceof Error ? err.message : String(err);
        throw new ChatProviderError(redact(`${id} at ${where} (${tries}): ${message}`), "PROVIDER", undefined);
      }
      const seconds = (performance.now() - started) / 1000;
      const { response, body } = answer;
      const raw = answerText(response, `${id} at ${where}`);
      const usage = usageOf(response);
      return { text: stripReasoning(raw), raw, usage, seconds, ...servedByGemini(body, response.modelVersion) };
    });
  }

  return { id, endpoint: endpointOrigin(baseUrl ?? GEMINI_API_ORIGIN), complete };
}

/** The Gemini chat model of a configuration; ChatError "NOT_CONFIGURED" without a key. */
export function geminiChatFrom(
  config: Config,
  model?: string,
  more: Partial<Omit<GeminiChatOptions, "apiKey" | "model" | "baseUrl">> = {},
): ChatModel {
  const apiKey = config.gemini.apiKey;
  if (!apiKey) {
    throw new ChatError(
      "Gemini chat needs an API key: set GEMINI_API_KEY (or GOOGLE_API_KEY) to a key from " +
        "https://aistudio.google.com/apikey; set GBR_GEMINI_BASE_URL to use another endpoint.",
      "NOT_CONFIGURED",
    );
  }
  return geminiChat({ concurrency: config.chat.concurrency, ...geminiEndpoint(config), ...more, apiKey, model: geminiChatModel(model, config.chat.model) });
}

/** `model`, else a Gemini name in `configured` (a gpt-oss name there is for the other server), else the default. */
export function geminiChatModel(model: string | undefined, configured: string | undefined): string {
  const fromConfig = configured?.trim().replace(/^gemini:/i, "");
  const named = fromConfig && /^(models\/)?gemini/i.test(fromConfig) ? fromConfig : undefined;
  return geminiModelName(model?.trim() || named || GEMINI_CHAT_DEFAULT_MODEL);
}

// The SDK adds "models/" itself; either spelling is accepted, with one identity.
function geminiModelName(name: string): string {
  return name.trim().replace(/^models\//, "");
}

/**
 * The first candidate's non-thought text parts, not the SDK's `text` getter, which warns on non-text parts. No such
 * part (a safety stop, a budget spent on thoughts) is no answer: an EMPTY error, reported and asked again, never kept.
 */
function answerText(response: GenerateContentResponse, where: string): string {
  const candidate = response.candidates?.[0];
  const texts = (candidate?.content?.parts ?? []).filter((p) => typeof p.text === "string" && p.thought !== true);
  if (texts.length > 0) return texts.map((p) => p.text).join("");
  const finish = candidate?.finishReason;
  const why = finish === "MAX_TOKENS" ? "the output budget ran out before an answer (thoughts can take it all)" : "the server sent no text";
  throw new ChatProviderError(`${where}: the answer has no text (finishReason ${finish ?? "none"}): ${why}; not kept, asked again on the next run`, "EMPTY", 200);
}

function usageOf(response: GenerateContentResponse): { input: number; output: number } {
  const u = response.usageMetadata;
  const n = (x: unknown) => (typeof x === "number" && Number.isFinite(x) ? x : 0);
  return { input: n(u?.promptTokenCount), output: n(u?.candidatesTokenCount) + n(u?.thoughtsTokenCount) };
}
