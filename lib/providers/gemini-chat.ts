/**
 * Chat with Gemini models through the official `@google/genai` SDK:
 *
 *   POST {baseUrl}/v1beta/models/{model}:generateContent      header x-goog-api-key: <key>
 *   {"contents": [{"role": "user", "parts": [{"text": user}]}],
 *    "systemInstruction": {"role": "user", "parts": [{"text": system}]},
 *    "generationConfig": {"temperature"?, "topP"?, "maxOutputTokens"?, "seed"?}}
 *   -> {"candidates": [{"content": {"parts": [{"text", "thought"?}]}, "finishReason"}],
 *       "usageMetadata": {"promptTokenCount", "candidatesTokenCount", "thoughtsTokenCount"?}}
 *
 * The SDK makes a single attempt when given no `retryOptions`, and its own retries would ignore
 * Retry-After, so this module retries 408/429/5xx, time-outs and dropped connections itself with
 * lib/util/retry.ts, reading the server's wait through the observing fetch of
 * lib/providers/gemini-http.ts.
 *
 * `reasoningEffort` is not sent: Gemini models control thinking differently by generation
 * (2.5: a token `thinkingBudget` with per-model limits; 3: a `thinkingLevel`), a wrong one is a
 * 400, and the paper uses reasoning effort only for gpt-oss. The models' default thinking applies.
 */
import { DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT_S, type Config } from "../config";
import type { GenerateContentConfig, GenerateContentResponse } from "@google/genai";
import { createSemaphore } from "../util/semaphore";
import { classifyGeminiAttempt, describeGeminiFailure, GEMINI_API_ORIGIN, GeminiAttemptFailure, geminiClient, geminiEndpoint, observeGeminiFetch } from "./gemini-http";
import { endpointOrigin, longRequestDispatcher } from "../util/http";
import { retryWithBackoff } from "../util/retry";
import { ChatError, ChatProviderError, stripReasoning, type ChatModel, type ChatRequest, type ChatResponse } from "../llm/types";
import { servedByGemini } from "./served-by";

/**
 * The Gemini chat model used when neither an argument nor GBR_CHAT_MODEL names one.
 */
export const GEMINI_CHAT_DEFAULT_MODEL = "gemini-2.5-flash";

/**
 * How to reach the Gemini API (or a local double of it), and how patiently.
 */
export interface GeminiChatOptions {
  apiKey: string;
  /** Model name as the Gemini API knows it, e.g. "gemini-2.5-flash" ("models/" prefix optional). */
  model: string;
  /** API root without version, e.g. a local double "http://127.0.0.1:PORT" (default: Google's). */
  baseUrl?: string;
  /** Attempts per call, the first included (default 5). */
  attempts?: number;
  /**
   * Deadline of one attempt in ms, answer included (default 600 000: thinking models with a large
   * output budget take minutes; Google itself ends unary calls after 10 minutes).
   */
  timeoutMs?: number;
  /** Requests in flight at once from this model (default 4). */
  concurrency?: number;
  /** First backoff delay in ms when the server gives no Retry-After (default 1000; tests use 1). */
  retryBaseMs?: number;
  /** Longest backoff delay in ms without Retry-After (default 60000). */
  retryMaxMs?: number;
}

/**
 * A ChatModel over the Gemini API. `complete()` sends one `generateContent` request with the
 * system prompt as `systemInstruction`, the user text as the only turn, and the sampling settings
 * in `generationConfig`; it may be called concurrently, with at most `concurrency` requests in
 * flight. `text` and `raw` are the first candidate's non-thought text parts (thought summaries,
 * if a model sends them, are never part of the answer); `usage.output` counts thinking tokens
 * too, as Google bills them. An empty answer (e.g. finishReason MAX_TOKENS or SAFETY) is
 * returned as such: the caller decides.
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
  const redact = (s: string) => s.split(apiKey).join("[redacted]");

  const ai = geminiClient({ apiKey, baseUrl, timeoutMs });
  // Our fetch replaces the SDK's, and with it the SDK's untimed dispatcher: put one back so Node's
  // 300 s limits cannot cut an answer that `timeoutMs` still allows.
  const dispatcher = longRequestDispatcher();
  const limit = createSemaphore(concurrency);

  /** One HTTP attempt; failures come back as GeminiAttemptFailure so the retry loop can judge them. */
  async function attemptOnce(req: ChatRequest): Promise<{ response: GenerateContentResponse; body: unknown }> {
    // The raw body too: the SDK drops fields it does not know, such as the test double's mark.
    const seen = observeGeminiFetch({ dispatcher, readBody: true });
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
    // The slot is held across backoff sleeps on purpose: when the server says "slow down", this
    // model as a whole should send less, not refill the freed slot at once.
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
          { attempts, baseMs: retryBaseMs, maxMs: retryMaxMs, classify: classifyGeminiAttempt },
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
      const raw = answerText(response);
      const usage = usageOf(response);
      return { text: stripReasoning(raw), raw, usage, seconds, ...servedByGemini(body, response.modelVersion) };
    });
  }

  return { id, endpoint: endpointOrigin(baseUrl ?? GEMINI_API_ORIGIN), complete };
}

/**
 * The Gemini chat model of a configuration: key from `GEMINI_API_KEY` (else `GOOGLE_API_KEY`),
 * endpoint from `GBR_GEMINI_BASE_URL` (else Google's), deadline from `GBR_REQUEST_TIMEOUT_S`,
 * model from the argument, else `geminiChatModel`. Throws ChatError "NOT_CONFIGURED" without a key.
 */
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

/**
 * The Gemini chat model asked for: `model`, else a Gemini name in `configured`
 * (`GBR_CHAT_MODEL`; a gpt-oss name there is meant for the OpenAI-compatible server), else
 * gemini-2.5-flash; without a "models/" prefix, as the model's id has it.
 */
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
 * The first candidate's answer: its text parts that are not thoughts, joined. Read from the parts
 * rather than the SDK's `text` getter, which logs warnings to the console for non-text parts.
 */
function answerText(response: GenerateContentResponse): string {
  const parts = response.candidates?.[0]?.content?.parts ?? [];
  return parts.map((p) => (typeof p.text === "string" && p.thought !== true ? p.text : "")).join("");
}

function usageOf(response: GenerateContentResponse): { input: number; output: number } {
  const u = response.usageMetadata;
  const n = (x: unknown) => (typeof x === "number" && Number.isFinite(x) ? x : 0);
  return { input: n(u?.promptTokenCount), output: n(u?.candidatesTokenCount) + n(u?.thoughtsTokenCount) };
}
