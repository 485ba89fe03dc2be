/** Gemini chat via `@google/genai`; no `reasoningEffort`: thinking controls differ by generation (a wrong one is a 400). */
import { DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT_S, type Config } from "../config";
import type { GenerateContentConfig, GenerateContentResponse } from "@google/genai";
import { attemptsMade, GeminiAttemptFailure, geminiEndpoint, geminiServer, type GeminiServerOptions } from "./gemini-http";
import { NEED_KEY } from "./gemini-http";
import { ChatError, stripReasoning, type ChatModel, type ChatRequest, type ChatResponse } from "../models/chat";
import { servedByGemini } from "./served-by";

export interface GeminiChatOptions extends GeminiServerOptions {
  model: string;
}

/** A ChatModel over the Gemini API; `usage.output` counts thinking tokens too, as Google bills them. */
export function geminiChat(opts: GeminiChatOptions): ChatModel {
  const apiKey = opts.apiKey?.trim();
  if (!apiKey) throw new ChatError(`Gemini chat: ${NEED_KEY}`, "NOT_CONFIGURED");
  const model = geminiModelName(opts.model);
  const id = `gemini:${model}`;
  const settings = { ...opts, apiKey, timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_S.chat * 1000, concurrency: opts.concurrency ?? DEFAULT_CONCURRENCY.chat };
  const api = geminiServer(id, settings);
  const where = `${id} at ${api.where}`;

  async function complete(req: ChatRequest): Promise<ChatResponse> {
    // The SDK leaves out undefined fields; an empty system is left out too (Gemini rejects one without text).
    const { system, temperature, topP, maxTokens: maxOutputTokens, seed } = req;
    const config: GenerateContentConfig = { systemInstruction: system || undefined, temperature, topP, maxOutputTokens, seed };
    const { value: response, body, seconds } = await api.send(
      (fetch) => api.ai.models.generateContent({ model, contents: req.user, config: { ...config, httpOptions: { fetch } } }),
      (err, made) => {
        // Anything but an attempt's failure is a bug of ours or of the SDK; still never let the key out.
        const message = err instanceof Error ? err.message : String(err);
        return new ChatError(api.redact(`${where} (${attemptsMade(made)}): ${message}`), "PROVIDER", { status: err instanceof GeminiAttemptFailure ? err.status : undefined });
      },
    );
    const raw = answerText(response, where);
    return { text: stripReasoning(raw), raw, usage: usageOf(response), seconds, ...servedByGemini(body, response.modelVersion) };
  }

  return { id, endpoint: api.endpoint, complete };
}

export function geminiChatFrom(
  config: Config,
  model?: string,
  more: Partial<Omit<GeminiChatOptions, "apiKey" | "model" | "baseUrl">> = {},
): ChatModel {
  const apiKey = config.gemini.apiKey ?? "";
  return geminiChat({ concurrency: config.chat.concurrency, ...geminiEndpoint(config), ...more, apiKey, model: geminiChatModel(model, config.chat.model) });
}

/** `model`, else a Gemini name in `configured` (a gpt-oss name there is for the other server), else gemini-2.5-flash. */
export function geminiChatModel(model: string | undefined, configured: string | undefined): string {
  const fromConfig = configured?.trim().replace(/^gemini:/i, "");
  const named = fromConfig && /^(models\/)?gemini/i.test(fromConfig) ? fromConfig : undefined;
  return geminiModelName(model?.trim() || named || "gemini-2.5-flash");
}

// The SDK adds "models/" itself; either spelling is accepted, with one identity.
function geminiModelName(name: string): string {
  return name.trim().replace(/^models\//, "");
}

/** The first candidate's non-thought text; none (a safety stop, thoughts took the budget) is an EMPTY error, never kept. */
function answerText(response: GenerateContentResponse, where: string): string {
  const candidate = response.candidates?.[0];
  const texts = (candidate?.content?.parts ?? []).filter((p) => typeof p.text === "string" && p.thought !== true);
  if (texts.length > 0) return texts.map((p) => p.text).join("");
  const finish = candidate?.finishReason;
  const why = finish === "MAX_TOKENS" ? "the output budget ran out before an answer (thoughts can take it all)" : "the server sent no text";
  throw new ChatError(`${where}: the answer has no text (finishReason ${finish ?? "none"}): ${why}; not kept, asked again on the next run`, "EMPTY", { status: 200 });
}

function usageOf(response: GenerateContentResponse): { input: number; output: number } {
  const u = response.usageMetadata;
  const n = (x: unknown) => (typeof x === "number" && Number.isFinite(x) ? x : 0);
  return { input: n(u?.promptTokenCount), output: n(u?.candidatesTokenCount) + n(u?.thoughtsTokenCount) };
}
