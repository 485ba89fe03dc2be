/** The translation baseline: every article and query into English by one LLM, cached per item (6,308 articles). */
import { parseTranslationOfficial } from "./official-parsers";
import { fillPrompt, parserFor, type PromptSet } from "./prompts";
import { runCachedCalls, type CachedCallOptions, type CachedRecord } from "./cached-calls";
import { stripReasoning, type ChatModel, type ChatRequest } from "../models/chat";
import type { ParserName } from "./prompts";

/** Filled into {text_type}. */
export type TextType = "article" | "query";

/**
 * As the notebook: temperature 0 and a 32,768-token cap, unlike the other calls' 0.2 / 42,000: a translation has
 * one right answer, and an article's English is about as long as its Greek.
 */
export const TRANSLATION_PARAMS = {
  temperature: 0,
  topP: 1,
  reasoningEffort: "low",
  maxTokens: 32768,
} as const satisfies Partial<ChatRequest>;

/** One translation, as a v0.8 result file line stores it; `kind` is the text type. */
export interface TranslationRecord extends CachedRecord {
  kind: TextType;
  /** The English text, or the source text on fallback. */
  translation: string;
}

/** TRANSLATION_SYSTEM, and TRANSLATION_USER filled with the text type, the id and the text verbatim. */
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

/** "project": `cleanTranslation`, else the source text; "official": as the notebook stores it, empty or not. */
function translationOf(raw: string, parser: ParserName, source: string): { text: string; fallback: boolean } {
  if (parser === "official") return { text: parseTranslationOfficial(raw), fallback: false };
  const english = cleanTranslation(raw);
  return english === "" ? { text: source, fallback: true } : { text: english, fallback: false };
}

/** English text per id, in `items` order (reused records re-read from `raw`); resumable through the store. */
export async function translateItems(
  items: readonly { id: string; text: string }[],
  textType: TextType,
  model: ChatModel,
  prompts: PromptSet,
  opts: CachedCallOptions = {},
): Promise<Map<string, string>> {
  const parser = parserFor(prompts);
  const source = new Map(items.map((it) => [it.id, it.text] as const));
  const records = await runCachedCalls<{ id: string; text: string }, TranslationRecord>(items, model, opts, {
    label: `translate ${textType}`,
    kind: textType,
    request: (item) => buildTranslationRequest(item, textType, prompts),
    isValid: (rec) => typeof rec.raw === "string",
    toRecord: (item, res, base) => {
      const t = translationOf(res.raw, parser, item.text);
      return { ...base, kind: textType, translation: t.text, parser, ...(t.fallback ? { fallback: true } : {}) };
    },
  });
  return new Map([...records].map(([id, r]) => [id, translationOf(r.raw, parser, source.get(id)!).text] as const));
}
