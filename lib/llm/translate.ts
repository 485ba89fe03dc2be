/** The translation baseline: every article and query into English by one LLM, cached per item (6,308 articles). */
import { officialAnswerText } from "./official-parsers";
import { fillPrompt, notebookParams, type PromptSet } from "./prompts";
import { runCachedCalls, type CachedCallOptions } from "./cached-calls";
import { stripReasoning, type ChatModel, type ChatRequest } from "../models/chat";

export type TextType = "article" | "query";

/** As the notebook: temperature 0 and a 32,768-token cap (a translation has one right answer, as long as its source). */
export const TRANSLATION_PARAMS = notebookParams(0, 32768) satisfies Partial<ChatRequest>;

export function buildTranslationRequest(item: { id: string; text: string }, textType: TextType, prompts: PromptSet): ChatRequest {
  return {
    system: prompts.texts.TRANSLATION_SYSTEM,
    user: fillPrompt(prompts.texts.TRANSLATION_USER, { text_type: textType, item_id: item.id, source_text: item.text }),
    ...TRANSLATION_PARAMS,
  };
}

/** Reasoning and a whole-answer code fence (models add one anyway) dropped; line breaks kept (article structure). */
export function cleanTranslation(text: string): string {
  const t = stripReasoning(text);
  const fenced = /^```[^\n]*\n([\s\S]*?)\n?```$/.exec(t);
  return (fenced ? fenced[1] : t).trim();
}

/** English text per id, in `items` order; the project parser falls back to the source text, the official one never. */
export async function translateItems(
  items: readonly { id: string; text: string }[],
  textType: TextType,
  model: ChatModel,
  prompts: PromptSet,
  opts: CachedCallOptions = {},
): Promise<Map<string, string>> {
  const official = prompts.name === "official";
  return runCachedCalls(items, model, opts, {
    label: `translate ${textType}`,
    request: (item) => buildTranslationRequest(item, textType, prompts),
    parse: official ? officialAnswerText : cleanTranslation,
    keepEmpty: official,
  });
}
