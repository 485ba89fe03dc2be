/** The project's REACT answer readers, lenient about bold labels, bullets, numbering, backticks, a missing `|`. */
import { clean } from "../text/normalize";
import type { DocId } from "../types";
import { stripReasoning } from "../models/chat";

// Anchored at line start so "…the query: …" in the REASON prose is not the label (the authors' regex is too).
const QUERY_LABEL = /^[ \t]*(?:(?:#{1,6}|[-*•>])[ \t]+)?(?:\*\*|__|\*)?[ \t]*QUERY[ \t]*(?:\*\*|__|\*)?[ \t]*[:：][ \t]*(?:\*\*|__|\*)?/im;

/** The text after the first `QUERY:` label (else the whole answer), `clean`ed; the original query when empty. */
export function parsePlannerAnswer(text: string, originalQuery: string): string {
  const answer = stripReasoning(text);
  const m = QUERY_LABEL.exec(answer);
  const query = clean(m ? answer.slice(m.index + m[0].length) : answer);
  return query.length > 0 ? query : originalQuery;
}

/** Kept ids in answer order, each once, with reasons; `none`: said `RELEVANT: NONE`; `ignored`: ids not in the batch. */
export type ObserverAnswer = { ids: DocId[]; reasons: Map<DocId, string>; none: boolean; ignored: string[] };

// The keep list ends at a NOT_RELEVANT/MISSING/… section (the authors cut too); "doc_id:" is echoed from the article block.
const OBSERVER_STOP = /^[ \t]*(?:[*_#]+[ \t]*)?(?:NOT[_ ]RELEVANT|MISSING|OBSERVATION|ANSWER)\b[ \t]*(?:[*_]+)?[ \t]*:/im;
const BULLET = /^(?:[-•+]+[ \t]*|\*(?!\*)[ \t]*|\d{1,3}[.)][ \t]+)/;
const RELEVANT_LABEL = /^(?:\*\*|__)?[ \t]*RELEVANT[ \t]*(?:\*\*|__)?[ \t]*:[ \t]*(?:\*\*|__)?[ \t]*/i;
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

/** `doc_id | reason` lines after `RELEVANT:`, or `RELEVANT: NONE`, markdown-tolerant; non-batch ids go to `ignored`. */
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
    // No "|": the id alone, or "id: reason" / "id - reason"; "ΑΚ::914 δεν σχετίζεται" is prose, as in the reference.
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
