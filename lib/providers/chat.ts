/**
 * One entry point that turns a model name (from `--llm` or `GBR_CHAT_MODEL`) into a ChatModel of
 * the right provider, so the CLI, the notebooks and the experiments choose providers the same way.
 * (The run's composition, with its rate caps, is `createProviders` in ./index.ts.)
 */
import type { Config } from "../config";
import { geminiChatFrom, geminiChatModel } from "./gemini-chat";
import { openaiChatFrom, openaiChatModel } from "./openai-chat";
import { ChatError, type ChatModel } from "../llm/types";

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
 * The chat model named by `name` (else `GBR_CHAT_MODEL`, else gpt-oss-120b), on the servers of
 * its provider in `config` (see `parseChatModelName` for the rules). Throws ChatError
 * "NOT_CONFIGURED", saying which variables to set, when that provider is not configured.
 */
export function chatModelFrom(config: Config, name?: string): ChatModel {
  const { provider, model } = parseChatModelName(name?.trim() || config.chat.model);
  return provider === "gemini" ? geminiChatFrom(config, model) : openaiChatFrom(config, model);
}

/**
 * The id (`<provider>:<model>`) of the model `chatModelFrom(config, name)` would return, without
 * needing its provider configured: `gbr reproduce --plan` looks the requests up in the replay
 * cache under it before any server is set up.
 */
export function chatModelId(config: Config, name?: string): string {
  const { provider, model } = parseChatModelName(name?.trim() || config.chat.model);
  return provider === "gemini" ? `gemini:${geminiChatModel(model, config.chat.model)}` : `openai:${openaiChatModel(model, config.chat.model)}`;
}
