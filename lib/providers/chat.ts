/** Turns a model name (`--llm` or `GBR_CHAT_MODEL`) into a ChatModel of the right provider. */
import type { Config } from "../config";
import { geminiChatFrom, geminiChatModel } from "./gemini-chat";
import { openaiChatFrom, openaiChatModel } from "./openai-chat";
import { ChatError, type ChatModel } from "../models/chat";

/** Which provider a chat model name means ("openai:"/"gemini:" prefixes, else a "gemini…" name is Gemini). */
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

/** The chat model named by `name` (else `GBR_CHAT_MODEL`, else gpt-oss-120b) on its provider's servers. */
export function chatModelFrom(config: Config, name?: string): ChatModel {
  const { provider, model } = parseChatModelName(name?.trim() || config.chat.model);
  return provider === "gemini" ? geminiChatFrom(config, model) : openaiChatFrom(config, model);
}

/** The id `chatModelFrom` would give, without a configured provider (`gbr reproduce --plan` needs it). */
export function chatModelId(config: Config, name?: string): string {
  const { provider, model } = parseChatModelName(name?.trim() || config.chat.model);
  return provider === "gemini" ? `gemini:${geminiChatModel(model, config.chat.model)}` : `openai:${openaiChatModel(model, config.chat.model)}`;
}
