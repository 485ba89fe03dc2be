/** The authors' notebook answer parsers (commit 992f5224) for `--prompts official`, with Python's str semantics. */
import { clean } from "../text/normalize";
import { PY_WHITESPACE, pySplitLines, pyStrip } from "../text/python-str";
import type { DocId } from "../types";
import type { ObserverAnswer } from "./react-parse";

const WS = `[${PY_WHITESPACE}]`;
/** Python's re.MULTILINE `^`: start or after "\n" only (JS's `m` also matches after "\r", U+2028, U+2029). */
const LINE_START = "(?:^|(?<=\\n))";

// As the notebook's `chat()` and REACT parsers: terminated blocks only, either closing tag (re.S | re.I).
const THINK_BLOCK = /<(?:think|analysis)>[\s\S]*?<\/(?:think|analysis)>/giu;
const PLANNER_SPLIT = new RegExp(`${LINE_START}${WS}*(?:\\*\\*)?QUERY(?:\\*\\*)?${WS}*:${WS}*`, "iu");
const OBSERVER_CUT = new RegExp(`${LINE_START}${WS}*(?:NOT_RELEVANT|MISSING|OBSERVATION|ANSWER)${WS}*:`, "iu");
const BULLET = new RegExp(`^${WS}*[-*•]+${WS}*`, "u");
const REWRITE_LABEL = new RegExp(`(?:KEYWORDS|REWRITTEN_QUERY|QUERY)${WS}*:${WS}*([\\s\\S]*)`, "iu");
const RELEVANT_NONE = new RegExp(`${LINE_START}${WS}*RELEVANT${WS}*:${WS}*NONE\\b`, "iu");

/** As `chat()` (and how the notebook stores translations): terminated think blocks removed, then `strip()`. */
export function officialAnswerText(raw: string): string {
  return pyStrip(raw.replace(THINK_BLOCK, ""));
}

/** `parse_planner(...) or original`: the text after the first `QUERY:`/`**QUERY**:` line (else all), `clean`ed. */
export function parsePlannerOfficial(raw: string, originalQuery: string): string {
  const text = officialAnswerText(raw);
  const m = PLANNER_SPLIT.exec(text);
  const query = clean(m ? text.slice(m.index + m[0].length) : text);
  return query !== "" ? query : originalQuery;
}

/** As `parse_observer`: cut at NOT_RELEVANT/MISSING/…; per line, the `clean`ed text before `|`; numbering keeps nothing. */
export function parseObserverOfficial(raw: string, batchIds: ReadonlySet<DocId>): ObserverAnswer {
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

/** As the notebook: the first `(KEYWORDS|REWRITTEN_QUERY|QUERY)\s*:\s*(.*)` (re.I | re.S: "SUBQUERY:" too), `clean`ed. */
export function parseRewriteOfficial(raw: string): string {
  const text = officialAnswerText(raw);
  const m = REWRITE_LABEL.exec(text);
  return clean(m ? m[1] : text);
}
