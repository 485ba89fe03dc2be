/**
 * Observer batching as the authors do it: the retrieved articles, in rank order, go to the
 * observer in batches whose whole prompt (system + user message, o200k_harmony tokens + 64) stays
 * strictly under 84,000 tokens; an article that does not fit alone is an error.
 */
import type { DocId } from "../types";
import { countTokens, countTokensJoined, countTokensRemembered } from "../util/tokens";
import { fillPrompt } from "./prompts";
import { OBSERVER_DOC_SEPARATOR, observerMessage, renderObserverDocs, type ReactPrompts } from "./react-prompts";
import { ChatError } from "./types";

/** Observer prompt budget in o200k tokens (system + user + chat overhead must stay below it). */
export const OBSERVER_BUDGET_TOKENS = 84_000;

/**
 * Tokens added to every counted observer prompt for the chat template's role and turn markers,
 * as the authors' batching code does (`len(enc.encode(prompt)) + 64`).
 */
export const CHAT_OVERHEAD_TOKENS = 64;


/** One observer call's articles and the counted size of its full prompt. */
export interface ObserverBatch {
  docs: { id: DocId; text: string }[];
  /** o200k tokens of the whole prompt as `promptTokens` counted it. */
  tokens: number;
}

/**
 * Splits the retrieved articles, in rank order, into observer batches whose full prompt stays
 * below `budgetTokens` (strictly, as the reference does): each batch is the longest run of the
 * next articles that fits, which is exactly what adding articles one by one and starting a new
 * batch at the first misfit gives, because the prompt grows with every article.
 *
 * `promptTokens(docs)` counts the whole prompt for those articles; REACT passes
 * `observerPromptTokens`, which renders the real prompt and counts it with o200k. Every decision
 * rests on such exact counts of rendered prompts. To need few of them (a 100-article prompt is
 * ~100k tokens), the cut is first guessed from each article's own token count plus the average
 * per-article wrapping (calibrated on the two exact counts already made), then confirmed with
 * exact counts around the guess, falling back to bisection when the guess is off.
 *
 * An article that does not fit even alone is a `ChatError` with code "BUDGET" naming it and its
 * token counts. No articles, no batches.
 */
export function observerBatches(
  docs: readonly { id: DocId; text: string }[],
  budgetTokens = OBSERVER_BUDGET_TOKENS,
  promptTokens: (docs: { id: DocId; text: string }[]) => number,
): ObserverBatch[] {
  const out: ObserverBatch[] = [];
  let weights: number[] | undefined; // o200k tokens of each article's text, for the guess only
  let start = 0;
  while (start < docs.length) {
    const rest = docs.slice(start);
    const all = promptTokens(rest);
    if (all < budgetTokens) {
      out.push({ docs: rest, tokens: all });
      break;
    }
    const first = rest[0];
    const alone = rest.length === 1 ? all : promptTokens([first]);
    if (!(alone < budgetTokens)) {
      throw new ChatError(
        `article '${first.id}' does not fit in an observer prompt on its own: ${countTokens(first.text)} tokens of text, ` +
          `${alone} tokens as the prompt's only article, budget ${budgetTokens}`,
        "BUDGET",
      );
    }
    // Here rest.length >= 2: one article fits, all of them do not.
    weights ??= docs.map((d) => countTokensRemembered(d.text));
    const w = weights.slice(start);
    let tail = 0;
    for (let i = 1; i < w.length; i++) tail += w[i];
    const wrap = (all - alone - tail) / (rest.length - 1); // makes the estimate exact at both ends
    let guess = 1;
    for (let est = alone; guess < rest.length && est + w[guess] + wrap < budgetTokens; guess++) est += w[guess] + wrap;

    // Invariant: `lo` articles fit (with `loTokens`), `hi` do not.
    let lo = 1;
    let loTokens = alone;
    let hi = rest.length;
    const probe = (p: number): boolean => {
      const t = promptTokens(rest.slice(0, p));
      if (t < budgetTokens) {
        lo = p;
        loTokens = t;
        return true;
      }
      hi = p;
      return false;
    };
    if (guess > lo && guess < hi) {
      if (probe(guess)) {
        if (guess + 1 < hi) probe(guess + 1);
      } else if (guess - 1 > lo) probe(guess - 1);
    }
    while (hi - lo > 1) probe((lo + hi) >>> 1);
    out.push({ docs: rest.slice(0, lo), tokens: loTokens });
    start += lo;
  }
  return out;
}

/**
 * Counts a full observer prompt the way the authors do: o200k tokens of the system prompt
 * followed directly by the rendered user prompt, plus `CHAT_OVERHEAD_TOKENS` for the chat
 * template.
 */
export function observerPromptTokens(
  prompts: Pick<ReactPrompts, "observerSystem" | "observerUser">,
  originalQuery: string,
): (docs: { id: DocId; text: string }[]) => number {
  // The prompt is the system text, the template up to the articles, the articles' blocks joined
  // by a blank line, and the rest of the template: counted as those parts (countTokensJoined),
  // which gives the whole prompt's count while each article's block is counted once.
  const mark = "\u0000gbr-docs\u0000";
  const frame = prompts.observerSystem + fillPrompt(prompts.observerUser, { original_query: originalQuery, retrieved_docs_block: mark });
  const at = frame.indexOf(mark);
  if (at < 0 || frame.indexOf(mark, at + mark.length) >= 0) {
    // The template holds the articles twice or not at all: count the rendered prompt whole.
    return (docs) => countTokens(prompts.observerSystem + observerMessage(prompts, originalQuery, docs)) + CHAT_OVERHEAD_TOKENS;
  }
  const head = frame.slice(0, at);
  const tail = frame.slice(at + mark.length);
  return (docs) => {
    const parts: string[] = [head];
    docs.forEach((d, i) => {
      if (i > 0) parts.push(OBSERVER_DOC_SEPARATOR);
      parts.push(renderObserverDocs([d]));
    });
    parts.push(tail);
    return countTokensJoined(parts) + CHAT_OVERHEAD_TOKENS;
  };
}
