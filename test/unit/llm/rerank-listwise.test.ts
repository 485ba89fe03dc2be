import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { buildRerankRequest, excerpt, listwiseRerankRun, readPermutation, RERANK_PARAMS, slidingWindows } from "../../../lib/llm/rerank-listwise";
import { PROJECT_PROMPTS_DIR } from "../../../lib/llm/prompts";
import { digestOf } from "../../../lib/util/safe-files";
import { ChatError, type ChatModel, type ChatRequest, type ChatResponse } from "../../../lib/models/chat";
import type { Query, Run } from "../../../lib/types";
import { zeroWork } from "../../../lib/eval/run-cost";
import { isUnavailable } from "../../../lib/util/errors";
import { ReplayMissError } from "../../../lib/store";

// ---------------------------------------------------------------------------------------------
// The parser
// ---------------------------------------------------------------------------------------------

const parsePermutation = (answer: string, size: number) => readPermutation(answer, size).order;

test("parsePermutation reads RankGPT's format and its common variants", () => {
  assert.deepEqual(parsePermutation("[3] > [1] > [2]", 3), [2, 0, 1]);
  assert.deepEqual(parsePermutation("3 > 1 > 2", 3), [2, 0, 1]);
  assert.deepEqual(parsePermutation("[3], [1], [2]", 3), [2, 0, 1]);
  assert.deepEqual(parsePermutation("[3]\n[1]\n[2]", 3), [2, 0, 1]);
  assert.deepEqual(parsePermutation("3\n1\n2", 3), [2, 0, 1]);
  assert.deepEqual(parsePermutation("Passage [3] > Passage [1] > Passage [2]", 3), [2, 0, 1]);
  assert.deepEqual(parsePermutation("[ 3 ]>[1]>[2]", 3), [2, 0, 1]);
  // A list the model numbered itself: the numbering is not read as ids.
  assert.deepEqual(parsePermutation("1. [3]\n2. [1]\n3. [2]", 3), [2, 0, 1]);
  assert.deepEqual(parsePermutation("1. 3\n2. 1\n3. 2", 3), [2, 0, 1]);
});

test("parsePermutation: multi-digit ids", () => {
  const perm = parsePermutation("[10] > [2]", 12);
  assert.deepEqual(perm.slice(0, 2), [9, 1]);
  assert.deepEqual(perm.slice(2), [0, 2, 3, 4, 5, 6, 7, 8, 10, 11]);
  assert.deepEqual(parsePermutation("[20] > [19] > [1]", 20).slice(0, 3), [19, 18, 0]);
});

test("parsePermutation: missing ids follow in their original order", () => {
  assert.deepEqual(parsePermutation("[4] > [2]", 5), [3, 1, 0, 2, 4]);
});

test("parsePermutation: unknown ids and ids beyond the window are ignored", () => {
  assert.deepEqual(parsePermutation("[0] > [7] > [2] > [99]", 3), [1, 0, 2]);
  assert.deepEqual(parsePermutation("[4] > [1]", 3), [0, 1, 2]);
});

test("parsePermutation: a repeated id counts at its first place", () => {
  assert.deepEqual(parsePermutation("[2] > [3] > [2] > [1] > [3]", 3), [1, 2, 0]);
});

test("parsePermutation: an empty or id-free answer keeps the order", () => {
  assert.deepEqual(parsePermutation("", 4), [0, 1, 2, 3]);
  assert.deepEqual(parsePermutation("Δεν μπορώ να κατατάξω τα άρθρα.", 4), [0, 1, 2, 3]);
  assert.deepEqual(parsePermutation("anything", 0), []);
});

test("parsePermutation: prose around the ranking, bare numbers in prose ignored when ids are bracketed", () => {
  assert.deepEqual(parsePermutation("Η κατάταξη είναι: [2] > [1] > [3]. Το άρθρο 914 ΑΚ είναι κρίσιμο.", 3), [1, 0, 2]);
  assert.deepEqual(parsePermutation("Το πιο σχετικό είναι το 3, έπειτα το 1.", 3), [2, 0, 1]);
});

test("parsePermutation: reasoning blocks are removed first", () => {
  assert.deepEqual(parsePermutation("<think>ίσως [1] > [2] > [3]</think>\n[3] > [2] > [1]", 3), [2, 1, 0]);
  assert.deepEqual(parsePermutation("<analysis>[1]</analysis>[2] > [1]", 3), [1, 0, 2]);
  // An unterminated think block means the model ran out of tokens: nothing in it is the answer.
  assert.deepEqual(parsePermutation("<think>[3] > [1] > [2] και…", 3), [0, 1, 2]);
});

test("parsePermutation always returns a permutation", () => {
  const answers = ["", "[1]", "[5] > [5] > [0]", "12 3 3 7 x 2", "<think>", "[2]>[2]>[2]", "1. 2. 3.", "[-1] > [1.5]"];
  for (const a of answers) {
    for (const size of [1, 3, 7, 20]) {
      const p = parsePermutation(a, size);
      assert.deepEqual([...p].sort((x, y) => x - y), Array.from({ length: size }, (_, i) => i), `${JSON.stringify(a)} / ${size}`);
    }
  }
});

// ---------------------------------------------------------------------------------------------
// The window arithmetic
// ---------------------------------------------------------------------------------------------

test("slidingWindows: depth 100, window 20, step 10 → 9 calls, bottom first, top last", () => {
  const w = slidingWindows(100, 20, 10);
  assert.equal(w.length, 9);
  assert.deepEqual(w[0], { start: 80, end: 100 });
  assert.deepEqual(w[1], { start: 70, end: 90 });
  assert.deepEqual(w[8], { start: 0, end: 20 });
});

test("slidingWindows: a list no longer than the window takes one call; one article none", () => {
  assert.deepEqual(slidingWindows(12, 20, 10), [{ start: 0, end: 12 }]);
  assert.deepEqual(slidingWindows(20, 20, 10), [{ start: 0, end: 20 }]);
  assert.deepEqual(slidingWindows(1, 20, 10), []);
  assert.deepEqual(slidingWindows(0, 20, 10), []);
});

test("slidingWindows: when depth − window is not a multiple of step the last window is cut at the top", () => {
  const w = slidingWindows(95, 20, 10);
  assert.equal(w.length, 9);
  assert.deepEqual(w[0], { start: 75, end: 95 });
  assert.deepEqual(w[7], { start: 5, end: 25 });
  assert.deepEqual(w[8], { start: 0, end: 15 });
  assert.deepEqual(slidingWindows(21, 20, 10), [{ start: 1, end: 21 }, { start: 0, end: 11 }]);
  // ⌈(n − window) / step⌉ + 1 calls in general.
  for (const [n, win, step] of [[100, 20, 10], [95, 20, 10], [57, 10, 3], [30, 5, 5], [200, 20, 10]]) {
    const expected = n <= win ? 1 : Math.ceil((n - win) / step) + 1;
    assert.equal(slidingWindows(n, win, step).length, expected, `${n}/${win}/${step}`);
  }
  // Every position is in some window.
  const covered = new Set(slidingWindows(57, 10, 3).flatMap((x) => Array.from({ length: x.end - x.start }, (_, i) => x.start + i)));
  assert.equal(covered.size, 57);
});

test("slidingWindows: a one-article last window needs no call", () => {
  assert.deepEqual(slidingWindows(21, 10, 10), [{ start: 11, end: 21 }, { start: 1, end: 11 }]);
});

test("slidingWindows refuses windows that could not work", () => {
  assert.throws(() => slidingWindows(100, 1, 1), /window/);
  assert.throws(() => slidingWindows(100, 20, 0), /step/);
  assert.throws(() => slidingWindows(100, 20, 21), /step/);
});

// ---------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------

test("buildRerankRequest: the question, numbered excerpts, the project's prompts and temperature 0", () => {
  const long = "Μίσθωση. " + "λέξη ".repeat(1000);
  const req = buildRerankRequest("Ο Α μίσθωσε ακίνητο.", [long, "Κλοπή.\n\nΌποιος αφαιρεί ξένο κινητό πράγμα."]);
  assert.match(req.user, /Ο Α μίσθωσε ακίνητο\./);
  assert.match(req.user, /\(απόσπασμα/);
  assert.match(req.user, /\n\[1\] Μίσθωση\. λέξη/);
  assert.match(req.user, /\n\[2\] Κλοπή\. Όποιος αφαιρεί/);
  assert.match(req.user, /\[1\] έως \[2\]/);
  assert.ok(!/\{(query|passages|count|chars)\}/.test(req.user), "every placeholder filled");
  const first = /\n\[1\] (.*)\n/.exec(req.user)![1];
  assert.equal(Array.from(first).length, 1501, "1,500 characters and the ellipsis");
  assert.ok(first.endsWith("…"));
  assert.equal(req.temperature, 0);
  assert.equal(req.topP, RERANK_PARAMS.topP);
  const system = readFileSync(path.join(PROJECT_PROMPTS_DIR, "RERANK_SYSTEM.txt"), "utf8").replace(/\n$/, "");
  assert.equal(req.system, system);
});

test("excerpt: whitespace flattened, cut by code points", () => {
  assert.equal(excerpt("α  β\nγ", 100), "α β γ");
  assert.equal(excerpt("αβγδε", 3), "αβγ…");
  assert.equal(excerpt("😀😀😀", 2), "😀😀…");
});

// ---------------------------------------------------------------------------------------------
// The run, with a fake chat model
// ---------------------------------------------------------------------------------------------

const N_DOCS = 130;
const DOCS = new Map(Array.from({ length: N_DOCS }, (_, i) => [`Δ::${i}`, `Άρθρο ${i}. Κείμενο του άρθρου ${i}.`] as const));
const QUERIES: Query[] = [
  { id: "q1", text: "Ο Α μίσθωσε ακίνητο." },
  { id: "q2", text: "Ο Β αφαίρεσε ξένο πράγμα." },
  { id: "q3", text: "Ο Γ κληρονόμησε." },
];

/** A first stage: each query its own rotation of the corpus (so windows differ per query), with a duplicate. */
function firstStage(len = 120): Run {
  const rankings = new Map<string, string[]>();
  QUERIES.forEach((q, qi) => {
    const r = Array.from({ length: len }, (_, i) => `Δ::${(i + qi * 7) % N_DOCS}`);
    r.splice(3, 0, r[1]); // a repeated id counts at its first rank
    rankings.set(q.id, r);
  });
  const online = { ...zeroWork(), seconds: 0.5, embeddingCalls: 3, embeddingTokens: 30 };
  return { rankings, info: { retriever: "bm25-greekstemmer" }, cost: { online, corpus: { ...zeroWork(), seconds: 2 }, embeddingModel: "emb" } };
}

/** The window's article ids, read back from a request (the fake needs no other channel). */
function articlesOf(req: ChatRequest): string[] {
  return [...req.user.matchAll(/^\[\d+\] Άρθρο (\d+)\./gm)].map((m) => `Δ::${m[1]}`);
}

interface FakeOptions {
  answer?: (ids: string[], req: ChatRequest) => string;
  replayed?: boolean;
  fail?: (index: number) => Error | undefined;
  delayMs?: number;
}

function fakeModel(o: FakeOptions = {}) {
  const requests: ChatRequest[] = [];
  let inFlight = 0;
  let peak = 0;
  const byQuery = new Map<string, number>();
  let overlapSameQuery = false;
  const model: ChatModel = {
    id: "openai:fake/model",
    endpoint: "http://127.0.0.1:9",
    async complete(req: ChatRequest): Promise<ChatResponse> {
      const index = requests.length;
      requests.push(req);
      const q = req.user.split("\n")[2];
      if ((byQuery.get(q) ?? 0) > 0) overlapSameQuery = true;
      byQuery.set(q, (byQuery.get(q) ?? 0) + 1);
      peak = Math.max(peak, ++inFlight);
      try {
        await new Promise((r) => setTimeout(r, o.delayMs ?? 1));
        const err = o.fail?.(index);
        if (err) throw err;
        const ids = articlesOf(req);
        // Default: the reverse of the window.
        const text = o.answer ? o.answer(ids, req) : ids.map((_, i) => `[${ids.length - i}]`).join(" > ");
        return { text, raw: text, usage: { input: 100, output: 10 }, seconds: 0.25, servedModel: "fake-served", ...(o.replayed ? { replayed: true } : {}) };
      } finally {
        inFlight--;
        byQuery.set(q, byQuery.get(q)! - 1);
      }
    },
  };
  return { model, requests, peak: () => peak, overlapSameQuery: () => overlapSameQuery };
}

/** RankGPT's sliding pass, written out independently: reverse each window, bottom to top, clamped at 0. */
function simulateReverse(ranking: string[], depth: number, window: number, step: number, k: number): string[] {
  const all = ranking.filter((id, i) => ranking.indexOf(id) === i);
  const top = all.slice(0, depth);
  const n = top.length;
  if (n >= 2) {
    let end = n;
    let start = n - window;
    for (;;) {
      const s = Math.max(start, 0);
      if (end - s >= 2) top.splice(s, end - s, ...top.slice(s, end).reverse());
      if (start <= 0) break;
      start -= step;
      end -= step;
    }
  }
  return [...top, ...all.slice(depth)].slice(0, k);
}

test("listwiseRerankRun: the ranking equals an independent simulation of the sliding window", async () => {
  for (const [depth, window, step, k] of [[100, 20, 10, 100], [95, 20, 10, 110], [15, 20, 10, 100], [57, 10, 3, 60]]) {
    const fake = fakeModel();
    const first = firstStage();
    const run = await listwiseRerankRun(fake.model, QUERIES, first, DOCS, { depth, window, step, k });
    for (const q of QUERIES) {
      assert.deepEqual(run.rankings.get(q.id), simulateReverse(first.rankings.get(q.id)!, depth, window, step, k), `${q.id} ${depth}/${window}/${step}`);
    }
    const perQuery = slidingWindows(Math.min(depth, 120), window, step).length;
    assert.equal(fake.requests.length, perQuery * QUERIES.length);
    assert.equal(run.info?.rerank?.calls, perQuery * QUERIES.length);
  }
});

test("listwiseRerankRun: 9 calls per query at depth 100 / window 20 / step 10, and the run's record", async () => {
  const fake = fakeModel();
  const first = firstStage();
  const logs: string[] = [];
  const progress: number[] = [];
  const run = await listwiseRerankRun(fake.model, QUERIES, first, DOCS, { log: (m) => logs.push(m), onProgress: (_l, done) => progress.push(done) });
  assert.equal(fake.requests.length, 27);
  assert.equal(run.rankings.get("q1")!.length, 100);
  for (const r of fake.requests) {
    assert.equal(r.temperature, 0);
    assert.equal(r.topP, 1);
    assert.equal(r.reasoningEffort, "low");
    assert.equal(r.maxTokens, 42000);
  }
  const info = run.info!;
  assert.equal(info.retriever, "rerank:llm:bm25-greekstemmer");
  assert.deepEqual(info.parts, [{ retriever: "bm25-greekstemmer" }]);
  assert.deepEqual(info.rerank, {
    reranker: "llm",
    kind: "listwise-llm",
    model: "fake/model",
    endpoint: "http://127.0.0.1:9",
    depth: 100,
    window: 20,
    step: 10,
    calls: 27,
    servedModels: ["fake-served"],
    standIn: false,
    unparsed: 0,
  });
  const llm = info.llm!;
  assert.equal(llm.model, "fake/model");
  assert.equal(llm.provider, "openai");
  assert.deepEqual(llm.requests, { rerank: [{ max_tokens: 42000, reasoning_effort: "low", temperature: 0, top_p: 1, calls: 27 }] });
  assert.equal(llm.reused, 0);
  assert.equal(llm.prompts.name, "project");
  assert.equal(llm.parser, "project");
  const norm = (f: string) => readFileSync(path.join(PROJECT_PROMPTS_DIR, f), "utf8").replace(/\r\n?/g, "\n").replace(/\n$/, "");
  assert.deepEqual(llm.prompts.sha256, { RERANK_SYSTEM: digestOf(norm("RERANK_SYSTEM.txt")), RERANK_USER: digestOf(norm("RERANK_USER.txt")) });
  // Cost: the first stage's work plus every call's.
  const cost = run.cost!;
  assert.equal(cost.online.llmCalls, 27);
  assert.equal(cost.online.llmInput, 2700);
  assert.equal(cost.online.llmOutput, 270);
  assert.equal(cost.online.embeddingCalls, 3);
  assert.ok(Math.abs(cost.online.seconds - (0.5 + 27 * 0.25)) < 1e-9);
  assert.equal(cost.corpus.seconds, 2);
  assert.equal(cost.llmModel, "fake/model");
  assert.equal(cost.embeddingModel, "emb");
  assert.deepEqual(progress.sort((a, b) => a - b), [1, 2, 3]);
  assert.match(logs.at(-1)!, /27 call\(s\) for 3 queries \(27 made now, 0 from the replay cache\); 0 answer\(s\) without a usable id/);
});

test("listwiseRerankRun: the remainder after depth follows unchanged, cut to k", async () => {
  const fake = fakeModel();
  const first = firstStage();
  const run = await listwiseRerankRun(fake.model, QUERIES, first, DOCS, { depth: 30, k: 50 });
  const deduped = first.rankings.get("q2")!.filter((id, i, a) => a.indexOf(id) === i);
  const r = run.rankings.get("q2")!;
  assert.equal(r.length, 50);
  assert.deepEqual(r.slice(30), deduped.slice(30, 50));
  assert.deepEqual([...r.slice(0, 30)].sort(), [...deduped.slice(0, 30)].sort());
  assert.equal(new Set(r).size, r.length, "no duplicates");
});

test("listwiseRerankRun: an unparseable answer keeps the window's order and is counted", async () => {
  const fake = fakeModel({ answer: (ids, req) => (/Ο Β/.test(req.user) ? "Λυπάμαι, δεν μπορώ." : ids.map((_, i) => `[${ids.length - i}]`).join(" > ")) });
  const first = firstStage();
  const logs: string[] = [];
  const run = await listwiseRerankRun(fake.model, QUERIES, first, DOCS, { log: (m) => logs.push(m) });
  const deduped = first.rankings.get("q2")!.filter((id, i, a) => a.indexOf(id) === i);
  assert.deepEqual(run.rankings.get("q2"), deduped.slice(0, 100));
  assert.equal(run.info?.rerank?.unparsed, 9);
  assert.ok(logs.some((l) => /9 answer\(s\) without a usable id/.test(l)), logs.join("\n"));
  assert.deepEqual(run.rankings.get("q1"), simulateReverse(first.rankings.get("q1")!, 100, 20, 10, 100));
});

test("listwiseRerankRun: replayed answers count as reused, cost their recorded usage, and are no new calls", async () => {
  const fake = fakeModel({ replayed: true });
  const run = await listwiseRerankRun(fake.model, QUERIES, firstStage(), DOCS);
  assert.equal(run.info?.rerank?.calls, 0);
  assert.equal(run.info?.llm?.reused, 27);
  assert.equal(run.info?.llm?.requests.rerank[0].calls, 27);
  assert.equal(run.cost?.online.llmCalls, 27);
  assert.equal(run.cost?.online.llmInput, 2700);
});

test("listwiseRerankRun: a provider error fails the run with the reason and stops further calls", async () => {
  const fake = fakeModel({ fail: (i) => (i === 4 ? new ChatError("openai:fake at http://127.0.0.1:9: 500 CUDA out of memory", "PROVIDER", { status: 500 }) : undefined), delayMs: 5 });
  await assert.rejects(listwiseRerankRun(fake.model, QUERIES, firstStage(), DOCS, { concurrency: 1 }), (err: Error & { code?: string; unavailable?: boolean }) => {
    assert.match(err.message, /CUDA out of memory/);
    assert.match(err.message, /query q1, articles/);
    assert.equal(err.code, "PROVIDER");
    assert.equal(err.unavailable, false);
    return true;
  });
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(fake.requests.length, 5, "no call after the failure");
});

test("listwiseRerankRun: an offline replay miss stays 'cannot run here' (skipped, not failed)", async () => {
  const miss = new ReplayMissError("abc123", "/tmp/llm-calls.jsonl", "openai:fake/model");
  const fake = fakeModel({ fail: () => miss });
  await assert.rejects(listwiseRerankRun(fake.model, QUERIES, firstStage(), DOCS, { concurrency: 1 }), (err: Error) => {
    assert.ok(isUnavailable(err));
    assert.match(err.message, /offline \(GBR_OFFLINE\)/);
    assert.equal((err as Error & { cause?: unknown }).cause, miss);
    return true;
  });
});

test("listwiseRerankRun: queries run concurrently, the windows of one query one after another", async () => {
  const fake = fakeModel({ delayMs: 5 });
  await listwiseRerankRun(fake.model, QUERIES, firstStage(), DOCS, { concurrency: 2, depth: 40 });
  assert.equal(fake.peak(), 2);
  assert.equal(fake.overlapSameQuery(), false);
});

test("listwiseRerankRun: a query the first stage did not rank gets an empty ranking; an unknown article is an error", async () => {
  const fake = fakeModel();
  const first = firstStage();
  first.rankings.delete("q3");
  const run = await listwiseRerankRun(fake.model, QUERIES, first, DOCS, { depth: 20, name: "mine" });
  assert.deepEqual(run.rankings.get("q3"), []);
  assert.equal(run.info?.retriever, "mine");
  first.rankings.set("q3", ["Δ::1", "Χ::404"]);
  await assert.rejects(listwiseRerankRun(fake.model, QUERIES, first, DOCS, { depth: 20 }), /Χ::404/);
});

test("listwiseRerankRun refuses bad options", async () => {
  const fake = fakeModel();
  await assert.rejects(listwiseRerankRun(fake.model, QUERIES, firstStage(), DOCS, { depth: 0 }), /depth/);
  await assert.rejects(listwiseRerankRun(fake.model, QUERIES, firstStage(), DOCS, { window: 10, step: 11 }), /step/);
  assert.equal(fake.requests.length, 0);
});
