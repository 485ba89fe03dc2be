/** Observer batching as the authors do it: rank order, each prompt under budget, an article too big alone an error. */
import type { DocId } from "../types";
import { countTokens, countTokensJoined } from "../text/tokens";
import { fillPrompt } from "./prompts";
import { OBSERVER_DOC_SEPARATOR, renderObserverDocs, type ReactPrompts } from "./react-prompts";
import { ChatError } from "../models/chat";

/** The observer prompt's budget in o200k tokens, and its chat-template markers counted as the authors do (+ 64). */
export const OBSERVER_BUDGET_TOKENS = 84_000;
export const CHAT_OVERHEAD_TOKENS = 64;

export type ObserverBatch = { docs: { id: DocId; text: string }[]; tokens: number };

/** Each batch: the longest run of next articles whose prompt stays below `budgetTokens` (bisected, not one by one). */
export function observerBatches(
  docs: readonly { id: DocId; text: string }[],
  budgetTokens = OBSERVER_BUDGET_TOKENS,
  promptTokens: (docs: { id: DocId; text: string }[]) => number,
): ObserverBatch[] {
  const out: ObserverBatch[] = [];
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
    // Invariant: `lo` articles fit (with `loTokens`), `hi` do not.
    let lo = 1;
    let loTokens = alone;
    let hi = rest.length;
    while (hi - lo > 1) {
      const mid = (lo + hi) >>> 1;
      const t = promptTokens(rest.slice(0, mid));
      if (t < budgetTokens) [lo, loTokens] = [mid, t];
      else hi = mid;
    }
    out.push({ docs: rest.slice(0, lo), tokens: loTokens });
    start += lo;
  }
  return out;
}

/** As the authors count it: o200k tokens of the system prompt then the user prompt, plus `CHAT_OVERHEAD_TOKENS`. */
export function observerPromptTokens(
  prompts: Pick<ReactPrompts, "OBSERVER_SYSTEM" | "OBSERVER_USER">,
  originalQuery: string,
): (docs: { id: DocId; text: string }[]) => number {
  // Counted in parts (countTokensJoined): the whole prompt's count, with each article's block counted once.
  const mark = "\u0000gbr-docs\u0000";
  const frame = prompts.OBSERVER_SYSTEM + fillPrompt(prompts.OBSERVER_USER, { original_query: originalQuery, retrieved_docs_block: mark });
  const pieces = frame.split(mark);
  return (docs) => {
    const block = docs.flatMap((d, i) => (i > 0 ? [OBSERVER_DOC_SEPARATOR] : []).concat(renderObserverDocs([d])));
    const parts = pieces.flatMap((piece, i) => (i > 0 ? [...block, piece] : [piece]));
    return countTokensJoined(parts) + CHAT_OVERHEAD_TOKENS;
  };
}
