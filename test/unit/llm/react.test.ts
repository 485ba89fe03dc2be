import { test } from "node:test";
import assert from "node:assert/strict";
import os from "node:os";
import path from "node:path";
import { promises as fs } from "node:fs";
import fc from "fast-check";
import { observerBatches, observerPromptTokens, CHAT_OVERHEAD_TOKENS } from "../../../lib/llm/react-batches";
import { observerMessage, NOTHING_KEPT_YET, reactParserFor, type ReactPrompts } from "../../../lib/llm/react-prompts";
import { parseObserverAnswer, parsePlannerAnswer } from "../../../lib/llm/react-parse";
import { reactRanking, reactRun, runReact, type KeptInfo, type ReactContext } from "../../../lib/llm/react";
import { reactRoundTable } from "../../../lib/eval/react-rounds";
import { missedGoldByFirstRound, reactMissedGold } from "../../../lib/eval/react-missed";
import { reactAnalysis } from "../../../lib/experiments/assess";
import { REACT_TRACE, traceFileName, type ReactTrace } from "../../../lib/llm/react-traces";
import { openStore } from "../../../lib/store";
import { countTokens } from "../../../lib/text/tokens";
import { ChatError, stripReasoning, type ChatModel, type ChatRequest } from "../../../lib/models/chat";
import { bm25Search, indexCorpus } from "../../../lib/sparse/bm25-retriever";
import { greekStemmerTokenizer } from "../../../lib/text/tokenizers";
import { readBeir } from "../../../lib/data/beir";
import { evaluate } from "../../../lib/eval/metrics";
import type { Doc, Query } from "../../../lib/types";

// ---------------------------------------------------------------------------------------------
// Doubles

type Scripted = ChatModel & { calls: ChatRequest[] };

/** A chat model whose answers the test computes; counts calls; mimics providers (text stripped). */
function scripted(id: string, answer: (req: ChatRequest, n: number) => string, usage = { input: 100, output: 10 }): Scripted {
  const calls: ChatRequest[] = [];
  return {
    id,
    calls,
    async complete(req) {
      calls.push(req);
      const raw = answer(req, calls.length - 1);
      return { text: stripReasoning(raw), raw, usage: { ...usage }, seconds: 0.25 };
    },
  };
}

/** Tiny templates whose rendering the fakes can read back. */
function fakePrompts(): ReactPrompts {
  return {
    PLANNER_SYSTEM: "PLAN",
    PLANNER_FIRST: "FIRST\n{original_query}",
    PLANNER_NEXT: "NEXT {round_idx}/{max_rounds}\n{original_query}\nHISTORY:\n{query_history}\nKEPT:\n{kept_docs_summary}",
    OBSERVER_SYSTEM: "OBS",
    OBSERVER_USER: "Q: {original_query}\n\n{retrieved_docs_block}",
  };
}

/** The query text the fake prompts rendered (second line of a planner prompt). */
const originalOf = (req: ChatRequest) => req.user.split("\n")[1];
/** Doc ids in a fake observer prompt. */
const batchIdsOf = (req: ChatRequest) => [...req.user.matchAll(/^doc_id: (.*)$/gm)].map((m) => m[1]);
const roundOf = (req: ChatRequest) => (req.user.startsWith("FIRST") ? 1 : Number(/^NEXT (\d+)/.exec(req.user)![1]));

/** Latin words pass the Greek stemmer unchanged (upper-cased), so BM25 behaves predictably. */
function toyContext(docs: Doc[], planner: ChatModel, observer: ChatModel, extra: Partial<ReactContext> = {}): ReactContext {
  const corpus = indexCorpus(docs, greekStemmerTokenizer());
  return { corpus, scorer: corpus.index.withParams(), docs, planner, observer, prompts: fakePrompts(), ...extra };
}

const keepAll = (req: ChatRequest) => "RELEVANT:\n" + batchIdsOf(req).map((id) => `${id} | ok`).join("\n");

// ---------------------------------------------------------------------------------------------
// Tokens

test("countTokens is o200k_base: known counts, empty text, special-token markers as plain text", () => {
  // Reference counts from a second o200k implementation (js-tiktoken 1.0.21, o200k_base ranks).
  assert.equal(countTokens("hello world"), 2);
  assert.equal(countTokens("Η αγωγή απορρίπτεται ως αόριστη."), 16);
  assert.equal(countTokens("Άρθρο 914 ΑΚ: Όποιος ζημιώσει άλλον παράνομα και υπαίτια έχει υποχρέωση να τον αποζημιώσει."), 35);
  assert.equal(countTokens("ΑΚ::914 | σχετικό"), 7);
  assert.equal(countTokens("<|endoftext|>"), 7);
  assert.equal(countTokens(""), 0);
});

// ---------------------------------------------------------------------------------------------
// Planner parsing

test("planner: the text after QUERY:, in its label variants", () => {
  const orig = "Ποια είναι η προθεσμία;";
  assert.equal(parsePlannerAnswer("REASON:\nΚαταγγελία μίσθωσης.\n\nQUERY:\nμίσθωση, καταγγελία", orig), "μίσθωση, καταγγελία");
  assert.equal(parsePlannerAnswer("REASON: x\n**QUERY**: μίσθωση,  καταγγελία ", orig), "μίσθωση, καταγγελία");
  assert.equal(parsePlannerAnswer("REASON: x\n**QUERY:** α, β", orig), "α, β");
  assert.equal(parsePlannerAnswer("reason: x\n  Query :  α, β", orig), "α, β");
  assert.equal(parsePlannerAnswer("- **Query** : α", orig), "α");
  assert.equal(parsePlannerAnswer("## QUERY: α", orig), "α");
  assert.equal(parsePlannerAnswer("REASON: x\nQUERY: α, β\nQUERY: γ", orig), "α, β\nQUERY: γ", "first label wins, the rest is query text");
});

test("planner: no label gives the whole answer; an empty query gives the original", () => {
  const orig = "Ποια είναι η προθεσμία;";
  assert.equal(parsePlannerAnswer("μίσθωση, καταγγελία", orig), "μίσθωση, καταγγελία");
  // "query:" inside prose is not a label (it must start a line).
  assert.equal(parsePlannerAnswer("REASON: the query: α, β", orig), "REASON: the query: α, β");
  assert.equal(parsePlannerAnswer("REASON: x\nQUERY:", orig), orig);
  assert.equal(parsePlannerAnswer("REASON: x\n**QUERY**:   \n  ", orig), orig);
  assert.equal(parsePlannerAnswer("", orig), orig);
  assert.equal(parsePlannerAnswer("   \n", orig), orig);
});

test("planner: reasoning blocks are removed before parsing (also when a provider left them in)", () => {
  const orig = "Ε;";
  const raw = "<think>QUERY: λάθος</think>\nREASON: x\nQUERY: σωστό";
  assert.equal(parsePlannerAnswer(stripReasoning(raw), orig), "σωστό");
  assert.equal(parsePlannerAnswer(raw, orig), "σωστό");
  assert.equal(parsePlannerAnswer("<analysis>QUERY: λάθος</analysis>σωστό", orig), "σωστό");
  // The model ran out of tokens while thinking: nothing left, so the original query.
  assert.equal(parsePlannerAnswer(stripReasoning("<think>σκέφτομαι… QUERY: μισό"), orig), orig);
});

// ---------------------------------------------------------------------------------------------
// Observer parsing

test("observer: RELEVANT lines, reasons, and RELEVANT: NONE", () => {
  const batch = new Set(["ΑΚ::914", "ΑΚ::932", "ΑΚ::1"]);
  const a = parseObserverAnswer("RELEVANT:\nΑΚ::914 | αδικοπραξία\nΑΚ::932 | ηθική βλάβη", batch);
  assert.deepEqual(a.ids, ["ΑΚ::914", "ΑΚ::932"]);
  assert.equal(a.reasons.get("ΑΚ::914"), "αδικοπραξία");
  assert.equal(a.none, false);
  assert.deepEqual(a.ignored, []);

  for (const none of ["RELEVANT: NONE", "RELEVANT:\nNONE", "**RELEVANT:** NONE", "relevant : none."]) {
    const n = parseObserverAnswer(none, batch);
    assert.deepEqual(n.ids, [], none);
    assert.equal(n.none, true, none);
  }
  // An id beside a stray NONE: the id counts.
  const both = parseObserverAnswer("RELEVANT: NONE\nΑΚ::1 | τελικά ναι", batch);
  assert.deepEqual(both.ids, ["ΑΚ::1"]);
  assert.equal(both.none, false);
  // Nothing parseable is not "NONE".
  assert.equal(parseObserverAnswer("Δεν είμαι σίγουρος.", batch).none, false);
});

test("observer: only ids of the batch count; others are reported as ignored", () => {
  const a = parseObserverAnswer("RELEVANT:\nΑΚ::914 | ναι\nΑΚ::999 | επινοημένο\nΚΠολΔ::22 | άλλη παρτίδα\nΑΚ::999 | ξανά", new Set(["ΑΚ::914"]));
  assert.deepEqual(a.ids, ["ΑΚ::914"]);
  assert.deepEqual(a.ignored, ["ΑΚ::999", "ΚΠολΔ::22"]);
});

test("observer: markdown bullets, backticks, bold, spaces, missing reasons, same-line ids, tables", () => {
  const ids = ["A1", "B2", "C3", "D4", "E5", "F6", "G7", "H8", "I9", "J10", "K11", "L12", "ΑΚ::914"];
  const text = [
    "**RELEVANT:** A1 | στην ίδια γραμμή",
    "- B2 | παύλα",
    "* C3 | αστερίσκος",
    "1. D4 | αρίθμηση",
    "• `E5` | backticks",
    "- **F6** | έντονα",
    "   G7    |    κενά   ",
    "H8",
    "- I9 |",
    "J10 - παύλα αντί για κάθετο",
    "| K11 | πίνακας |",
    "doc_id: L12 | αντιγραμμένη ετικέτα",
    "ΑΚ::914: άνω-κάτω τελεία",
    "B2 | δεύτερη φορά",
  ].join("\n");
  const a = parseObserverAnswer(text, new Set(ids));
  assert.deepEqual(a.ids, ids);
  assert.equal(a.reasons.get("A1"), "στην ίδια γραμμή");
  assert.equal(a.reasons.get("B2"), "παύλα", "the first reason wins");
  assert.equal(a.reasons.get("G7"), "κενά");
  assert.equal(a.reasons.get("H8"), "");
  assert.equal(a.reasons.get("I9"), "");
  assert.equal(a.reasons.get("J10"), "παύλα αντί για κάθετο");
  assert.equal(a.reasons.get("K11"), "πίνακας");
  assert.equal(a.reasons.get("ΑΚ::914"), "άνω-κάτω τελεία");
  assert.deepEqual(a.ignored, []);
  // A line that merely starts with an id is prose, not a keep.
  const prose = parseObserverAnswer("RELEVANT:\nA1 δεν σχετίζεται με το ερώτημα\nB2 | ναι", new Set(ids));
  assert.deepEqual(prose.ids, ["B2"]);
});

test("observer: a NOT_RELEVANT section is not read, nor ids inside reasoning blocks", () => {
  const batch = new Set(["A", "B", "C"]);
  const a = parseObserverAnswer("RELEVANT:\nA | ναι\n\nNOT_RELEVANT:\nB | όχι\nC | όχι", batch);
  assert.deepEqual(a.ids, ["A"]);
  const raw = "<think>B | ίσως\nC | ίσως</think>\nRELEVANT: NONE";
  assert.equal(stripReasoning(raw), "RELEVANT: NONE");
  const b = parseObserverAnswer(raw, batch);
  assert.deepEqual(b.ids, []);
  assert.equal(b.none, true);
});

// ---------------------------------------------------------------------------------------------
// Ranking

test("kept ranking: more rounds, then earlier first round, then better best rank, then id", () => {
  const k = (rounds: number[], bestRank: number): KeptInfo => ({ rounds, first: rounds[0], bestRank });
  const kept = new Map<string, KeptInfo>([
    ["f", k([3], 1)],
    ["d", k([1, 2], 7)],
    ["b", k([2, 3], 1)],
    ["g", k([2], 99)],
    ["c", k([1, 3], 7)],
    ["a", k([1, 2, 3], 50)],
    ["e", k([1, 2], 3)],
  ]);
  // a: 3 rounds. Two rounds, first round 1: e (rank 3), then c and d (rank 7, by id); then b
  // (first round 2). One round: g (first round 2) before f (first round 3) despite f's rank 1.
  assert.deepEqual(reactRanking(kept), ["a", "e", "c", "d", "b", "g", "f"]);
  // Ids compare by code point as Python does: U+FFFF before U+1F600 (JavaScript's < says otherwise).
  const tie = new Map([["\u{1F600}", k([1], 1)], ["\uFFFF", k([1], 1)]]);
  assert.deepEqual(reactRanking(tie), ["\uFFFF", "\u{1F600}"]);
  const many = new Map(Array.from({ length: 150 }, (_, i) => [`d${String(i).padStart(3, "0")}`, k([1], i + 1)] as const));
  const top = reactRanking(many);
  assert.equal(top.length, 100);
  assert.equal(top[99], "d099");
  assert.deepEqual(reactRanking(many, 27).length, 27);
});

// ---------------------------------------------------------------------------------------------
// Batching

const doc = (id: string, len: number) => ({ id, text: "x".repeat(len) });
const charCount = (docs: { text: string }[]) => 10 + docs.reduce((s, d) => s + d.text.length, 0);

test("observer batches: greedy in rank order, strictly under the budget", () => {
  const docs = ["a", "b", "c", "d", "e"].map((id) => doc(id, 30));
  // 10 + 3·30 = 100 is not < 100: two per batch.
  const batches = observerBatches(docs, 100, charCount);
  assert.deepEqual(batches.map((b) => b.docs.map((d) => d.id)), [["a", "b"], ["c", "d"], ["e"]]);
  assert.deepEqual(batches.map((b) => b.tokens), [70, 70, 40]);
  assert.deepEqual(observerBatches(docs, 161, charCount).map((b) => b.docs.length), [5]);
  assert.deepEqual(observerBatches([], 100, charCount), []);
});

test("observer batches equal adding articles one by one (the reference's loop)", () => {
  const naive = (sizes: number[], budget: number) => {
    const out: number[][] = [];
    let cur: number[] = [];
    sizes.forEach((s, i) => {
      const cand = [...cur, i];
      if (10 + cand.reduce((t, j) => t + sizes[j], 0) < budget) cur = cand;
      else {
        out.push(cur);
        cur = [i];
      }
    });
    if (cur.length) out.push(cur);
    return out;
  };
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: 50 }), { maxLength: 120 }), fc.integer({ min: 0, max: 300 }), (sizes, extra) => {
      const budget = 61 + extra; // every article (≤ 50 + 10) fits alone
      const docs = sizes.map((s, i) => doc(String(i), s));
      const got = observerBatches(docs, budget, charCount).map((b) => b.docs.map((d) => Number(d.id)));
      assert.deepEqual(got, naive(sizes, budget));
    }),
    { numRuns: 300 },
  );
});

test("observer batches: an article that alone exceeds the budget is a BUDGET error naming it", () => {
  const docs = [doc("ok", 20), doc("ΑΚ::huge", 200), doc("after", 5)];
  assert.throws(
    () => observerBatches(docs, 100, charCount),
    (e: unknown) =>
      e instanceof ChatError && e.code === "BUDGET" && e.message.includes("ΑΚ::huge") && e.message.includes("210 tokens") && e.message.includes("budget 100"),
  );
  // Also when it comes first.
  assert.throws(() => observerBatches([doc("first", 500)], 100, charCount), /'first'/);
});

test("observer batches with the real tokenizer: the whole rendered prompt is counted", () => {
  const prompts = fakePrompts();
  const q = "Ποιες είναι οι προϋποθέσεις της αδικοπραξίας;";
  const count = observerPromptTokens(prompts, q);
  const docs = [
    { id: "ΑΚ::914", text: "Όποιος ζημιώσει άλλον παράνομα και υπαίτια έχει υποχρέωση να τον αποζημιώσει." },
    { id: "ΑΚ::932", text: "Σε περίπτωση αδικοπραξίας το δικαστήριο μπορεί να επιδικάσει εύλογη χρηματική ικανοποίηση." },
    { id: "ΑΚ::297", text: "Ο οφειλέτης έχει υποχρέωση να αποζημιώσει τον δανειστή για τη ζημία." },
  ];
  const two = count(docs.slice(0, 2));
  assert.equal(two, countTokens(prompts.OBSERVER_SYSTEM + observerMessage(prompts, q, docs.slice(0, 2))) + CHAT_OVERHEAD_TOKENS);
  assert.ok(two > count(docs.slice(0, 1)));
  assert.deepEqual(observerBatches(docs, two + 1, count).map((b) => b.docs.length), [2, 1]);
  // With the two-article prompt's exact count as the budget, the first batch holds one article.
  const tight = observerBatches(docs, two, count);
  assert.equal(tight[0].docs.length, 1);
  assert.deepEqual(tight.flatMap((b) => b.docs.map((d) => d.id)), docs.map((d) => d.id));
  for (const b of tight) assert.equal(b.tokens, count(b.docs));
  for (const b of tight) assert.ok(b.tokens < two);
  assert.throws(() => observerBatches(docs, count(docs.slice(0, 1)), count), (e: unknown) => e instanceof ChatError && e.code === "BUDGET" && /ΑΚ::914/.test(e.message));
  // A template holding the articles twice, or not at all, is counted as rendered too.
  for (const user of ["{retrieved_docs_block}\n{original_query}\n{retrieved_docs_block}", "{original_query} only"]) {
    const odd = { ...prompts, OBSERVER_USER: user };
    const whole = countTokens(odd.OBSERVER_SYSTEM + observerMessage(odd, q, docs)) + CHAT_OVERHEAD_TOKENS;
    assert.equal(observerPromptTokens(odd, q)(docs), whole);
  }
});

// ---------------------------------------------------------------------------------------------
// One query

const TOY: Doc[] = [
  { id: "d0", text: "alpha beta" },
  { id: "d1", text: "alpha gamma gamma" },
  { id: "d2", text: "beta gamma delta" },
  { id: "d3", text: "delta delta delta epsilon" },
  { id: "d4", text: "epsilon zeta" },
  { id: "d5", text: "eta theta" },
];

test("one query: planner query -> BM25 -> observer, with snapshots and candidate pools per round", async () => {
  const plannerAnswers = ["REASON: r1\nQUERY: alpha", "REASON: r2\n**QUERY**: gamma", "delta"];
  const planner = scripted("fake:planner", (_req, n) => plannerAnswers[n]);
  const keep: Record<number, string[]> = { 1: ["d1"], 2: ["d2", "d1"], 3: [] };
  let obsCalls = 0;
  const observer = scripted("fake:observer", (req) => {
    obsCalls++;
    const ids = keep[obsCalls];
    return ids.length ? "RELEVANT:\n" + ids.map((id) => `${id} | ok`).join("\n") + "\nd5 | not retrieved" : "RELEVANT: NONE";
  });
  const ctx = toyContext(TOY, planner, observer, { rounds: 3 });
  const seen: number[] = [];
  const trace = await runReact({ id: "q1", text: "Original question?" }, { ...ctx, onRound: (r) => void seen.push(r.round) });
  assert.deepEqual(seen, [1, 2, 3]);
  assert.equal(trace.complete, true);
  assert.deepEqual(trace.rounds.map((r) => r.planner.query), ["alpha", "gamma", "delta"]);

  // Round 1: "alpha" retrieves d0 (shorter, higher score) then d1; the observer keeps d1 (rank 2).
  const [r1, r2, r3] = trace.rounds;
  assert.deepEqual(r1.retrieved.map((r) => [r.id, r.rank]), [["d0", 1], ["d1", 2]]);
  assert.ok(r1.retrieved.every((r) => r.score > 0));
  assert.deepEqual(r1.observer[0].ids, ["d0", "d1"]);
  assert.deepEqual(r1.observer[0].ignored, ["d5"]);
  assert.deepEqual(r1.kept, [{ id: "d1", reason: "ok" }]);
  assert.deepEqual(r1.ranking, ["d1"]);
  assert.deepEqual(r1.newCandidates, ["d0", "d1"]);

  // Round 2: "gamma" retrieves d1 (tf 2) then d2; both kept: d1 now has two rounds.
  assert.deepEqual(r2.retrieved.map((r) => r.id), ["d1", "d2"]);
  assert.deepEqual(r2.ranking, ["d1", "d2"]);
  assert.deepEqual(r2.newCandidates, ["d2"]);

  // Round 3: "delta" retrieves d3, d2; nothing kept, the ranking stays.
  assert.deepEqual(r3.retrieved.map((r) => r.id), ["d3", "d2"]);
  assert.equal(r3.observer[0].none, true);
  assert.deepEqual(r3.ranking, ["d1", "d2"]);
  assert.deepEqual(r3.newCandidates, ["d3"]);
  assert.deepEqual(trace.ranking, ["d1", "d2"]);

  // Requests carry the paper's settings.
  assert.deepEqual(
    { t: planner.calls[0].temperature, p: planner.calls[0].topP, e: planner.calls[0].reasoningEffort, m: planner.calls[0].maxTokens, s: planner.calls[0].system },
    { t: 0.2, p: 1, e: "low", m: 42_000, s: "PLAN" },
  );
  assert.equal(observer.calls[0].maxTokens, 44_096);
  assert.equal(observer.calls[0].system, "OBS");
  assert.deepEqual(trace.totals, { calls: 6, input: 600, output: 60, seconds: 1.5 });
  assert.deepEqual(r1.totals, { calls: 2, input: 200, output: 20, seconds: 0.5 });
  // The trace is plain JSON.
  assert.deepEqual(JSON.parse(JSON.stringify(trace)), trace);
});

test("a query with no positive BM25 match calls no observer", async () => {
  const planner = scripted("p", () => "QUERY: nothingmatches");
  const observer = scripted("o", keepAll);
  const trace = await runReact({ id: "q", text: "q" }, toyContext(TOY, planner, observer, { rounds: 2 }));
  assert.equal(observer.calls.length, 0);
  assert.deepEqual(trace.rounds[1].retrieved, []);
  assert.deepEqual(trace.ranking, []);
  assert.equal(trace.totals.calls, 2);
});

test("planner rounds 2+: original query, round index, history, and ≤ 27 kept articles in ranking order", async () => {
  // 40 equally long articles sharing "common": round 1 retrieves all 40 in corpus order.
  const docs: Doc[] = Array.from({ length: 40 }, (_, i) => ({ id: `a${String(i).padStart(2, "0")}`, text: `common w${i}` }));
  const idOf = new Map(docs.map((d) => [d.text, d.id]));
  const queries = ["QUERY: common", "QUERY: w39 w38", "QUERY: w5", "QUERY: w6"];
  const planner = scripted("p", (req) => queries[roundOf(req) - 1]);
  const observer = scripted("o", keepAll);
  await runReact({ id: "q", text: "Το αρχικό ερώτημα;" }, toyContext(docs, planner, observer, { rounds: 4 }));

  assert.equal(planner.calls[0].user, "FIRST\nΤο αρχικό ερώτημα;");
  const next = planner.calls.slice(1).map((c) => {
    const [head, rest] = c.user.split("\nHISTORY:\n");
    const [history, kept] = rest.split("\nKEPT:\n");
    const texts = [...kept.matchAll(/\[ΣΧΕΤΙΚΟ_ΚΕΙΜΕΝΟ\]\n(.*)\n\[\/ΣΧΕΤΙΚΟ_ΚΕΙΜΕΝΟ\]/g)].map((m) => m[1]);
    return { head, history, kept, ids: texts.map((t) => idOf.get(t)) };
  });
  assert.deepEqual(next.map((n) => n.head), ["NEXT 2/4\nΤο αρχικό ερώτημα;", "NEXT 3/4\nΤο αρχικό ερώτημα;", "NEXT 4/4\nΤο αρχικό ερώτημα;"]);
  assert.equal(next[0].history, "- Γύρος 1: common");
  assert.equal(next[2].history, "- Γύρος 1: common\n- Γύρος 2: w39 w38\n- Γύρος 3: w5");
  // Round 2: everything kept once, in round 1, so BM25 rank (= corpus order) decides; 27 shown,
  // as full texts without ids, separated by blank lines.
  assert.deepEqual(next[0].ids, docs.slice(0, 27).map((d) => d.id));
  assert.ok(next[0].kept.startsWith("[ΣΧΕΤΙΚΟ_ΚΕΙΜΕΝΟ]\ncommon w0\n[/ΣΧΕΤΙΚΟ_ΚΕΙΜΕΝΟ]\n\n[ΣΧΕΤΙΚΟ_ΚΕΙΜΕΝΟ]\ncommon w1\n"));
  assert.ok(!next[0].kept.includes("a00"), "no ids in the kept texts");
  // Round 3: a38 and a39 were kept twice (best ranks 1 and 2 in round 2) and lead.
  assert.deepEqual(next[1].ids, ["a38", "a39", ...docs.slice(0, 25).map((d) => d.id)]);
  // Round 4: a05 joins them with two rounds; among the three, best rank 1 everywhere, so by id.
  assert.deepEqual(next[2].ids.slice(0, 4), ["a05", "a38", "a39", "a00"]);
  assert.equal(next[2].ids.length, 27);
});

test("planner round 2 before anything is kept says so in the authors' words", async () => {
  const planner = scripted("p", () => "QUERY: alpha");
  const observer = scripted("o", () => "RELEVANT: NONE");
  await runReact({ id: "q", text: "q" }, toyContext(TOY, planner, observer, { rounds: 2 }));
  assert.equal(planner.calls[1].user, `NEXT 2/2\nq\nHISTORY:\n- Γύρος 1: alpha\nKEPT:\n${NOTHING_KEPT_YET}`);
  assert.equal(NOTHING_KEPT_YET, "Δεν έχουν σημειωθεί ακόμη σχετικά έγγραφα.");
});

test("observer calls follow the token budget inside a round", async () => {
  const docs: Doc[] = Array.from({ length: 12 }, (_, i) => ({ id: `b${i}`, text: `shared w${i} ${"λέξη ".repeat(20 + i)}` }));
  const planner = scripted("p", () => "QUERY: shared");
  const observer = scripted("o", keepAll);
  const ctx = toyContext(docs, planner, observer, { rounds: 1 });
  const count = observerPromptTokens(ctx.prompts, "q");
  const budget = count(docs.slice(0, 5)) + 1; // five articles fit, six do not
  const trace = await runReact({ id: "q", text: "q" }, { ...ctx, budgetTokens: budget });
  const batches = trace.rounds[0].observer;
  assert.ok(batches.length >= 3);
  assert.deepEqual(batches.flatMap((b) => b.ids), trace.rounds[0].retrieved.map((r) => r.id));
  for (const b of batches) assert.ok(b.promptTokens < budget);
  assert.equal(observer.calls.length, batches.length);
  assert.deepEqual(observer.calls.map(batchIdsOf), batches.map((b) => b.ids));
  assert.equal(trace.rounds[0].kept.length, 12);
});

// ---------------------------------------------------------------------------------------------
// Many queries: round runs, round table, resume

const QUERIES: Query[] = ["alpha", "gamma", "delta", "epsilon", "beta", "zeta"].map((w, i) => ({ id: `Q/${i + 1}`, text: w }));

test("reactRun: per-round kept runs and candidate pools, and the round table", async () => {
  // The planner searches the query word in round 1 and "eta" (d5) in round 2; the observer keeps
  // only the first article of each batch.
  const planner = scripted("p", (req) => (roundOf(req) === 1 ? `QUERY: ${originalOf(req)}` : "QUERY: eta"));
  const observer = scripted("o", (req) => `RELEVANT:\n${batchIdsOf(req)[0]} | first`);
  const ctx = toyContext(TOY, planner, observer, { rounds: 2 });
  const qs = QUERIES.slice(0, 2); // alpha -> d0, d1 ; gamma -> d1, d2
  const result = await reactRun(qs, ctx);
  assert.equal(result.rounds, 2);
  assert.deepEqual([...result.kept.keys()], [1, 2]);
  assert.deepEqual(result.kept.get(1)!.rankings.get("Q/1"), ["d0"]);
  assert.deepEqual(result.kept.get(2)!.rankings.get("Q/1"), ["d0", "d5"]);
  assert.deepEqual(result.candidates.get(1)!.rankings.get("Q/2"), ["d1", "d2"]);
  assert.deepEqual(result.candidates.get(2)!.rankings.get("Q/2"), ["d1", "d2", "d5"]);
  assert.deepEqual(result.perRound.get("Q/1"), [
    { calls: 2, input: 200, output: 20, seconds: 0.5 },
    { calls: 4, input: 400, output: 40, seconds: 1 },
  ]);
  assert.deepEqual(result.traces.get("Q/2")!.totals, { calls: 4, input: 400, output: 40, seconds: 1 });

  const qrels = new Map([
    ["Q/1", new Set(["d1", "d5"])], // round 1: kept 0/2, pool 1/2; round 2: kept 1/2, pool 2/2
    ["Q/2", new Set(["d1"])], // kept 1/1 from round 1 on
  ]);
  const table = reactRoundTable(result, qrels);
  assert.deepEqual(table.map((r) => r.round), [1, 2], "rounds the run does not have are left out");
  assert.deepEqual(
    table.map((r) => [r.keptRecall100, r.candidateRecall100, r.callsPerQuery, r.tokensPerQuery]),
    [
      [0.5, 0.75, 2, 220],
      [0.75, 1, 4, 440],
    ],
  );
  assert.equal(table[1].keptRecall100, evaluate(result.kept.get(2)!.rankings, qrels).mean["Recall@100"]);
});

test("reactAnalysis: the round tables of a REACT run at every round, or the paper's rounds; nothing for another run", async () => {
  const planner = scripted("p", (req) => (roundOf(req) === 1 ? `QUERY: ${originalOf(req)}` : "QUERY: eta"));
  const observer = scripted("o", (req) => `RELEVANT:\n${batchIdsOf(req)[0]} | first`);
  const result = await reactRun(QUERIES.slice(0, 2), toyContext(TOY, planner, observer, { rounds: 2 }));
  const qrels = new Map([
    ["Q/1", new Set(["d1", "d5"])],
    ["Q/2", new Set(["d1"])],
  ]);
  const run = { ...result.kept.get(2)!, react: result };
  const all = reactAnalysis(run, qrels, { rounds: "all" })!;
  assert.equal(all.react, result);
  assert.deepEqual(all.rounds.map(({ missedGoldPairs, missedGoldQueries, ...row }) => row), reactRoundTable(result, qrels, [1, 2]));
  const missed = reactMissedGold(new Map([...result.traces].map(([q, t]) => [q, t.rounds])), qrels, [1, 2]);
  assert.deepEqual(all.missed, missed);
  assert.deepEqual(all.rounds.map((r) => [r.missedGoldPairs, r.missedGoldQueries]), missed.rounds.map((m) => [m.missedGoldPairs, m.missedGoldQueries]));
  assert.deepEqual(all.missedByFirstRound, missedGoldByFirstRound(missed.pairs, missed.lastRound));
  // By default the paper's snapshot rounds, of which this 2-round run has 1 and 2.
  assert.deepEqual(reactAnalysis(run, qrels)!.rounds.map((r) => r.round), [1, 2]);
  assert.equal(reactAnalysis(result.kept.get(2)!, qrels), undefined);
});

test("reactRun resumes after a crash half-way: finished queries make no call again", async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "react-resume-"));
  try {
    // First run: the planner fails in round 2 of the 5th query.
    const failing = scripted("p", (req, n) => {
      if (originalOf(req) === QUERIES[4].text && roundOf(req) === 2) throw new Error("provider down");
      return `QUERY: ${originalOf(req)}`;
    });
    const observer1 = scripted("o", keepAll);
    const ctx1 = toyContext(TOY, failing, observer1, { rounds: 2 });
    const done: string[] = [];
    await assert.rejects(reactRun(QUERIES, ctx1, { traceDir: dir, onQuery: (e) => void done.push(e.query.id) }), /provider down/);
    assert.deepEqual(done, ["Q/1", "Q/2", "Q/3", "Q/4"]);
    const files = (await fs.readdir(dir)).sort();
    assert.deepEqual(files, QUERIES.slice(0, 5).map((q) => traceFileName(q.id)).sort(), "no temp files left");
    const partial = JSON.parse(await fs.readFile(path.join(dir, traceFileName("Q/5")), "utf8")) as ReactTrace;
    assert.equal(partial.complete, false);
    assert.equal(partial.rounds.length, 1);
    assert.match(partial.error ?? "", /provider down/);

    // Second run with resume: only queries 5 and 6 reach the models.
    const planner2 = scripted("p", (req) => `QUERY: ${originalOf(req)}`);
    const observer2 = scripted("o", keepAll);
    const ctx2 = toyContext(TOY, planner2, observer2, { rounds: 2 });
    const result = await reactRun(QUERIES, ctx2, { traceDir: dir, concurrency: 3 });
    const asked = new Set(planner2.calls.map(originalOf));
    assert.deepEqual([...asked].sort(), [QUERIES[4].text, QUERIES[5].text].sort());
    assert.equal(planner2.calls.length, 4);
    for (const q of QUERIES.slice(0, 4)) assert.ok(!observer2.calls.some((c) => c.user.startsWith(`Q: ${q.text}\n`)), q.id);
    assert.deepEqual(result.resumed, ["Q/1", "Q/2", "Q/3", "Q/4"]);
    assert.deepEqual(result.queryIds, QUERIES.map((q) => q.id));
    assert.deepEqual(result.kept.get(2)!.rankings.get("Q/1"), ["d0", "d1"]);
    for (const q of QUERIES) assert.equal(result.traces.get(q.id)!.complete, true);

    // A third run with resume makes no call at all.
    const planner3 = scripted("p", () => "QUERY: alpha");
    const again = await reactRun(QUERIES, toyContext(TOY, planner3, scripted("o", keepAll), { rounds: 2 }), { traceDir: dir });
    assert.equal(planner3.calls.length, 0);
    assert.deepEqual(again.resumed, QUERIES.map((q) => q.id));
    // Whatever would change a request or the reading of an answer runs again: fewer rounds (every
    // planner prompt says "round i of N"), another model, other prompts, another parser.
    const variants: [string, Partial<ReactContext>, string][] = [
      ["fewer rounds", { rounds: 1 }, "p"],
      ["another model", {}, "other-planner"],
      ["other prompts", { prompts: { ...fakePrompts(), PLANNER_FIRST: "FIRST\n{original_query}\n(edited)" } }, "p"],
      ["another parser", { parser: reactParserFor("official") }, "p"],
    ];
    for (const [why, extra, id] of variants) {
      // Back to the baseline trace first, so that each variant differs from it in one way only.
      await reactRun(QUERIES.slice(0, 1), toyContext(TOY, scripted("p", (req) => `QUERY: ${originalOf(req)}`), scripted("o", keepAll), { rounds: 2 }), { traceDir: dir });
      const planner4 = scripted(id, (req) => `QUERY: ${originalOf(req)}`);
      await reactRun(QUERIES.slice(0, 1), toyContext(TOY, planner4, scripted("o", keepAll), { rounds: 2, ...extra }), { traceDir: dir });
      assert.ok(planner4.calls.length > 0, why);
    }
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});

test("reactRun with a store: finished queries are kept there, so a run without the trace folder makes no call, and writes the traces again", async () => {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), "react-store-"));
  try {
    const store = await openStore(path.join(root, "store"));
    const planner = scripted("p", (req) => `QUERY: ${originalOf(req)}`);
    const first = await reactRun(QUERIES, toyContext(TOY, planner, scripted("o", keepAll), { rounds: 2 }), { traceDir: path.join(root, "a"), store, concurrency: 2 });
    assert.ok(planner.calls.length > 0);
    assert.deepEqual(first.resumed, []);
    const stored: string[] = [];
    for await (const r of store.records(REACT_TRACE)) stored.push(r.trace.query.id);
    assert.deepEqual(stored.sort(), QUERIES.map((q) => q.id).sort());

    // Another trace folder (or none left): every query from the store, no call, the same traces.
    const none = scripted("p", () => assert.fail("no call"));
    const again = await reactRun(QUERIES, toyContext(TOY, none, scripted("o", () => assert.fail("no call")), { rounds: 2 }), { traceDir: path.join(root, "b"), store });
    assert.deepEqual(again.resumed, QUERIES.map((q) => q.id));
    for (const q of QUERIES) {
      assert.deepEqual(again.traces.get(q.id), first.traces.get(q.id));
      assert.ok((await fs.readdir(path.join(root, "b"))).includes(traceFileName(q.id)), "the trace folder is written again");
    }
    // Another setting is another record: asked again.
    const fewer = scripted("p", (req) => `QUERY: ${originalOf(req)}`);
    await reactRun(QUERIES.slice(0, 1), toyContext(TOY, fewer, scripted("o", keepAll), { rounds: 1 }), { store });
    assert.ok(fewer.calls.length > 0);
  } finally {
    await fs.rm(root, { recursive: true, force: true });
  }
});

test("trace file names are safe and distinct", () => {
  assert.equal(traceFileName("Q-N4765-16"), "Q-N4765-16.json");
  const a = traceFileName("ΑΚ/914");
  const b = traceFileName("ΑΚ_914");
  const c = traceFileName("..");
  assert.match(a, /^[A-Za-z0-9_.-]+\.json$/);
  assert.notEqual(a, b);
  assert.ok(!c.startsWith("."));
});

// ---------------------------------------------------------------------------------------------
// End to end on real statute text

const GREEKLAWS = path.resolve(__dirname, "..", "../../../shared/data/greeklaws-2021");

test("greeklaws-2021, first 5 sample queries: a gold-keeping observer makes kept recall equal pool recall", async () => {
  const bench = await readBeir(GREEKLAWS, {
    queriesFile: path.join(GREEKLAWS, "queries-sample.jsonl"),
    qrelsFile: path.join(GREEKLAWS, "qrels", "sample.tsv"),
  });
  const queries = bench.queries.slice(0, 5);
  const qrels = new Map(queries.map((q) => [q.id, bench.qrels.get(q.id)!]));
  const byText = new Map(queries.map((q) => [q.text, q.id]));
  const planner = scripted("fake:planner", (req) => `REASON: -\nQUERY: ${originalOf(req)}`);
  const observer = scripted("fake:observer", (req) => {
    const qid = byText.get(/^Q: (.*)$/m.exec(req.user)![1])!;
    const gold = batchIdsOf(req).filter((id) => qrels.get(qid)!.has(id));
    return gold.length ? "RELEVANT:\n" + gold.map((id) => `${id} | το ζητούμενο άρθρο`).join("\n") : "RELEVANT: NONE";
  });
  const corpus = indexCorpus(bench.docs, greekStemmerTokenizer());
  const scorer = corpus.index.withParams();
  const ctx: ReactContext = { corpus, scorer, docs: bench.docs, planner, observer, prompts: fakePrompts(), rounds: 2 };
  const result = await reactRun(queries, ctx);
  const table = reactRoundTable(result, qrels);
  for (const row of table) assert.equal(row.keptRecall100, row.candidateRecall100, `round ${row.round}`);
  // Round 1 searches the original query, so its pool is BM25's positive-only top 100.
  const bm25 = bm25Search(corpus, scorer, queries, 100, { positiveOnly: true });
  assert.equal(table[0].candidateRecall100, evaluate(bm25.rankings, qrels).mean["Recall@100"]);
  assert.ok(table[0].candidateRecall100 > 0);
  for (const q of queries) {
    assert.deepEqual(result.candidates.get(1)!.rankings.get(q.id), bm25.rankings.get(q.id));
    // The same query twice: every kept article was kept in both rounds.
    const t = result.traces.get(q.id)!;
    assert.deepEqual(t.rounds[1].ranking, t.rounds[0].ranking);
    for (const b of t.rounds[0].observer) assert.ok(b.promptTokens < 84_000);
  }
  assert.equal(table[1].callsPerQuery, result.queryIds.reduce((s, id) => s + result.traces.get(id)!.totals.calls, 0) / 5);
});
