/**
 * The authors' answer parsers (`--prompts official`), golden: every expected value below is what
 * the parse functions of the authors' notebook (nlpaueb/greek-bar-bench, quickstart/
 * greekbarretrieval_paper_experiments.ipynb at 992f5224: chat()'s post-processing, then
 * parse_planner / parse_observer / the rewrite regex) return for the same answer, computed with
 * Python 3.11 outside the repository. A differential run of 20,000 random answers built from the
 * same awkward pieces (labels, bullets, think blocks, CR/CRLF/NEL/U+2028 line breaks, no-break
 * spaces, Kelvin sign and long s) found no difference when this was written.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { officialAnswerText, parseObserverOfficial, parsePlannerOfficial, parseRewriteOfficial } from "../../../lib/llm/official-parsers";
import { clean } from "../../../lib/text/normalize";
import { pySplitLines, pyStrip } from "../../../lib/text/python-str";

const PLANNER: [answer: string, expected: string][] = [
  ["REASON:\nΗ καταγγελία της μίσθωσης.\n\nQUERY:\nμίσθωση,  καταγγελία, ΑΚ 597", "μίσθωση, καταγγελία, ΑΚ 597"],
  ["<think>QUERY: λάθος</think>\nREASON: α\n**QUERY**: σωστό", "σωστό"],
  ["<ANALYSIS>σκέψη\nQUERY: όχι</think>REASON: β\nquery :  γ, δ", "γ, δ"],
  ["REASON: x\n**QUERY:** α, β", "** α, β"],
  ["REASON: the query: α, β", "REASON: the query: α, β"],
  ["- QUERY: α", "- QUERY: α"],
  ["REASON: x\nQUERY: α, β\nQUERY: γ", "α, β\nQUERY: γ"],
  ["REASON: x\nQUERY:\n   ", "Ο Α;"],
  ["<think>σκέφτομαι… QUERY: μισό", "<think>σκέφτομαι… QUERY: μισό"],
  ["μίσθωση NBSP  καταγγελία\r\nΑΚ", "μίσθωση καταγγελία\nΑΚ"],
  ["REASON: x\rQUERY: α", "REASON: x\nQUERY: α"],
];

test("planner: split once at the first line-start QUERY: / **QUERY**:, else the whole answer; clean; empty -> the original query", () => {
  for (const [answer, expected] of PLANNER) assert.equal(parsePlannerOfficial(answer, "Ο Α;"), expected, JSON.stringify(answer));
});

const OBSERVER: [answer: string, batch: string[], expected: string[]][] = [
  ["RELEVANT:\nΑΚ::914 | αδικοπραξία\n- ΑΚ::932 | ηθική βλάβη\n* ΚΠολΔ::22|δωσιδικία", ["ΑΚ::914", "ΑΚ::932", "ΚΠολΔ::22"], ["ΑΚ::914", "ΑΚ::932", "ΚΠολΔ::22"]],
  ["RELEVANT:\n1. ΑΚ::914 | λόγος\n**ΑΚ::932** | λόγος\n`ΚΠολΔ::22` | λόγος", ["ΑΚ::914", "ΑΚ::932", "ΚΠολΔ::22"], []],
  ["RELEVANT: ΑΚ::914 | λόγος\nΑΚ::932", ["ΑΚ::914", "ΑΚ::932"], ["ΑΚ::932"]],
  ["RELEVANT:\nΑΚ::914 | α\nΑΚ::914 | β\nΑΚ::1 | όχι στη δέσμη\n•  ΑΚ::932 | γ", ["ΑΚ::914", "ΑΚ::932"], ["ΑΚ::914", "ΑΚ::932"]],
  ["RELEVANT:\nΑΚ::914 | α\n\nNOT_RELEVANT:\nΑΚ::932 | β", ["ΑΚ::914", "ΑΚ::932"], ["ΑΚ::914"]],
  ["RELEVANT:\nΑΚ::914 | α\n  missing : ΑΚ::932\nΑΚ::932 | β", ["ΑΚ::914", "ΑΚ::932"], ["ΑΚ::914"]],
  ["RELEVANT:\nΑΚ::914 | see NOT_RELEVANT: below\nΑΚ::932 | β", ["ΑΚ::914", "ΑΚ::932"], ["ΑΚ::914", "ΑΚ::932"]],
  ["<think>RELEVANT:\nΑΚ::932 | σκέψη</think>\nRELEVANT: NONE", ["ΑΚ::914", "ΑΚ::932"], []],
  ["RELEVANT:\r\n -ΑΚ::914 | α\r\n\tΑΚ::932 | β", ["ΑΚ::914", "ΑΚ::932"], ["ΑΚ::914", "ΑΚ::932"]],
  ["RELEVANT:\nΑΚ::914: αδικοπραξία\nΑΚ::932 - ηθική βλάβη\n| ΑΚ::914 | α |", ["ΑΚ::914", "ΑΚ::932"], []],
  ["OBSERVATION: ΑΚ::914 | α", ["ΑΚ::914"], []],
];

test("observer: cut at NOT_RELEVANT/MISSING/OBSERVATION/ANSWER lines; per line strip and drop -*• bullets; the id before the first |; only new ids of the batch", () => {
  for (const [answer, batch, expected] of OBSERVER) assert.deepEqual(parseObserverOfficial(answer, new Set(batch)).ids, expected, JSON.stringify(answer));
});

test("observer: the issue's two examples, reasons and ignored ids for the trace, RELEVANT: NONE", () => {
  const batch = new Set(["ΑΚ::914"]);
  assert.deepEqual(parseObserverOfficial("1. ΑΚ::914 | λόγος", batch).ids, []);
  assert.deepEqual(parseObserverOfficial("- ΑΚ::914 | λόγος", batch).ids, ["ΑΚ::914"]);
  const a = parseObserverOfficial("RELEVANT:\nΑΚ::914 |  αδικοπραξία \nΑΚ::1 | άλλη δέσμη", batch);
  assert.equal(a.reasons.get("ΑΚ::914"), "αδικοπραξία");
  assert.deepEqual(a.ignored, ["ΑΚ::1"]);
  assert.equal(a.none, false);
  assert.equal(parseObserverOfficial("RELEVANT: NONE", batch).none, true);
});

const REWRITE: [answer: string, expected: string][] = [
  ["KEYWORDS: μίσθωση,  καταγγελία,\nΑΚ 597\n", "μίσθωση, καταγγελία,\nΑΚ 597"],
  ["**KEYWORDS**:\n1. μίσθωση\n2. καταγγελία", "**KEYWORDS**:\n1. μίσθωση\n2. καταγγελία"],
  ["<think>KEYWORDS: λάθος</think>REWRITTEN_QUERY: Αστική ευθύνη οδηγού.", "Αστική ευθύνη οδηγού."],
  ["Η αναδιατύπωση (query: ευθύνη) ακολουθεί.\nQUERY: σωστό", "ευθύνη) ακολουθεί.\nQUERY: σωστό"],
  ["SUBQUERY: α", "α"],
  ["μίσθωση, καταγγελία", "μίσθωση, καταγγελία"],
  ["KEYWORDS:", ""],
  ["<think>μόνο σκέψη χωρίς τέλος", "<think>μόνο σκέψη χωρίς τέλος"],
];

test("rewrite: the first (KEYWORDS|REWRITTEN_QUERY|QUERY)\\s*:\\s*(.*) anywhere, else the whole answer; clean; nothing else, empty stays empty", () => {
  for (const [answer, expected] of REWRITE) assert.equal(parseRewriteOfficial(answer), expected, JSON.stringify(answer));
});

test("translation: the answer as chat() returns it (terminated think blocks removed, stripped), fences and all", () => {
  assert.equal(officialAnswerText("<think>…</THINK>\n```\nWhoever…\n```\n"), "```\nWhoever…\n```");
  assert.equal(officialAnswerText("  "), "");
  assert.equal(officialAnswerText("<analysis>a</think>x<think>b</analysis> y "), "x y");
});

test("Python str semantics: strip, splitlines and clean's strip use Python's whitespace", () => {
  assert.equal(pyStrip("\x85\x1c ΑΚ::914 \u3000"), "ΑΚ::914");
  assert.equal(pyStrip("\ufeffx"), "\ufeffx");
  assert.deepEqual(pySplitLines("a\r\nb\rc\x85d\u2028e\x1cf\n"), ["a", "b", "c", "d", "e", "f"]);
  assert.deepEqual(pySplitLines("a\n\nb"), ["a", "", "b"]);
  assert.deepEqual(pySplitLines(""), []);
  assert.equal(clean("\x85 α  β\x1c"), "α β");
  // One pass, as the reference's single regex: a no-break space inside a literal does not make it one.
  assert.equal(clean("NARROW\u00a0NO-BREAK SPACE x"), "NARROW NO-BREAK SPACE x");
});
