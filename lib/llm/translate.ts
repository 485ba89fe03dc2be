/**
 * The translation baseline: the same LLM translates every article and every query into English,
 * then English BM25 and the dense models run on the English texts.
 *
 * The corpus has 6,308 articles, so translation is the most expensive LLM job of the paper; it
 * is cached per item in a JSONL file exactly like reformulation (`runCachedCalls`), and a rerun
 * asks only for what is missing.
 */
import { parseTranslationOfficial } from "./official-parsers";
import { fillPrompt, parserFor, type PromptSet } from "./prompts";
import { runCachedCalls, type CachedCallOptions, type CachedRecord } from "./cached-calls";
import { stripReasoning, type ChatModel, type ChatRequest, type ParserName } from "./types";

/**
 * What is being translated; filled into {text_type}.
 */
export type TextType = "article" | "query";

/**
 * Sampling settings of the translation calls. The notebook translates deterministically
 * (temperature 0) with a 32,768-token output limit, unlike the 0.2 / 42,000 of the other calls:
 * a translation has one right answer, and an article's English is about as long as its Greek.
 */
export const TRANSLATION_PARAMS = {
  temperature: 0,
  topP: 1,
  reasoningEffort: "low",
  maxTokens: 32768,
} as const satisfies Partial<ChatRequest>;

/**
 * One translation (as v0.8 stored it per line of its result file); `kind` is the text type.
 */
export interface TranslationRecord extends CachedRecord {
  kind: TextType;
  /** The English text, or the source text on fallback. */
  translation: string;
}

/**
 * The exact chat request for one item: TRANSLATION_SYSTEM, and TRANSLATION_USER filled with the
 * text type, the item's id and its text verbatim.
 */
export function buildTranslationRequest(item: { id: string; text: string }, textType: TextType, prompts: PromptSet): ChatRequest {
  return {
    system: prompts.texts.TRANSLATION_SYSTEM,
    user: fillPrompt(prompts.texts.TRANSLATION_USER, { text_type: textType, item_id: item.id, source_text: item.text }),
    ...TRANSLATION_PARAMS,
  };
}

/**
 * The translation in a model's answer: reasoning removed, and a code fence wrapped around the
 * whole answer (which models add despite being told not to) dropped. Inner line breaks are kept:
 * they carry the article's structure.
 */
export function cleanTranslation(text: string): string {
  const t = stripReasoning(text);
  const fenced = /^```[^\n]*\n([\s\S]*?)\n?```$/.exec(t);
  return (fenced ? fenced[1] : t).trim();
}

/**
 * The English text for one answer, as the prompt set's parser reads it: "project" drops a code
 * fence around the whole answer (`cleanTranslation`) and falls back to the source text when
 * nothing is left; "official" keeps the answer as the authors' notebook stores it
 * (`parseTranslationOfficial`), empty or not.
 */
export function translationOf(raw: string, parser: ParserName, source: string): { text: string; fallback: boolean } {
  if (parser === "official") return { text: parseTranslationOfficial(raw), fallback: false };
  const english = cleanTranslation(raw);
  return english === "" ? { text: source, fallback: true } : { text: english, fallback: false };
}

/**
 * Translates items (articles or queries) into English; returns the English text per id, in the
 * order of `items`. Answers are read by the prompt set's parser (`translationOf`): with the
 * project prompts an empty answer falls back to the source text (logged, stored with
 * `fallback: true`); with the official ones it stays as the authors stored it. A reused record is
 * read again from its raw answer. Resumable through the model's store (`withReplay`): a second run
 * with the same prompts and model makes no calls.
 */
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
