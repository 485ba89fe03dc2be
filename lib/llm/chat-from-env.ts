/**
 * One entry point that turns a model name (from `--llm` or `GBR_CHAT_MODEL`) into a ChatModel of
 * the right provider, so the CLI, the notebooks and the experiments choose providers the same way.
 */
import { geminiChatFromEnv, geminiChatModelFromEnv } from "./gemini-chat";
import { openaiChatFromEnv, openaiChatModelFromEnv } from "./openai-chat";
import { ChatError, withComplete, type ChatModel } from "./types";
import { RateCap, sharedRateCap } from "../util/rate-cap";
import { countTokens } from "../util/tokens";

/**
 * Which provider a chat model name means, and the model name that provider gets.
 *
 * - "openai:<model>" → the OpenAI-compatible server, model as written (may itself contain ":",
 *   as Ollama's "gpt-oss:120b" does);
 * - "gemini:<model>" → Gemini;
 * - a name starting with "gemini" (or "models/gemini") → Gemini;
 * - anything else → the OpenAI-compatible server (vLLM, LM Studio, Ollama …);
 * - no name → `GBR_CHAT_MODEL`, else the paper's "openai/gpt-oss-120b" on the OpenAI-compatible
 *   server. There is deliberately no fallback to Gemini when no server is configured: a different
 *   model would silently change the experiment (and start a paid API).
 *
 * The ids ChatModels report ("openai:…", "gemini:…") parse back to the same provider and model.
 *
 * @example
 * parseChatModelName("gemini-2.5-flash");     // { provider: "gemini", model: "gemini-2.5-flash" }
 * parseChatModelName("openai:gemini-2.5-pro"); // { provider: "openai", model: "gemini-2.5-pro" } (e.g. via LiteLLM)
 * parseChatModelName("gpt-oss:20b");          // { provider: "openai", model: "gpt-oss:20b" }
 * parseChatModelName(undefined);              // { provider: "openai", model: undefined } (the provider's default)
 */
export function parseChatModelName(name: string | undefined): { provider: "openai" | "gemini"; model: string | undefined } {
  const n = name?.trim();
  if (!n) return { provider: "openai", model: undefined };
  const prefixed = /^(openai|gemini):(.*)$/i.exec(n);
  if (prefixed) {
    const model = prefixed[2].trim();
    if (!model) throw new ChatError(`chat model "${n}" names a provider but no model; e.g. "${prefixed[1].toLowerCase()}:<model>"`, "NOT_CONFIGURED");
    return { provider: prefixed[1].toLowerCase() as "openai" | "gemini", model };
  }
  return { provider: /^(models\/)?gemini/i.test(n) ? "gemini" : "openai", model: n };
}

/**
 * The chat model named by `name` (else `GBR_CHAT_MODEL`, else gpt-oss-120b), configured from the
 * environment of its provider (see `parseChatModelName` for the rules). Throws ChatError
 * "NOT_CONFIGURED", saying which variables to set, when that provider is not configured.
 *
 * @example
 * // GBR_CHAT_BASE_URL=http://localhost:8000/v1
 * chatFromEnv().id;                    // "openai:openai/gpt-oss-120b"
 * // GEMINI_API_KEY=…
 * chatFromEnv("gemini-2.5-flash").id;  // "gemini:gemini-2.5-flash"
 * chatFromEnv("openai:gpt-oss:20b").id; // "openai:gpt-oss:20b"
 */
export function chatFromEnv(name?: string, env: NodeJS.ProcessEnv = process.env): ChatModel {
  const { provider, model } = parseChatModelName(name?.trim() || env.GBR_CHAT_MODEL?.trim() || undefined);
  const chat = provider === "gemini" ? geminiChatFromEnv(model, {}, env) : openaiChatFromEnv(model, {}, env);
  const cap = sharedRateCap("chat", env);
  return cap ? rateCappedChat(chat, cap) : chat;
}

/**
 * A chat model whose requests wait for the rate caps (GBR_CHAT_RPM, GBR_CHAT_TPM): each reserves
 * its o200k input count plus its output limit, then what the answer reported.
 *
 * @example
 * const chat = rateCappedChat(openaiChatFromEnv(), new RateCap({ requestsPerMinute: 500 }));
 */
export function rateCappedChat(chat: ChatModel, cap: RateCap): ChatModel {
  return withComplete(chat, async (req) => {
    const ticket = await cap.acquire(countTokens(req.system) + countTokens(req.user) + (req.maxTokens ?? 0));
    const res = await chat.complete(req);
    ticket.settle(res.usage.input + res.usage.output);
    return res;
  });
}

/**
 * The id (`<provider>:<model>`) of the model `chatFromEnv(name, env)` would return, without
 * needing its provider configured: `gbr reproduce --plan` looks the requests up in the replay
 * cache under it before any server is set up. The model name comes from the same helpers the
 * providers use (`openaiChatModelFromEnv`, `geminiChatModelFromEnv`), so the two agree.
 *
 * @example
 * chatModelIdFromEnv(undefined, {});            // "openai:openai/gpt-oss-120b"
 * chatModelIdFromEnv("gemini-2.5-flash", {});   // "gemini:gemini-2.5-flash"
 */
export function chatModelIdFromEnv(name?: string, env: NodeJS.ProcessEnv = process.env): string {
  const { provider, model } = parseChatModelName(name?.trim() || env.GBR_CHAT_MODEL?.trim() || undefined);
  return provider === "gemini" ? `gemini:${geminiChatModelFromEnv(model, env)}` : `openai:${openaiChatModelFromEnv(model, env)}`;
}
