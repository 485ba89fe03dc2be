/** The `--plan` table: a skip reason ends at a word boundary with an ellipsis; shared calls are named, not summed. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { clipAtWord } from "../../../lib/util/text-table";
import { formatPlan } from "../../../lib/cli/print-plan";
import type { Plan, PlanRow } from "../../../lib/experiments/plan";

const REASON =
  "spaCy Greek lemma tables and stopwords (BM25-SPACY) not available (download failed: http://unreachable.invalid/explosion/spacy-lookups-data/v1.0.5/el_lemma_index.json: cannot connect)";

function row(id: string, over: Partial<PlanRow> = {}): PlanRow {
  return {
    id,
    calls: 26,
    inputTokens: 1000,
    outputTokens: 2600,
    cached: 0,
    newCalls: 26,
    sharedWith: [],
    exact: true,
    cost: 0.01,
    status: "ok",
    basis: "",
    chatInputTokens: 1000,
    embeddingTokens: 0,
    chatCalls: 26,
    embeddedTexts: 0,
    rerankRequests: 0,
    rerankPairs: 0,
    ...over,
  };
}

const plan = (experiments: PlanRow[]): Plan => ({
  dataset: "sample",
  queries: 26,
  articles: 114,
  experiments,
  total: { calls: 26, inputTokens: 1000, outputTokens: 2600, cost: 0.01, chatCalls: 26, embeddedTexts: 0, rerankRequests: 0, rerankPairs: 0 },
  outputGuesses: [],
  prices: "config/prices.json",
  notes: [],
});

test("clipAtWord ends at a word boundary with an ellipsis, and leaves a short text alone", () => {
  assert.equal(clipAtWord("short reason", 80), "short reason");
  const cut = clipAtWord(REASON, 80);
  assert.ok(cut.length <= 80, cut);
  assert.ok(cut.endsWith(" …"), cut);
  const kept = cut.slice(0, -2);
  assert.ok(REASON.startsWith(kept + " "), `'${kept}' ends mid-word`);
  // One word longer than the room is cut, still with the ellipsis.
  assert.equal(clipAtWord("x".repeat(100), 10), "x".repeat(9) + "…");
});

test("the plan table cuts a skip reason at a word, never mid-word", () => {
  const text = formatPlan(plan([row("bm25-spacy", { status: "skipped", reason: REASON, calls: 0, newCalls: 0, chatCalls: 0 })]), "plan.json");
  const line = text.split("\n").find((l) => l.startsWith("bm25-spacy"))!;
  const shown = line.slice(line.indexOf("skipped: ") + "skipped: ".length).trimEnd();
  assert.ok(shown.endsWith(" …"), line);
  assert.ok(REASON.startsWith(shown.slice(0, -2) + " "), `cut mid-word: ${line}`);
});

test("a skipped row shows the calls it sent before it stopped, so the new column still adds up to the total", () => {
  const text = formatPlan(plan([row("translate:bm25-english", { status: "skipped", reason: "no English tables", newCalls: 26 })]), "plan.json");
  assert.match(text, /translate:bm25-english +- +- +26 +- /);
});

test("shared calls: each row says what it needs, what is new, and whom it shares the rest with", () => {
  const text = formatPlan(
    plan([row("reform:bm25-greekstemmer"), row("reform:bm25-grnlp", { newCalls: 0, sharedWith: ["reform:bm25-greekstemmer"] })]),
    "plan.json",
  );
  assert.match(text, /experiment +calls +cached +new +/);
  assert.match(text, /reform:bm25-grnlp +26 +0 +0 .*reform:bm25-greekstemmer/);
  assert.match(text, /Total, each call once \(the sum of the new column\)/);
});
