/** REACT-BM25's messages, filled exactly as the authors' notebook does for every prompt set, and the set's parser. */
import type { DocId } from "../types";
import { officialAnswerText, parseObserverOfficial, parsePlannerOfficial } from "./official-parsers";
import { fillPrompt, type PromptSet, type PromptSetName } from "./prompts";
import { parseObserverAnswer, parsePlannerAnswer, type ObserverAnswer } from "./react-parse";
import { stripReasoning } from "../models/chat";
import { digestOf } from "../util/safe-files";

/** Kept articles whose full texts the planner sees from round 2 on. */
export const PLANNER_KEPT_DOCS = 27;

/** The five REACT templates of a prompt set (the answer formats are fixed: `QUERY:`, `RELEVANT:` / `id | reason`). */
export type ReactPrompts = Pick<
  PromptSet["texts"],
  "PLANNER_SYSTEM" | "PLANNER_FIRST" | "PLANNER_NEXT" | "OBSERVER_SYSTEM" | "OBSERVER_USER"
>;

/** Recorded in traces so a saved trace is reused only for the same texts (the work folder names only the set). */
export function reactPromptsSha256(p: ReactPrompts): string {
  return digestOf(JSON.stringify([p.PLANNER_SYSTEM, p.PLANNER_FIRST, p.PLANNER_NEXT, p.OBSERVER_SYSTEM, p.OBSERVER_USER]));
}

/** `{retrieved_docs_block}`: one `[DOC]` block per article in BM25 rank order, separated by a blank line. */
export function renderObserverDocs(docs: readonly { id: DocId; text: string }[]): string {
  return docs.map((d) => `[DOC]\ndoc_id: ${d.id}\ntext: ${d.text}\n[/DOC]`).join(OBSERVER_DOC_SEPARATOR);
}

export const OBSERVER_DOC_SEPARATOR = "\n\n";

export const NOTHING_KEPT_YET = "Δεν έχουν σημειωθεί ακόμη σχετικά έγγραφα.";

/** PLANNER_FIRST in round 1; then PLANNER_NEXT with the earlier queries and the first 27 kept texts (rank order). */
export function plannerMessage(
  prompts: Pick<ReactPrompts, "PLANNER_FIRST" | "PLANNER_NEXT">,
  q: { originalQuery: string; round: number; maxRounds: number; history: readonly string[]; keptTexts: readonly string[] },
): string {
  if (q.round === 1) return fillPrompt(prompts.PLANNER_FIRST, { original_query: q.originalQuery, max_rounds: q.maxRounds });
  const kept = q.keptTexts.slice(0, PLANNER_KEPT_DOCS).map((t) => `[ΣΧΕΤΙΚΟ_ΚΕΙΜΕΝΟ]\n${t}\n[/ΣΧΕΤΙΚΟ_ΚΕΙΜΕΝΟ]`);
  return fillPrompt(prompts.PLANNER_NEXT, {
    original_query: q.originalQuery,
    round_idx: q.round,
    max_rounds: q.maxRounds,
    query_history: q.history.map((h, i) => `- Γύρος ${i + 1}: ${h}`).join("\n"),
    kept_docs_summary: kept.length ? kept.join("\n\n") : NOTHING_KEPT_YET,
  });
}

export function observerMessage(prompts: Pick<ReactPrompts, "OBSERVER_USER">, originalQuery: string, docs: readonly { id: DocId; text: string }[]): string {
  return fillPrompt(prompts.OBSERVER_USER, { original_query: originalQuery, retrieved_docs_block: renderObserverDocs(docs) });
}

/** The project's lenient parsers, or the authors' exact ones (`--prompts official`); `name` goes in traces. */
export interface ReactParser {
  name: PromptSetName;
  /** For traces: the answer as this parser sees it. */
  text(raw: string): string;
  planner(raw: string, originalQuery: string): string;
  observer(raw: string, batchIds: ReadonlySet<DocId>): ObserverAnswer;
}

export function reactParserFor(name: PromptSetName): ReactParser {
  return name === "official"
    ? { name, text: officialAnswerText, planner: parsePlannerOfficial, observer: parseObserverOfficial }
    : { name, text: stripReasoning, planner: parsePlannerAnswer, observer: parseObserverAnswer };
}
