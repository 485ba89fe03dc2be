/**
 * REACT-BM25, the paper's agentic sparse retriever: for up to 10 rounds per query a planner LLM
 * writes a Greek keyword query, BM25-GREEKSTEMMER (positive scores only) retrieves its top 100,
 * and an observer LLM reads the full retrieved articles and keeps the useful ones. The final
 * ranking contains only kept articles: kept in more rounds first, then kept earlier, then with a
 * better BM25 rank, then by id.
 *
 * Every decision follows DESIGN.md §6 and the authors' public notebook. Prompt texts are
 * injected (`ReactPrompts`), so this file holds only the algorithm, the parsing of the two
 * answer formats, token budgeting and the resumable, per-query traces.
 */
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import type { Doc, DocId, Query, QueryId, Run } from "../types";
import type { IndexedCorpus } from "../sparse/bm25-retriever";
import type { Bm25Scorer } from "../sparse/bm25";
import { evaluate } from "../eval/metrics";
import { clean } from "../text/normalize";
import { chatParams, ChatError, stripReasoning, type ChatModel, type ChatParams, type ChatRequest, type ChatResponse, type ChatUsage, type ParserName } from "./types";
import { countTokens } from "../util/tokens";
import { compareCodePoints } from "../util/code-points";
import { fillPrompt, type PromptSet } from "./prompts";
import { officialAnswerText, parseObserverOfficial, parsePlannerOfficial } from "./official-parsers";

// ---------------------------------------------------------------------------------------------
// Constants of the method (DESIGN.md §6)

/** Rounds per query in the paper. */
export const REACT_ROUNDS = 10;
/** The rounds the paper's round table reports (Appendix C.4). */
export const REACT_SNAPSHOT_ROUNDS: readonly number[] = [1, 2, 3, 5, 10];
/** Kept articles whose full texts the planner sees from round 2 on. */
export const PLANNER_KEPT_DOCS = 27;
/** BM25 depth per round and the cap of the final ranking. */
export const REACT_DEPTH = 100;
/** Observer prompt budget in o200k tokens (system + user + chat overhead must stay below it). */
export const OBSERVER_BUDGET_TOKENS = 84_000;
/**
 * Tokens added to every counted observer prompt for the chat template's role and turn markers,
 * as the authors' batching code does (`len(enc.encode(prompt)) + 64`).
 */
export const CHAT_OVERHEAD_TOKENS = 64;

// ---------------------------------------------------------------------------------------------
// Prompts: the templates come from a prompt set; how the method fills them is fixed here

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
 *
 * @example
 * const prompts: ReactPrompts = {
 *   plannerSystem: "Write BM25 keyword queries. Answer REASON: … QUERY: …",
 *   plannerFirst: "Question:\n{original_query}",
 *   plannerNext: "Question:\n{original_query}\nRound {round_idx} of {max_rounds}\n{query_history}\n{kept_docs_summary}",
 *   observerSystem: "Keep useful articles. Answer RELEVANT: then id | reason lines, or RELEVANT: NONE.",
 *   observerUser: "Question:\n{original_query}\n\n{retrieved_docs_block}",
 * };
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
 *
 * @example
 * const prompts = reactPromptsOf(loadPromptSet("official"));
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
 *
 * @example
 * reactPromptsSha256(reactPromptsOf(loadPromptSet())); // 64 hex digits
 */
export function reactPromptsSha256(p: ReactPrompts): string {
  return createHash("sha256").update(JSON.stringify([p.plannerSystem, p.plannerFirst, p.plannerNext, p.observerSystem, p.observerUser]), "utf8").digest("hex");
}

/**
 * `{retrieved_docs_block}`: each article as `[DOC]\ndoc_id: {id}\ntext: {text}\n[/DOC]`, the
 * articles separated by a blank line, in BM25 rank order.
 *
 * @example
 * renderObserverDocs([{ id: "ΑΚ::914", text: "Όποιος…" }]); // "[DOC]\ndoc_id: ΑΚ::914\ntext: Όποιος…\n[/DOC]"
 */
export function renderObserverDocs(docs: readonly { id: DocId; text: string }[]): string {
  return docs.map((d) => `[DOC]\ndoc_id: ${d.id}\ntext: ${d.text}\n[/DOC]`).join("\n\n");
}

/**
 * `{query_history}`: the earlier rounds' keyword queries, one line `- Γύρος {round}: {query}`
 * each, round 1 first.
 *
 * @example
 * renderQueryHistory(["μίσθωση", "καταγγελία"]); // "- Γύρος 1: μίσθωση\n- Γύρος 2: καταγγελία"
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
 *
 * @example
 * renderKeptDocs(["Όποιος…"]); // "[ΣΧΕΤΙΚΟ_ΚΕΙΜΕΝΟ]\nΌποιος…\n[/ΣΧΕΤΙΚΟ_ΚΕΙΜΕΝΟ]"
 * renderKeptDocs([]);          // "Δεν έχουν σημειωθεί ακόμη σχετικά έγγραφα."
 */
export function renderKeptDocs(texts: readonly string[]): string {
  return texts.length ? texts.map((t) => `[ΣΧΕΤΙΚΟ_ΚΕΙΜΕΝΟ]\n${t}\n[/ΣΧΕΤΙΚΟ_ΚΕΙΜΕΝΟ]`).join("\n\n") : NOTHING_KEPT_YET;
}

/**
 * The planner's user message for one round: PLANNER_FIRST in round 1, PLANNER_NEXT after, with
 * the earlier queries and the texts of the first 27 kept articles (in ranking order).
 *
 * @example
 * plannerMessage(prompts, { originalQuery: q.text, round: 2, maxRounds: 10, history: ["μίσθωση"], keptTexts: [] });
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
 *
 * @example
 * observerMessage(prompts, q.text, batch.docs);
 */
export function observerMessage(prompts: Pick<ReactPrompts, "observerUser">, originalQuery: string, docs: readonly { id: DocId; text: string }[]): string {
  return fillPrompt(prompts.observerUser, { original_query: originalQuery, retrieved_docs_block: renderObserverDocs(docs) });
}

/**
 * How answers are read: the project's lenient parsers, or the authors' exact ones
 * (official-parsers.ts) with `--prompts official`. `name` is recorded in every trace.
 *
 * @example
 * const parser = reactParserFor("official");
 * parser.planner(answer.raw, query.text);
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
 *
 * @example
 * reactParserFor("project").planner("QUERY: α", "Ε;"); // "α"
 */
export function reactParserFor(name: ParserName): ReactParser {
  return name === "official"
    ? { name, text: officialAnswerText, planner: parsePlannerOfficial, observer: parseObserverOfficial }
    : { name, text: stripReasoning, planner: parsePlannerAnswer, observer: parseObserverAnswer };
}

// ---------------------------------------------------------------------------------------------
// Parsing

// A `QUERY:` label at the start of a line, as `QUERY:`, `Query :`, `**QUERY**:`, `**QUERY:**`,
// `__QUERY__:`, or after a heading/bullet marker. Anchoring at line start keeps "…the query: …"
// inside the REASON prose from being taken for the label (the authors' regex is anchored too).
const QUERY_LABEL = /^[ \t]*(?:(?:#{1,6}|[-*•>])[ \t]+)?(?:\*\*|__|\*)?[ \t]*QUERY[ \t]*(?:\*\*|__|\*)?[ \t]*[:：][ \t]*(?:\*\*|__|\*)?/im;

/**
 * The planner's keyword query: the text after the first `QUERY:` label (any case, spaces around
 * the colon, markdown bold around the label), the whole answer when there is no label, and the
 * original query when that comes out empty. Whitespace is normalised with the paper's `clean`.
 * Reasoning blocks are removed first, in case a provider left them in.
 *
 * @example
 * parsePlannerAnswer("REASON:\nΜίσθωση.\n\n**QUERY**: μίσθωση, καταγγελία", "…"); // "μίσθωση, καταγγελία"
 * parsePlannerAnswer("μίσθωση, καταγγελία", "…"); // "μίσθωση, καταγγελία"
 * parsePlannerAnswer("REASON: …\nQUERY:", "Ποια η προθεσμία;"); // "Ποια η προθεσμία;"
 */
export function parsePlannerAnswer(text: string, originalQuery: string): string {
  const answer = stripReasoning(text);
  const m = QUERY_LABEL.exec(answer);
  const query = clean(m ? answer.slice(m.index + m[0].length) : answer);
  return query.length > 0 ? query : originalQuery;
}

/** What the observer kept from one batch. */
export interface ObserverAnswer {
  /** Kept ids of the batch, in the order the observer listed them, each once. */
  ids: DocId[];
  /** id -> the observer's reason ("" when it gave none). */
  reasons: Map<DocId, string>;
  /** True when the observer said `RELEVANT: NONE` (and listed no id of the batch). */
  none: boolean;
  /** Ids on `id | reason` lines that are not in the batch: ignored, reported for the trace. */
  ignored: string[];
}

// Everything after a NOT_RELEVANT/MISSING/OBSERVATION/ANSWER section is not a keep list (the
// authors cut there too: models sometimes go on to list rejected articles).
const OBSERVER_STOP = /^[ \t]*(?:[*_#]+[ \t]*)?(?:NOT[_ ]RELEVANT|MISSING|OBSERVATION|ANSWER)\b[ \t]*(?:[*_]+)?[ \t]*:/im;
// List markers: "-", "•", "+", a single "*" (not bold "**"), "1." / "1)".
const BULLET = /^(?:[-•+]+[ \t]*|\*(?!\*)[ \t]*|\d{1,3}[.)][ \t]+)/;
// "RELEVANT:" (possibly bold) at the start of a line; what follows it on the line may be an id.
const RELEVANT_LABEL = /^(?:\*\*|__)?[ \t]*RELEVANT[ \t]*(?:\*\*|__)?[ \t]*:[ \t]*(?:\*\*|__)?[ \t]*/i;
// "doc_id:" echoed from the prompt's article block.
const DOC_ID_LABEL = /^(?:doc[_ ]?id|id)[ \t]*:[ \t]*/i;
const NONE_RE = /^(?:\*\*|__)?[ \t]*NONE\b/i;

/** Strips markdown emphasis, backticks, quotes and brackets around an id, then `clean`s it. */
function bareId(s: string): string {
  let t = clean(s);
  for (;;) {
    const u = t.replace(/^[`*"'«»“”‘’[\]()<>]+|[`*"'«»“”‘’[\]()<>]+$/g, "").trim();
    if (u === t) return t;
    t = u;
  }
}

/**
 * Parses one observer answer against the ids of the batch it judged. Lines are `doc_id | reason`
 * after a `RELEVANT:` header, or `RELEVANT: NONE`. Tolerated: markdown bullets (`-`, `*`, `1.`),
 * backticks or bold around ids, extra spaces, a missing reason (the id alone on its line), a
 * colon or dash instead of the bar (`id: reason`, `id - reason`), the first id on the
 * `RELEVANT:` line itself, markdown table rows, and an echoed `doc_id:` label. A line that only
 * starts with an id is prose and keeps nothing. Only ids of the batch count; others are listed in `ignored`. Text after
 * a `NOT_RELEVANT:`/`MISSING:` section is not read.
 *
 * @example
 * const a = parseObserverAnswer("RELEVANT:\n- `ΑΚ::914` | αδικοπραξία\n- ΑΚ::1 | άσχετο", new Set(["ΑΚ::914"]));
 * a.ids; // ["ΑΚ::914"]
 * a.reasons.get("ΑΚ::914"); // "αδικοπραξία"
 * a.ignored; // ["ΑΚ::1"]
 * parseObserverAnswer("RELEVANT: NONE", new Set(["ΑΚ::914"])).none; // true
 */
export function parseObserverAnswer(text: string, batchIds: ReadonlySet<string>): ObserverAnswer {
  let answer = stripReasoning(text);
  const stop = OBSERVER_STOP.exec(answer);
  if (stop) answer = answer.slice(0, stop.index);
  const ids: DocId[] = [];
  const reasons = new Map<DocId, string>();
  const ignored: string[] = [];
  let saidNone = false;
  const keep = (id: DocId, reason: string) => {
    if (reasons.has(id)) return;
    ids.push(id);
    reasons.set(id, clean(reason));
  };
  for (const rawLine of answer.split("\n")) {
    // Bullets, and the leading pipe of a markdown table row.
    let line = rawLine.trim().replace(BULLET, "").replace(/^\|[ \t]*/, "").trim();
    const label = RELEVANT_LABEL.exec(line);
    if (label) line = line.slice(label[0].length).trim();
    line = line.replace(DOC_ID_LABEL, "");
    if (line.length === 0) continue;
    if (NONE_RE.test(line) && (label || /^\W*NONE\W*$/i.test(line))) {
      saidNone = true;
      continue;
    }
    const bar = line.indexOf("|");
    if (bar >= 0) {
      const id = bareId(line.slice(0, bar).replace(DOC_ID_LABEL, ""));
      if (id.length === 0) continue;
      if (batchIds.has(id)) keep(id, line.slice(bar + 1).replace(/\|[ \t]*$/, ""));
      // Report ids the observer made up or took from another batch; skip table headers and rules.
      else if (/[\p{L}\p{N}]/u.test(id) && !/^doc[_ ]?id$/i.test(id) && !ignored.includes(id)) ignored.push(id);
      continue;
    }
    // No "|": the id alone, or "id: reason" / "id - reason". A line that merely starts with an
    // id ("ΑΚ::914 δεν σχετίζεται") is prose, not a keep, as in the reference.
    const whole = bareId(line);
    if (batchIds.has(whole)) {
      keep(whole, "");
      continue;
    }
    const m = /^(\S+?):\s+(.*)$/.exec(line) ?? /^(\S+)\s+[-–—]\s+(.*)$/.exec(line);
    if (m) {
      const id = bareId(m[1]);
      if (batchIds.has(id)) keep(id, m[2]);
    }
  }
  return { ids, reasons, none: ids.length === 0 && saidNone, ignored };
}

// ---------------------------------------------------------------------------------------------
// The kept-article ranking

/** What REACT remembers about one kept article. */
export interface KeptInfo {
  /** Rounds in which the observer kept it, ascending. */
  rounds: number[];
  /** The first of those rounds. */
  first: number;
  /** Best (smallest) 1-based BM25 rank over the rounds in which it was kept. */
  bestRank: number;
}


/**
 * The REACT ranking of kept articles: more rounds kept first, then the earlier first round,
 * then the better best BM25 rank, then the id (code-point order); at most `limit`.
 *
 * @example
 * reactRanking(new Map([
 *   ["a", { rounds: [2], first: 2, bestRank: 1 }],
 *   ["b", { rounds: [1, 2], first: 1, bestRank: 9 }],
 * ])); // ["b", "a"]
 */
export function reactRanking(kept: ReadonlyMap<DocId, KeptInfo>, limit = REACT_DEPTH): DocId[] {
  return [...kept.entries()]
    .sort(
      ([ia, a], [ib, b]) =>
        b.rounds.length - a.rounds.length || a.first - b.first || a.bestRank - b.bestRank || compareCodePoints(ia, ib),
    )
    .slice(0, limit)
    .map(([id]) => id);
}

// ---------------------------------------------------------------------------------------------
// Observer batching

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
 *
 * @example
 * const batches = observerBatches(retrieved, 84_000, observerPromptTokens(prompts, query.text));
 * batches.map((b) => b.docs.length); // e.g. [62, 38]
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
    weights ??= docs.map((d) => countTokens(d.text));
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
 *
 * @example
 * const count = observerPromptTokens(prompts, query.text);
 * count([{ id: "ΑΚ::914", text: "Όποιος ζημιώσει άλλον…" }]); // e.g. 412
 */
export function observerPromptTokens(
  prompts: Pick<ReactPrompts, "observerSystem" | "observerUser">,
  originalQuery: string,
): (docs: { id: DocId; text: string }[]) => number {
  return (docs) => countTokens(prompts.observerSystem + observerMessage(prompts, originalQuery, docs)) + CHAT_OVERHEAD_TOKENS;
}

// ---------------------------------------------------------------------------------------------
// Traces

/** One LLM call as the trace records it. */
export interface ReactCall {
  usage: ChatUsage;
  seconds: number;
  /** Served from the replay cache. */
  replayed?: boolean;
  /** The generation parameters of the request that was sent (what runs record as their settings). */
  params: ChatParams;
}

/** Calls, tokens and time, summed. */
export interface ReactTotals {
  calls: number;
  input: number;
  output: number;
  /** Sum of the calls' wall times (a replayed call counts its original time). */
  seconds: number;
}

/** One observer batch of one round. */
export interface ReactObserverTrace extends ReactCall {
  /** The batch's article ids in BM25 rank order. */
  ids: DocId[];
  /** Counted prompt tokens (o200k, chat overhead included). */
  promptTokens: number;
  raw: string;
  /** The answer without reasoning blocks (what was parsed). */
  text: string;
  kept: { id: DocId; reason: string }[];
  none: boolean;
  /** Ids the observer named that were not in this batch. */
  ignored: string[];
}

/** Everything one REACT round did. */
export interface ReactRoundTrace {
  round: number;
  planner: ReactCall & { raw: string; text: string; query: string };
  /** BM25 results of the planner's query: ids with 1-based ranks and scores. */
  retrieved: { id: DocId; rank: number; score: number }[];
  observer: ReactObserverTrace[];
  /** Articles kept in this round (over all batches, first mention wins). */
  kept: { id: DocId; reason: string }[];
  /** The kept ranking after this round (the snapshot). */
  ranking: DocId[];
  /** Ids retrieved for the first time in this round, in rank order; the candidate pool after
   * round r is the concatenation of this list over rounds 1..r. */
  newCandidates: DocId[];
  /** This round's calls. */
  totals: ReactTotals;
}

/** The JSON-serialisable record of one query's REACT run, as written to `<traceDir>/<id>.json`. */
export interface ReactTrace {
  /** 2 since the authors' rendering of documents, history and kept texts (v0.5); older traces are run again. */
  version: 2;
  query: { id: QueryId; text: string };
  config: {
    rounds: number;
    /** The parser that read the answers. */
    parser: ParserName;
    /** sha256 of the five prompt templates (`reactPromptsSha256`): a trace is reused only for the same prompts. */
    promptsSha256: string;
    planner: string;
    observer: string;
    temperature: number;
    topP: number;
    reasoningEffort: "low" | "medium" | "high";
    maxTokens: number;
    observerMaxTokens: number;
    budgetTokens: number;
  };
  rounds: ReactRoundTrace[];
  /** False while the query is running (a trace written after each round) or after a failure. */
  complete: boolean;
  /** Set when the query failed. */
  error?: string;
  /** The final ranking (the last round's snapshot). */
  ranking: DocId[];
  totals: ReactTotals;
  /** Wall time of the whole query, BM25 and token counting included. */
  wallSeconds: number;
}

/** Everything REACT needs for one query. */
export interface ReactContext {
  /** BM25-GREEKSTEMMER over the benchmark's corpus. */
  corpus: IndexedCorpus;
  /** Its scorer (`corpus.index.withParams()`, the paper's k1 = 1.5, b = 0.75). */
  scorer: Bm25Scorer;
  /** The corpus articles in corpus order (the order `corpus` was indexed in). */
  docs: readonly Doc[];
  planner: ChatModel;
  observer: ChatModel;
  prompts: ReactPrompts;
  /** How answers are read (default: the project's parsers, `reactParserFor("project")`). */
  parser?: ReactParser;
  /** Default 10. */
  rounds?: number;
  /** Planner output limit, default 42,000. */
  maxTokens?: number;
  /** Observer output limit, default 44,096. */
  observerMaxTokens?: number;
  /** Default 0.2. */
  temperature?: number;
  /** Default 1. */
  topP?: number;
  /** Default "low". */
  reasoningEffort?: "low" | "medium" | "high";
  /** Provider sampling seed, passed through when set. */
  seed?: number;
  /** Observer prompt budget, default 84,000. */
  budgetTokens?: number;
  /** Called after every round (the trace so far is complete up to that round). */
  onRound?: (round: ReactRoundTrace, trace: ReactTrace) => void | Promise<void>;
}

const zeroTotals = (): ReactTotals => ({ calls: 0, input: 0, output: 0, seconds: 0 });

function addCall(t: ReactTotals, c: ReactCall): void {
  t.calls += 1;
  t.input += c.usage.input;
  t.output += c.usage.output;
  t.seconds += c.seconds;
}

function sumTotals(list: readonly ReactTotals[]): ReactTotals {
  const t = zeroTotals();
  for (const x of list) {
    t.calls += x.calls;
    t.input += x.input;
    t.output += x.output;
    t.seconds += x.seconds;
  }
  return t;
}

const positions = new WeakMap<readonly string[], Map<string, number>>();
function positionOf(corpus: IndexedCorpus): Map<string, number> {
  let m = positions.get(corpus.docIds);
  if (!m) {
    m = new Map(corpus.docIds.map((id, i) => [id, i]));
    positions.set(corpus.docIds, m);
  }
  return m;
}

function callRecord(req: ChatRequest, r: ChatResponse): ReactCall {
  const c: ReactCall = { usage: { input: r.usage.input, output: r.usage.output }, seconds: r.seconds, params: chatParams(req) };
  if (r.replayed) c.replayed = true;
  return c;
}

function settings(ctx: ReactContext) {
  const s = {
    rounds: ctx.rounds ?? REACT_ROUNDS,
    maxTokens: ctx.maxTokens ?? 42_000,
    observerMaxTokens: ctx.observerMaxTokens ?? 44_096,
    temperature: ctx.temperature ?? 0.2,
    topP: ctx.topP ?? 1,
    reasoningEffort: ctx.reasoningEffort ?? "low",
    budgetTokens: ctx.budgetTokens ?? OBSERVER_BUDGET_TOKENS,
  } as const;
  if (!Number.isInteger(s.rounds) || s.rounds < 1) throw new RangeError(`rounds must be a positive integer, got ${s.rounds}`);
  if (ctx.docs.length !== ctx.corpus.docIds.length) {
    throw new RangeError(`REACT needs the corpus's articles in corpus order: got ${ctx.docs.length} articles for an index of ${ctx.corpus.docIds.length}`);
  }
  return s;
}

/**
 * Runs REACT-BM25 for one query (DESIGN.md §6). Each round: the planner writes a keyword query
 * (round 1 from the original query; later rounds also from "round i of N", the earlier queries
 * and the full texts of the top 27 kept articles in ranking order); BM25 retrieves its top 100
 * with positive scores; the observer judges them in token-budgeted batches; every kept article
 * records the rounds it was kept in, its first such round and its best BM25 rank. After every
 * round the ranking so far is snapshotted with the candidate pool. LLM errors propagate (the
 * providers retry); an oversize article is a ChatError "BUDGET".
 *
 * @example
 * const corpus = indexCorpus(bench.docs, greekStemmerTokenizer());
 * const trace = await runReact(bench.queries[0], {
 *   corpus, scorer: corpus.index.withParams(), docs: bench.docs, planner: llm, observer: llm, prompts,
 * });
 * trace.ranking; // kept articles, best first
 * trace.rounds[0].planner.query; // the first keyword query
 */
export async function runReact(query: Query, ctx: ReactContext): Promise<ReactTrace> {
  const s = settings(ctx);
  const started = performance.now();
  const { corpus, scorer, docs, prompts } = ctx;
  const parser = ctx.parser ?? reactParserFor("project");
  const pos = positionOf(corpus);
  const textOf = (id: DocId) => docs[pos.get(id)!].text;
  const count = observerPromptTokens(prompts, query.text);
  const base: Omit<ChatRequest, "system" | "user" | "maxTokens"> = {
    temperature: s.temperature,
    topP: s.topP,
    reasoningEffort: s.reasoningEffort,
  };
  if (ctx.seed !== undefined) base.seed = ctx.seed;

  const trace: ReactTrace = {
    version: 2,
    query: { id: query.id, text: query.text },
    config: {
      rounds: s.rounds,
      parser: parser.name,
      promptsSha256: reactPromptsSha256(prompts),
      planner: ctx.planner.id,
      observer: ctx.observer.id,
      temperature: s.temperature,
      topP: s.topP,
      reasoningEffort: s.reasoningEffort,
      maxTokens: s.maxTokens,
      observerMaxTokens: s.observerMaxTokens,
      budgetTokens: s.budgetTokens,
    },
    rounds: [],
    complete: false,
    ranking: [],
    totals: zeroTotals(),
    wallSeconds: 0,
  };
  const kept = new Map<DocId, KeptInfo>();
  const history: string[] = [];
  const candidates = new Set<DocId>();

  for (let round = 1; round <= s.rounds; round++) {
    const totals = zeroTotals();

    // 1. Planner.
    const plannerUser = plannerMessage(prompts, {
      originalQuery: query.text,
      round,
      maxRounds: s.rounds,
      history,
      keptTexts: reactRanking(kept, PLANNER_KEPT_DOCS).map(textOf),
    });
    const plannerReq: ChatRequest = { ...base, system: prompts.plannerSystem, user: plannerUser, maxTokens: s.maxTokens };
    const p = await ctx.planner.complete(plannerReq);
    const plannerCall = callRecord(plannerReq, p);
    addCall(totals, plannerCall);
    const plannerText = parser.text(p.raw);
    const keywordQuery = parser.planner(p.raw, query.text);
    history.push(keywordQuery);

    // 2. BM25-GREEKSTEMMER, positive scores only, top 100.
    const top = scorer.searchIds(corpus.analyze(keywordQuery), REACT_DEPTH, { positiveOnly: true });
    const retrieved: ReactRoundTrace["retrieved"] = [];
    const rankOf = new Map<DocId, number>();
    const newCandidates: DocId[] = [];
    for (let i = 0; i < top.docs.length; i++) {
      const id = corpus.docIds[top.docs[i]];
      retrieved.push({ id, rank: i + 1, score: top.scores[i] });
      rankOf.set(id, i + 1);
      if (!candidates.has(id)) {
        candidates.add(id);
        newCandidates.push(id);
      }
    }

    // 3. Observer, in batches under the token budget.
    const retrievedDocs = Array.from(top.docs, (d) => {
      const doc = docs[d];
      if (doc.id !== corpus.docIds[d]) throw new RangeError(`docs[${d}] is '${doc.id}' but the index has '${corpus.docIds[d]}' there`);
      return { id: doc.id, text: doc.text };
    });
    const observerTraces: ReactObserverTrace[] = [];
    const keptThisRound: { id: DocId; reason: string }[] = [];
    const keptIds = new Set<DocId>();
    for (const batch of observerBatches(retrievedDocs, s.budgetTokens, count)) {
      const observerReq: ChatRequest = {
        ...base,
        system: prompts.observerSystem,
        user: observerMessage(prompts, query.text, batch.docs),
        maxTokens: s.observerMaxTokens,
      };
      const r = await ctx.observer.complete(observerReq);
      const call = callRecord(observerReq, r);
      addCall(totals, call);
      const text = parser.text(r.raw);
      const ids = batch.docs.map((d) => d.id);
      const parsed = parser.observer(r.raw, new Set(ids));
      const batchKept = parsed.ids.map((id) => ({ id, reason: parsed.reasons.get(id) ?? "" }));
      observerTraces.push({ ...call, ids, promptTokens: batch.tokens, raw: r.raw, text, kept: batchKept, none: parsed.none, ignored: parsed.ignored });
      for (const k of batchKept) {
        if (keptIds.has(k.id)) continue;
        keptIds.add(k.id);
        keptThisRound.push(k);
      }
    }

    // 4. Bookkeeping and snapshot.
    for (const { id } of keptThisRound) {
      const rank = rankOf.get(id)!;
      const info = kept.get(id);
      if (!info) kept.set(id, { rounds: [round], first: round, bestRank: rank });
      else {
        info.rounds.push(round);
        info.bestRank = Math.min(info.bestRank, rank);
      }
    }
    const roundTrace: ReactRoundTrace = {
      round,
      planner: { ...plannerCall, raw: p.raw, text: plannerText, query: keywordQuery },
      retrieved,
      observer: observerTraces,
      kept: keptThisRound,
      ranking: reactRanking(kept),
      newCandidates,
      totals,
    };
    trace.rounds.push(roundTrace);
    trace.ranking = roundTrace.ranking;
    trace.totals = sumTotals(trace.rounds.map((r) => r.totals));
    trace.wallSeconds = (performance.now() - started) / 1000;
    await ctx.onRound?.(roundTrace, trace);
  }
  trace.complete = true;
  trace.wallSeconds = (performance.now() - started) / 1000;
  return trace;
}

// ---------------------------------------------------------------------------------------------
// Many queries, resumable

/** Options of `reactRun`. */
export interface ReactRunOptions {
  /** Folder for one `<sanitized query id>.json` trace per query (written after every round). */
  traceDir?: string;
  /** Reuse complete traces found in `traceDir` instead of calling the models again. */
  resume?: boolean;
  /** Queries in flight at once (default 1). */
  concurrency?: number;
  /** Called when a query is done (run or taken from its trace). */
  onQuery?: (e: { query: Query; index: number; total: number; trace: ReactTrace; resumed: boolean }) => void;
}

/** Rankings, candidate pools and costs of a REACT run, per round. */
export interface ReactRunResult {
  /** Rounds per query. */
  rounds: number;
  /** Query ids in input order. */
  queryIds: QueryId[];
  /** round r (1-based) -> the kept rankings after round r. `kept.get(rounds)` is REACT-BM25. */
  kept: Map<number, Run>;
  /**
   * round r -> every article retrieved in rounds 1..r (first retrieval round, then BM25 rank).
   * Not a ranking: it may hold up to 100·r ids and is meant for candidate-pool recall.
   */
  candidates: Map<number, Run>;
  /** Per query: the calls, tokens and seconds of rounds 1..r, cumulative (index r − 1). */
  perRound: Map<QueryId, ReactTotals[]>;
  /** Per query: the whole run's totals. */
  totals: Map<QueryId, ReactTotals>;
  traces: Map<QueryId, ReactTrace>;
  /** Queries taken from existing trace files (no model call). */
  resumed: QueryId[];
}

/**
 * A REACT-BM25 run: the final kept rankings, plus everything the run produced (every round's
 * rankings and candidate pools, the traces, per-query costs) for the round table and the
 * appendix C.4 diagnostic.
 *
 * @example
 * const run = await (await createRetriever("react-bm25", bench, { rounds: 10 })).retrieve(bench.queries, 100);
 * if (isReactRun(run)) reactRoundTable(run.react, bench.qrels);
 */
export interface ReactRun extends Run {
  react: ReactRunResult;
}

/**
 * Whether a run came from REACT-BM25 (and so carries the whole `ReactRunResult`).
 *
 * @example
 * if (isReactRun(run)) console.log(run.react.rounds);
 */
export function isReactRun(run: Run): run is ReactRun {
  return (run as Partial<ReactRun>).react !== undefined;
}

/**
 * The trace file name of a query id: the id itself when it is a safe file name, otherwise its
 * letters, digits, `_`, `.` and `-` with the rest as `_`, plus a short hash of the id so two ids
 * never share a file.
 *
 * @example
 * traceFileName("Q-N4765-16"); // "Q-N4765-16.json"
 * traceFileName("ΑΚ/914");     // "___914.98b5d27bdc.json"
 */
export function traceFileName(queryId: QueryId): string {
  const safe = queryId.replace(/[^A-Za-z0-9_.-]/g, "_");
  if (safe === queryId && safe.length > 0 && safe.length <= 120 && !safe.startsWith(".")) return `${safe}.json`;
  const hash = createHash("sha256").update(queryId).digest("hex").slice(0, 10);
  return `${safe.replace(/^\.+/, "_").slice(0, 80)}.${hash}.json`;
}

async function writeAtomic(file: string, data: string): Promise<void> {
  // Rename within one folder is atomic, so a reader (or a resumed run) never sees half a file.
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await fs.writeFile(tmp, data);
  await fs.rename(tmp, file);
}

async function readTrace(file: string): Promise<ReactTrace | undefined> {
  try {
    return JSON.parse(await fs.readFile(file, "utf8")) as ReactTrace;
  } catch {
    return undefined; // missing or unreadable: run the query again
  }
}

/**
 * A saved trace serves a query when it is complete and was made by the same method for the same
 * query: same text, models, parser, prompt templates and settings, and the same number of rounds
 * (every planner prompt says "round i of N", so a 10-round trace is not a 5-round run).
 */
function usable(t: ReactTrace | undefined, q: Query, ctx: ReactContext): t is ReactTrace {
  if (t === undefined || t.version !== 2 || t.complete !== true || !t.config || !Array.isArray(t.rounds)) return false;
  const s = settings(ctx);
  const c = t.config;
  return (
    t.query?.id === q.id &&
    t.query.text === q.text &&
    c.parser === (ctx.parser ?? reactParserFor("project")).name &&
    c.promptsSha256 === reactPromptsSha256(ctx.prompts) &&
    c.planner === ctx.planner.id &&
    c.observer === ctx.observer.id &&
    c.rounds === s.rounds &&
    c.temperature === s.temperature &&
    c.topP === s.topP &&
    c.reasoningEffort === s.reasoningEffort &&
    c.maxTokens === s.maxTokens &&
    c.observerMaxTokens === s.observerMaxTokens &&
    c.budgetTokens === s.budgetTokens &&
    t.rounds.length === s.rounds
  );
}

/**
 * Runs REACT-BM25 over many queries. With `traceDir`, each query's trace is written after every
 * round (atomically: temp file + rename) and marked complete at the end; with `resume`, queries
 * whose complete trace is already there are not run again, so a crash half-way repeats no call
 * of a finished query. Returns, for every round r (the paper reports 1, 2, 3, 5, 10), the kept
 * rankings and the candidate pools, plus per-query costs. On a failure the queries in flight
 * finish (their traces are written) and the first error is rethrown.
 *
 * @example
 * const result = await reactRun(bench.queries, ctx, { traceDir: "outputs/react", resume: true, concurrency: 4 });
 * evaluate(result.kept.get(10)!.rankings, bench.qrels).mean["Recall@100"];
 * reactRoundTable(result, bench.qrels);
 */
export async function reactRun(queries: readonly Query[], ctx: ReactContext, opts: ReactRunOptions = {}): Promise<ReactRunResult> {
  const { rounds } = settings(ctx);
  const concurrency = opts.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  const seen = new Set<QueryId>();
  for (const q of queries) {
    if (seen.has(q.id)) throw new RangeError(`duplicate query id '${q.id}'`);
    seen.add(q.id);
  }
  if (opts.traceDir) await fs.mkdir(opts.traceDir, { recursive: true });

  const traces: (ReactTrace | undefined)[] = new Array(queries.length);
  const fromFile: boolean[] = new Array(queries.length).fill(false);
  let next = 0;
  let failure: { error: unknown } | undefined;

  const one = async (i: number) => {
    const q = queries[i];
    const file = opts.traceDir ? path.join(opts.traceDir, traceFileName(q.id)) : undefined;
    if (file && opts.resume) {
      const saved = await readTrace(file);
      if (usable(saved, q, ctx)) {
        traces[i] = saved;
        fromFile[i] = true;
        opts.onQuery?.({ query: q, index: i, total: queries.length, trace: saved, resumed: true });
        return;
      }
    }
    let last: ReactTrace | undefined;
    const save = (t: ReactTrace) => (file ? writeAtomic(file, JSON.stringify(t)) : Promise.resolve());
    try {
      const trace = await runReact(q, {
        ...ctx,
        onRound: async (r, t) => {
          last = t;
          await save(t);
          await ctx.onRound?.(r, t);
        },
      });
      await save(trace);
      traces[i] = trace;
      opts.onQuery?.({ query: q, index: i, total: queries.length, trace, resumed: false });
    } catch (error) {
      if (last) await save({ ...last, complete: false, error: error instanceof Error ? error.message : String(error) }).catch(() => {});
      throw error;
    }
  };

  const worker = async () => {
    while (!failure && next < queries.length) {
      const i = next++;
      try {
        await one(i);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, queries.length) }, worker));
  if (failure) throw failure.error;

  const result: ReactRunResult = {
    rounds,
    queryIds: queries.map((q) => q.id),
    kept: new Map(),
    candidates: new Map(),
    perRound: new Map(),
    totals: new Map(),
    traces: new Map(),
    resumed: queries.filter((_, i) => fromFile[i]).map((q) => q.id),
  };
  for (let r = 1; r <= rounds; r++) {
    result.kept.set(r, { rankings: new Map() });
    result.candidates.set(r, { rankings: new Map() });
  }
  queries.forEach((q, i) => {
    const t = traces[i]!;
    result.traces.set(q.id, t);
    const pool: DocId[] = [];
    const cumulative: ReactTotals[] = [];
    for (let r = 1; r <= rounds; r++) {
      const rt = t.rounds[r - 1];
      pool.push(...rt.newCandidates);
      result.kept.get(r)!.rankings.set(q.id, rt.ranking.slice());
      result.candidates.get(r)!.rankings.set(q.id, pool.slice());
      cumulative.push(sumTotals([cumulative[r - 2] ?? zeroTotals(), rt.totals]));
    }
    result.perRound.set(q.id, cumulative);
    result.totals.set(q.id, cumulative[rounds - 1]);
  });
  return result;
}

// ---------------------------------------------------------------------------------------------
// The round table (paper, Appendix C.4)

/** One row of the REACT round table. */
export interface ReactRoundRow {
  round: number;
  /** Macro Recall@100 of the observer-kept ranking after this round. */
  keptRecall100: number;
  /** Macro share of each query's gold articles retrieved in any round so far. */
  candidateRecall100: number;
  /** Mean LLM calls per query in rounds 1..round. */
  callsPerQuery: number;
  /** Mean LLM tokens (input + output) per query in rounds 1..round. */
  tokensPerQuery: number;
  inputTokensPerQuery: number;
  outputTokensPerQuery: number;
  /** Mean LLM seconds per query in rounds 1..round. */
  secondsPerQuery: number;
}

/**
 * The paper's round table: for rounds 1, 2, 3, 5 and 10 (those the run has), observer-kept
 * Recall@100 (via `evaluate`), candidate-pool recall (gold found anywhere among the candidates
 * retrieved so far / |gold|; the pool is not cut at 100, so it is computed here rather than by
 * `evaluate`), both macro over the qrels' queries as `evaluate` averages (a query missing from
 * the run counts 0), and the mean calls and tokens per query up to that round over the run's
 * queries.
 *
 * @example
 * for (const row of reactRoundTable(result, bench.qrels)) console.log(row.round, row.keptRecall100, row.candidateRecall100);
 */
export function reactRoundTable(
  result: ReactRunResult,
  qrels: ReadonlyMap<QueryId, ReadonlySet<DocId>>,
  rounds: readonly number[] = REACT_SNAPSHOT_ROUNDS,
): ReactRoundRow[] {
  const rows: ReactRoundRow[] = [];
  const n = result.queryIds.length;
  for (const r of rounds) {
    if (r < 1 || r > result.rounds) continue;
    const kept = evaluate(result.kept.get(r)!.rankings, qrels).mean["Recall@100"];
    let poolSum = 0;
    let judged = 0;
    for (const [qid, gold] of qrels) {
      if (gold.size === 0) continue;
      judged++;
      const pool = new Set(result.candidates.get(r)!.rankings.get(qid) ?? []);
      let hits = 0;
      for (const g of gold) if (pool.has(g)) hits++;
      poolSum += hits / gold.size;
    }
    const cost = sumTotals(result.queryIds.map((q) => result.perRound.get(q)![r - 1]));
    rows.push({
      round: r,
      keptRecall100: kept,
      candidateRecall100: judged ? poolSum / judged : 0,
      callsPerQuery: n ? cost.calls / n : 0,
      tokensPerQuery: n ? (cost.input + cost.output) / n : 0,
      inputTokensPerQuery: n ? cost.input / n : 0,
      outputTokensPerQuery: n ? cost.output / n : 0,
      secondsPerQuery: n ? cost.seconds / n : 0,
    });
  }
  return rows;
}
