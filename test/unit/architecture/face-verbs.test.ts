/**
 * The verbs the public face added for the notebooks are what the notebooks spelled out before:
 * each equals the composition of internals it replaced, on the demo set.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadBenchmark } from "../../../lib/data/source";
import { indexCorpus } from "../../../lib/sparse/bm25-retriever";
import { clean, foldUpper, words } from "../../../lib/text/normalize";
import { stem } from "../../../lib/text/greek-stemmer";
import { GREEK_STEMMER_STOPWORDS } from "../../../lib/text/stopwords";
import { explainStemming, greekStemmerTokenizer } from "../../../lib/text/tokenizers";
import { explainPrf } from "../../../lib/sparse/explain";
import { expandQuery } from "../../../lib/sparse/prf";
import { bm25Sweep, tuneBm25 } from "../../../lib/experiments/tuning";
import { crossValidatedTuning } from "../../../lib/eval/cross-validation";
import { sweepHeatmap as sweepGrid } from "../../../lib/eval/sweep-result";
import { firstGoldRankDistribution, firstGoldRanks, goldRankDistribution } from "../../../lib/eval/error-analysis";
import { figures, sweepHeatmap, tuningHeatmap } from "../../../lib/figures/figures";
import { paretoFront, qualityCostFront } from "../../../lib/eval/quality-cost";
import { show, showTable } from "../../../lib/report/notebook";
import { stats, describe } from "../../../lib/eval/statistics";
import { chatForMethod } from "../../../lib/llm/chat-for-method";
import { rewriteQueries, runContext } from "../../../lib/retrievers";
import { reformulate } from "../../../lib/llm/reformulate";
import { loadPromptSet } from "../../../lib/llm/prompts";
import { startOpenAIDouble } from "../../fakes/openai-server";

const TMP = mkdtempSync(path.join(os.tmpdir(), "gbr-face-verbs-"));
after(() => rmSync(TMP, { recursive: true, force: true }));

const loading = loadBenchmark("sample");

test("explainStemming is BM25-GREEKSTEMMER word by word: its stems are the tokenizer's tokens", () => {
  const sentence = "Ο μισθωτής οφείλει να καταβάλλει το μίσθωμα στον εκμισθωτή (άρθρο 595 ΑΚ).";
  const steps = explainStemming(sentence);
  assert.deepEqual(
    steps,
    words(clean(sentence)).map((w) => {
      const stop = GREEK_STEMMER_STOPWORDS.has(foldUpper(w));
      return { word: w, folded: foldUpper(w), stopword: stop, stem: stop ? null : stem(foldUpper(w)) };
    }),
  );
  assert.ok(steps.some((s) => s.stopword));
  assert.deepEqual(steps.flatMap((s) => (s.stem === null ? [] : [s.stem])), greekStemmerTokenizer().tokenize(sentence));
});

test("explainPrf is the first pass, expandQuery on its top 10 and the second pass", async () => {
  const { benchmark: bench } = await loading;
  const corpus = indexCorpus(bench.docs, greekStemmerTokenizer());
  for (const q of bench.queries.slice(0, 3)) {
    const scorer = corpus.index.withParams();
    const terms = corpus.index.terms();
    const ids = Array.from(corpus.analyze(q.text));
    const first = scorer.searchIds(ids, 100);
    const expanded = expandQuery(scorer, ids, first.docs.subarray(0, 10));
    const second = scorer.searchIds(expanded, 100);
    const prf = explainPrf(corpus, q.text);
    assert.deepEqual(prf.added, expanded.slice(ids.length).map((t) => terms[t]));
    assert.equal(prf.added.length, 30);
    assert.deepEqual(prf.before, Array.from(first.docs, (d) => corpus.docIds[d]));
    assert.deepEqual(prf.after, Array.from(second.docs, (d) => corpus.docIds[d]));
  }
});

test("tuneBm25 is the sweep and its 5-fold cross-validation (seed 42); tuningHeatmap draws it", async () => {
  const { benchmark: bench } = await loading;
  const corpus = indexCorpus(bench.docs, greekStemmerTokenizer());
  const { sweep, cv } = tuneBm25(corpus, bench.queries, bench.qrels);
  const alone = bm25Sweep(corpus, bench.queries, bench.qrels);
  assert.deepEqual(sweep.best, alone.best);
  assert.deepEqual(sweep.grid.map((e) => e.mean), alone.grid.map((e) => e.mean));
  assert.deepEqual(cv, crossValidatedTuning(alone, alone.queryIds, { folds: 5, seed: 42 }));
  assert.deepEqual(tuningHeatmap(sweep, "Recall@100"), sweepHeatmap({ ...sweepGrid(sweep, "Recall@100"), best: sweep.best, default: sweep.default }));
});

test("goldRankDistribution buckets each run's first-gold ranks", async () => {
  const { benchmark: bench } = await loading;
  const a = new Map(bench.queries.map((q) => [q.id, [...bench.qrels.get(q.id)!]]));
  const b = new Map(bench.queries.map((q) => [q.id, bench.docs.slice(0, 100).map((d) => d.id)]));
  const runs = new Map([["gold", a], ["first 100", b]]);
  assert.deepEqual(goldRankDistribution(runs, bench.qrels), firstGoldRankDistribution(new Map([...runs].map(([n, r]) => [n, firstGoldRanks(r, bench.qrels)]))));
});

test("qualityCostFront is the Pareto front of the methods that ran and have a cost", () => {
  const summary = [
    { experiment: "bm25", status: "ok", "Recall@100": 0.36 },
    { experiment: "reform", status: "ok", "Recall@100": "0.6" },
    { experiment: "worse", status: "ok", "Recall@100": 0.5 },
    { experiment: "failed", status: "failed", "Recall@100": 0.9 },
    { experiment: "no-cost", status: "ok", "Recall@100": 0.99 },
  ];
  const cost = [
    { method: "bm25", costPerQuery: 0 },
    { method: "reform", costPerQuery: "0.002" },
    { method: "worse", costPerQuery: 0.003 },
    { method: "failed", costPerQuery: 0 },
  ];
  assert.deepEqual(qualityCostFront(summary, cost), paretoFront([
    { name: "bm25", cost: 0, quality: 0.36, measure: "usd" as const, costText: "$0 per query" },
    { name: "reform", cost: 0.002, quality: 0.6, measure: "usd" as const, costText: "$0.002 per query" },
  ]));
  assert.deepEqual(qualityCostFront(summary, cost).map((p) => p.name), ["bm25", "reform"]);
});

test("rewriteQueries is reformulate with the configured chat model and the project's prompts, through the replay cache", async () => {
  const api = await startOpenAIDouble();
  const saved = { ...process.env };
  try {
    api.chat(() => ({ content: "KEYWORDS: αδικοπραξία, αποζημίωση", usage: { prompt_tokens: 100, completion_tokens: 10 } }));
    Object.assign(process.env, { GBR_CHAT_BASE_URL: `${api.url}/v1`, GBR_CHAT_API_KEY: "test-key", GBR_CHAT_MODEL: "openai/gpt-oss-120b", GBR_DATA_DIR: path.join(TMP, "data") });
    const { benchmark: bench } = await loading;
    const queries = bench.queries.slice(0, 2);
    const rewrites = await rewriteQueries(queries, "sparse");
    assert.equal(api.count("chat/completions"), 2);
    assert.deepEqual([...rewrites.keys()], queries.map((q) => q.id));
    const again = await reformulate(queries, "sparse", await chatForMethod({}, runContext()), loadPromptSet("project"));
    assert.deepEqual(again, rewrites);
    assert.equal(api.count("chat/completions"), 2, "the second ask is answered from the replay cache");
  } finally {
    process.env = saved;
    await api.close();
  }
});

test("show, figures and stats name the modules' own functions", () => {
  assert.equal(show.table, showTable);
  assert.equal(figures.tuningHeatmap, tuningHeatmap);
  assert.equal(stats.describe, describe);
  for (const family of [show, figures, stats]) for (const [name, f] of Object.entries(family)) if (name !== "PAPER_TESTS") assert.equal(typeof f, "function", name);
});
