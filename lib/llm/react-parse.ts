/**
 * The project's own readers of REACT answers (used with the project's prompts): lenient about
 * the formats models drift into (bold labels, bullets and numbering, backticks around ids, a
 * missing `|`). With the official prompts the authors' exact parsers are used instead
 * (official-parsers.ts).
 */
import { clean } from "../text/normalize";
import type { DocId } from "../types";
import { stripReasoning } from "./types";


// A `QUERY:` label at the start of a line, as `QUERY:`, `Query :`, `**QUERY**:`, `**QUERY:**`,
// `__QUERY__:`, or after a heading/bullet marker. Anchoring at line start keeps "…the query: …"
// inside the REASON prose from being taken for the label (the authors' regex is anchored too).
const QUERY_LABEL = /^[ \t]*(?:(?:#{1,6}|[-*•>])[ \t]+)?(?:\*\*|__|\*)?[ \t]*QUERY[ \t]*(?:\*\*|__|\*)?[ \t]*[:：][ \t]*(?:\*\*|__|\*)?/im;

/**
 * The planner's keyword query: the text after the first `QUERY:` label (any case, spaces around
 * the colon, markdown bold around the label), the whole answer when there is no label, and the
 * original query when that comes out empty. Whitespace is normalised with the paper's `clean`.
 * Reasoning blocks are removed first, in case a provider left them in.
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
