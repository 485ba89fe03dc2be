/**
 * BM25 over both cores gives the very results of one thread: all 4,355 queries of
 * greeklaws-2021 through `searchMany` (main thread and a worker) against `searchIds` one by one.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { requireShared } from "../helpers/shared";
import { readBeir } from "../../lib/data/beir";
import { bm25Search, bm25SearchMany, indexCorpus } from "../../lib/sparse/bm25-retriever";
import { PARALLEL_MIN_QUERIES, searchMany } from "../../lib/sparse/bm25-parallel";
import { greekStemmerTokenizer } from "../../lib/text/tokenizers";
import { attachRankings, bm25Sweep, bm25SweepMany } from "../../lib/experiments/sweep-run";

test("searchMany over a worker equals searchIds query by query, scores to the bit, positive-only too", async () => {
  const corpusFile = requireShared("data", "greeklaws-2021", "corpus.jsonl");
  const bench = await readBeir(path.dirname(corpusFile));
  assert.ok(bench.queries.length >= PARALLEL_MIN_QUERIES, "a batch large enough to be split");
  const corpus = indexCorpus(bench.docs, greekStemmerTokenizer());
  for (const params of [{}, { k1: 0.9, b: 0.4 }]) {
    const scorer = corpus.index.withParams(params);
    const ids = bench.queries.map((q) => Int32Array.from(corpus.analyze(q.text)));
    for (const positiveOnly of [false, true]) {
      const many = await searchMany(scorer, ids, 100, { positiveOnly });
      assert.equal(many.length, ids.length);
      ids.forEach((q, i) => {
        const one = scorer.searchIds(q, 100, { positiveOnly });
        assert.deepEqual(Array.from(many[i].docs), Array.from(one.docs), `query ${i}`);
        assert.deepEqual(Array.from(many[i].scores), Array.from(one.scores), `query ${i}`);
      });
    }
  }
  // The run the retriever returns, through the worker, is the one-thread run.
  const scorer = corpus.index.withParams();
  assert.deepEqual(await bm25SearchMany(corpus, scorer, bench.queries, 100), bm25Search(corpus, scorer, bench.queries, 100));
});

test("the sweep over a worker gives every setting's metrics and means to the bit, and the rankings attached afterwards are the sweep's", async () => {
  const dir = path.dirname(requireShared("data", "greeklaws-2021", "queries-sample.jsonl"));
  const bench = await readBeir(dir, { queriesFile: path.join(dir, "queries-sample.jsonl") });
  const corpus = indexCorpus(bench.docs, greekStemmerTokenizer());
  const opts = { k1s: [0.6, 1.2, 2], bs: [0.3, 0.75, 1] };
  const one = bm25Sweep(corpus, bench.queries, bench.qrels, { ...opts, keepRankings: true });
  const many = await bm25SweepMany(corpus, bench.queries, bench.qrels, opts);
  assert.deepEqual(many.best, one.best);
  assert.deepEqual(many.default, one.default);
  many.grid.forEach((e, i) => {
    assert.deepEqual(e.mean, one.grid[i].mean, `k1 ${e.k1} b ${e.b}`);
    assert.deepEqual([...e.perQuery.keys()], [...one.grid[i].perQuery.keys()], "qrels order");
    assert.deepEqual([...e.perQuery.values()], [...one.grid[i].perQuery.values()]);
  });
  attachRankings(corpus, bench.queries, many, [many.best, { k1: 0.6, b: 0.3 }]);
  for (const s of [many.best, { k1: 0.6, b: 0.3 }]) {
    const got = many.grid.find((e) => e.k1 === s.k1 && e.b === s.b)!.rankings!;
    const want = one.grid.find((e) => e.k1 === s.k1 && e.b === s.b)!.rankings!;
    assert.deepEqual(got, want, `rankings of k1 ${s.k1} b ${s.b}`);
  }
});
