/**
 * The answer parsers of the authors' notebook (DESIGN.md §6, nlpaueb/greek-bar-bench
 * quickstart/greekbarretrieval_paper_experiments.ipynb at commit 992f5224), for `--prompts
 * official`: what a model answers is read exactly as the authors read it, so a run with their
 * prompts is their method request for request and answer for answer.
 *
 * They are deliberately strict where the project's own parsers (react.ts, reformulate.ts) are
 * lenient: `1. ΑΚ::914 | λόγος` keeps nothing, `**ΑΚ::914** | λόγος` keeps nothing, a reasoning
 * block left unterminated stays in the text. Python's regex and string semantics are
 * reproduced: its whitespace set, `^` only after "\n", Unicode case folding for IGNORECASE,
 * `str.strip()` and `str.splitlines()`.
 */
import { clean } from "../text/normalize";
import { PY_WHITESPACE, pySplitLines, pyStrip } from "../text/python-str";
import type { DocId } from "../types";

const WS = `[${PY_WHITESPACE}]`;
/** Python's `^` under re.MULTILINE: the start of the text or just after "\n" (JavaScript's `m`
 * flag would also match after "\r", U+2028 and U+2029). */
const LINE_START = "(?:^|(?<=\\n))";

// The notebook's `chat()` and both REACT parsers remove terminated blocks only, and accept a
// block opened with one tag and closed with the other (re.S | re.I).
const THINK_BLOCK = /<(?:think|analysis)>[\s\S]*?<\/(?:think|analysis)>/giu;
const PLANNER_SPLIT = new RegExp(`${LINE_START}${WS}*(?:\\*\\*)?QUERY(?:\\*\\*)?${WS}*:${WS}*`, "iu");
const OBSERVER_CUT = new RegExp(`${LINE_START}${WS}*(?:NOT_RELEVANT|MISSING|OBSERVATION|ANSWER)${WS}*:`, "iu");
const BULLET = new RegExp(`^${WS}*[-*•]+${WS}*`, "u");
const REWRITE_LABEL = new RegExp(`(?:KEYWORDS|REWRITTEN_QUERY|QUERY)${WS}*:${WS}*([\\s\\S]*)`, "iu");
const RELEVANT_NONE = new RegExp(`${LINE_START}${WS}*RELEVANT${WS}*:${WS}*NONE\\b`, "iu");

/**
 * The notebook's `chat()` post-processing of every answer: terminated `<think>`/`<analysis>`
 * blocks removed (case-insensitive, across lines), then Python `strip()`. An unterminated block
 * is left as it is, as there.
 */
export function officialAnswerText(raw: string): string {
  return pyStrip(raw.replace(THINK_BLOCK, ""));
}

/**
 * The planner's keyword query as the notebook reads it (`parse_planner(...) or original`):
 * reasoning blocks removed; the answer split once at the first line that starts, after
 * whitespace, with `QUERY:` or `**QUERY**:` (any case, whitespace around the colon); the text
 * after it, else the whole answer; `clean`; the original query when that is empty.
 */
export function parsePlannerOfficial(raw: string, originalQuery: string): string {
  const text = officialAnswerText(raw);
  const m = PLANNER_SPLIT.exec(text);
  const query = clean(m ? text.slice(m.index + m[0].length) : text);
  return query !== "" ? query : originalQuery;
}

/**
 * What the observer kept, as the notebook's `parse_observer` reads it, with the details the
 * project's traces record beside the kept ids.
 */
export interface OfficialObserverAnswer {
  /** Kept ids in the order listed, each once. */
  ids: DocId[];
  /** id -> `clean` of the text after its first `|` ("" when there is none); for traces only. */
  reasons: Map<DocId, string>;
  /** The answer has a `RELEVANT: NONE` line and kept nothing (informational). */
  none: boolean;
  /** Candidate ids (text before a `|`) that are not ids of the batch; for traces only. */
  ignored: string[];
}

/**
 * The observer's kept ids as the notebook reads them: reasoning blocks removed; everything from
 * the first line starting (after whitespace) with `NOT_RELEVANT:`, `MISSING:`, `OBSERVATION:` or
 * `ANSWER:` dropped; then, per line (Python `splitlines()`), the line stripped, leading bullets
 * `-`, `*`, `•` removed, and the id taken as `clean` of the text before the first `|` (the whole
 * line when there is none); an id counts when it is one of the batch and not listed already.
 * Numbering, bold or backticks around an id make it a different string, which keeps nothing.
 */
export function parseObserverOfficial(raw: string, batchIds: ReadonlySet<DocId>): OfficialObserverAnswer {
  let text = officialAnswerText(raw);
  const cut = OBSERVER_CUT.exec(text);
  if (cut) text = text.slice(0, cut.index);
  const ids: DocId[] = [];
  const reasons = new Map<DocId, string>();
  const ignored: string[] = [];
  for (const rawLine of pySplitLines(text)) {
    const line = pyStrip(rawLine).replace(BULLET, "");
    const bar = line.indexOf("|");
    const id = clean(bar >= 0 ? line.slice(0, bar) : line);
    if (batchIds.has(id)) {
      if (!reasons.has(id)) {
        ids.push(id);
        reasons.set(id, bar >= 0 ? clean(line.slice(bar + 1)) : "");
      }
    } else if (bar >= 0 && id !== "" && !ignored.includes(id)) ignored.push(id);
  }
  return { ids, reasons, none: ids.length === 0 && RELEVANT_NONE.test(text), ignored };
}

/**
 * A reformulation answer as the notebook reads it: the first match of
 * `(KEYWORDS|REWRITTEN_QUERY|QUERY)\s*:\s*(.*)` (case-insensitive, `.` spanning lines, no word
 * boundary: "SUBQUERY:" matches too) anywhere in the answer, its group, else the whole answer;
 * then `clean`. Nothing else: no comma re-joining, no numbering removed, and an empty result stays
 * empty (the notebook searches with it).
 */
export function parseRewriteOfficial(raw: string): string {
  const text = officialAnswerText(raw);
  const m = REWRITE_LABEL.exec(text);
  return clean(m ? m[1] : text);
}

/**
 * A translation as the notebook stores it: the answer after `chat()`'s post-processing
 * (reasoning blocks removed, stripped), nothing else; an empty answer stays empty.
 */
export function parseTranslationOfficial(raw: string): string {
  return officialAnswerText(raw);
}
