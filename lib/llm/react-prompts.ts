/**
 * What REACT-BM25 sends and how it reads the answers, the same for every prompt set (it is the
 * method, not the prompt): the five templates of a prompt set, filled exactly as the authors'
 * notebook fills them (documents as `[DOC]` blocks, the query history as `- Γύρος i:` lines, the
 * kept articles' texts as `[ΣΧΕΤΙΚΟ_ΚΕΙΜΕΝΟ]` blocks), and the parser that goes with the set.
 */
import { createHash } from "node:crypto";
import type { DocId } from "../types";
import { officialAnswerText, parseObserverOfficial, parsePlannerOfficial } from "./official-parsers";
import { fillPrompt, type PromptSet } from "./prompts";
import { parseObserverAnswer, parsePlannerAnswer, type ObserverAnswer } from "./react-parse";
import { stripReasoning, type ParserName } from "./types";

/** Kept articles whose full texts the planner sees from round 2 on. */
export const PLANNER_KEPT_DOCS = 27;


/**
 * The five REACT prompt templates of a prompt set (the project's, the authors' official ones, or a
 * test's). What goes into their placeholders is the method, the same for every set, and is
 * rendered here exactly as the authors' notebook renders it:
 * - PLANNER_FIRST: `{original_query}` (and `{max_rounds}`, if the template has it);
 * - PLANNER_NEXT: `{original_query}`, `{round_idx}`, `{max_rounds}`, `{query_history}`
 *   (`renderQueryHistory`), `{kept_docs_summary}` (`renderKeptDocs`);
 * - OBSERVER_USER: `{original_query}`, `{retrieved_docs_block}` (`renderObserverDocs`).
 * The answer formats are fixed too: the planner answers `REASON:` then `QUERY:`, the observer
 * `RELEVANT:` then one `doc_id | reason` line per useful article, or `RELEVANT: NONE`.
 */
export interface ReactPrompts {
  plannerSystem: string;
  plannerFirst: string;
  plannerNext: string;
  observerSystem: string;
  observerUser: string;
}

/**
 * The REACT templates of a loaded prompt set.
 */
export function reactPromptsOf(set: Pick<PromptSet, "texts">): ReactPrompts {
  const t = set.texts;
  return {
    plannerSystem: t.PLANNER_SYSTEM,
    plannerFirst: t.PLANNER_FIRST,
    plannerNext: t.PLANNER_NEXT,
    observerSystem: t.OBSERVER_SYSTEM,
    observerUser: t.OBSERVER_USER,
  };
}

/**
 * sha256 of the five templates, recorded in every trace so that a saved trace is reused only for
 * the same prompts (the work folder is named after the prompt set, not its contents).
 */
export function reactPromptsSha256(p: ReactPrompts): string {
  return createHash("sha256").update(JSON.stringify([p.plannerSystem, p.plannerFirst, p.plannerNext, p.observerSystem, p.observerUser]), "utf8").digest("hex");
}

/**
 * `{retrieved_docs_block}`: each article as `[DOC]\ndoc_id: {id}\ntext: {text}\n[/DOC]`, the
 * articles separated by a blank line, in BM25 rank order.
 */
export function renderObserverDocs(docs: readonly { id: DocId; text: string }[]): string {
  return docs.map((d) => `[DOC]\ndoc_id: ${d.id}\ntext: ${d.text}\n[/DOC]`).join(OBSERVER_DOC_SEPARATOR);
}

/** What stands between two articles' blocks in `{retrieved_docs_block}`: a blank line. */
export const OBSERVER_DOC_SEPARATOR = "\n\n";

/**
 * `{query_history}`: the earlier rounds' keyword queries, one line `- Γύρος {round}: {query}`
 * each, round 1 first.
 */
export function renderQueryHistory(queries: readonly string[]): string {
  return queries.map((q, i) => `- Γύρος ${i + 1}: ${q}`).join("\n");
}

/** `{kept_docs_summary}` before the observer has kept anything. */
export const NOTHING_KEPT_YET = "Δεν έχουν σημειωθεί ακόμη σχετικά έγγραφα.";

/**
 * `{kept_docs_summary}`: the full texts (no ids) of the kept articles the planner sees, each as
 * `[ΣΧΕΤΙΚΟ_ΚΕΙΜΕΝΟ]\n{text}\n[/ΣΧΕΤΙΚΟ_ΚΕΙΜΕΝΟ]`, separated by a blank line; `NOTHING_KEPT_YET`
 * when there are none. The caller passes the first 27 of the kept ranking (PLANNER_KEPT_DOCS).
 */
export function renderKeptDocs(texts: readonly string[]): string {
  return texts.length ? texts.map((t) => `[ΣΧΕΤΙΚΟ_ΚΕΙΜΕΝΟ]\n${t}\n[/ΣΧΕΤΙΚΟ_ΚΕΙΜΕΝΟ]`).join("\n\n") : NOTHING_KEPT_YET;
}

/**
 * The planner's user message for one round: PLANNER_FIRST in round 1, PLANNER_NEXT after, with
 * the earlier queries and the texts of the first 27 kept articles (in ranking order).
 */
export function plannerMessage(
  prompts: Pick<ReactPrompts, "plannerFirst" | "plannerNext">,
  q: { originalQuery: string; round: number; maxRounds: number; history: readonly string[]; keptTexts: readonly string[] },
): string {
  if (q.round === 1) return fillPrompt(prompts.plannerFirst, { original_query: q.originalQuery, max_rounds: q.maxRounds });
  return fillPrompt(prompts.plannerNext, {
    original_query: q.originalQuery,
    round_idx: q.round,
    max_rounds: q.maxRounds,
    query_history: renderQueryHistory(q.history),
    kept_docs_summary: renderKeptDocs(q.keptTexts.slice(0, PLANNER_KEPT_DOCS)),
  });
}

/**
 * The observer's user message for one batch of retrieved articles.
 */
export function observerMessage(prompts: Pick<ReactPrompts, "observerUser">, originalQuery: string, docs: readonly { id: DocId; text: string }[]): string {
  return fillPrompt(prompts.observerUser, { original_query: originalQuery, retrieved_docs_block: renderObserverDocs(docs) });
}

/**
 * How answers are read: the project's lenient parsers, or the authors' exact ones
 * (official-parsers.ts) with `--prompts official`. `name` is recorded in every trace.
 */
export interface ReactParser {
  name: ParserName;
  /** The answer text that is parsed (reasoning removed as this parser removes it), for traces. */
  text(raw: string): string;
  planner(raw: string, originalQuery: string): string;
  observer(raw: string, batchIds: ReadonlySet<DocId>): ObserverAnswer;
}

/**
 * The REACT parser of a prompt set: the authors' for "official", the project's otherwise.
 */
export function reactParserFor(name: ParserName): ReactParser {
  return name === "official"
    ? { name, text: officialAnswerText, planner: parsePlannerOfficial, observer: parseObserverOfficial }
    : { name, text: stripReasoning, planner: parsePlannerAnswer, observer: parseObserverAnswer };
}
