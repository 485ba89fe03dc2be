import { test } from "node:test";
import assert from "node:assert/strict";
import { loadBenchmark } from "../../../lib/data/source";
import { indexCorpus } from "../../../lib/sparse/bm25-retriever";
import { greekStemmerTokenizer } from "../../../lib/text/tokenizers";
import { explainBm25 } from "../../../lib/sparse/explain";

test("the contributions add up to the retriever's score, and the rank is its place in the scores", async () => {
  const { benchmark: bench } = await loadBenchmark("sample");
  const corpus = indexCorpus(bench.docs, greekStemmerTokenizer());
  for (const q of bench.queries.slice(0, 6)) {
    const scores = corpus.index.withParams({ k1: 1.2, b: 0.6 }).scoreAll(corpus.tokenizer.tokenize(q.text));
    for (const id of [...bench.qrels.get(q.id)!, bench.docs[0].id]) {
      const why = explainBm25(corpus, q.text, id, { k1: 1.2, b: 0.6 });
      const d = corpus.docIds.indexOf(id);
      const sum = why.terms.reduce((s, t) => s + t.contribution, 0);
      assert.ok(Math.abs(sum - scores[d]) <= 1e-9 * Math.max(1, Math.abs(scores[d])), `${q.id} ${id}: ${sum} vs ${scores[d]}`);
      assert.equal(why.score, scores[d]);
      assert.equal(why.rank, 1 + [...scores].filter((s) => s > scores[d]).length);
      for (let i = 1; i < why.terms.length; i++) assert.ok(why.terms[i - 1].contribution >= why.terms[i].contribution);
    }
  }
  assert.throws(() => explainBm25(corpus, "x", "NOPE::1"), /no article 'NOPE::1'/);
});

test("each contribution is to the bit what the scorer adds for that term (one weight function)", async () => {
  const { benchmark: bench } = await loadBenchmark("sample");
  const corpus = indexCorpus(bench.docs, greekStemmerTokenizer());
  const scorer = corpus.index.withParams({ k1: 1.2, b: 0.6 });
  let compared = 0;
  for (const q of bench.queries.slice(0, 6)) {
    for (const id of bench.qrels.get(q.id)!) {
      const d = corpus.docIds.indexOf(id);
      for (const t of explainBm25(corpus, q.text, id, { k1: 1.2, b: 0.6 }).terms) {
        const alone = scorer.scoreAll(Array(t.inQuery).fill(t.term))[d];
        assert.equal(t.contribution, alone, `${q.id} ${id} '${t.term}'`);
        compared++;
      }
    }
  }
  assert.ok(compared > 20, `only ${compared} terms compared`);
});
