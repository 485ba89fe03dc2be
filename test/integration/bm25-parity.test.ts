import { test } from "node:test";
import assert from "node:assert/strict";
import { readBeir } from "../../lib/data/beir";
import { readTrec } from "../../lib/data/runs";
import { bm25Search, indexCorpus } from "../../lib/sparse/bm25-retriever";
import { greekStemmerTokenizer } from "../../lib/text/tokenizers";
import type { Run } from "../../lib/types";
import { sharedPath } from "../helpers/shared";

/** Same top-100 in the same order for every query, and scores equal within 1e-9 relative. */
function assertParity(mine: Run, ref: Run, label: string): void {
  assert.equal(mine.rankings.size, ref.rankings.size, `${label}: query count`);
  let worst = 0;
  for (const [qid, refList] of ref.rankings) {
    const list = mine.rankings.get(qid);
    assert.ok(list, `${label}: query ${qid} missing`);
    assert.deepEqual(list, refList, `${label}: ranking of ${qid} differs`);
    const a = mine.scores!.get(qid)!;
    const b = ref.scores!.get(qid)!;
    for (let i = 0; i < b.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]) / Math.max(Math.abs(b[i]), 1e-300));
  }
  assert.ok(worst <= 1e-9, `${label}: max relative score difference ${worst}`);
  console.log(`${label}: ${ref.rankings.size} queries identical, max relative score difference ${worst.toExponential(2)}`);
}

async function corpus(set: string, queries: string) {
  const dir = sharedPath("data", set);
  const bench = await readBeir(dir, { queriesFile: `${dir}/${queries}` });
  return { bench, indexed: indexCorpus(bench.docs, greekStemmerTokenizer()) };
}

test("BM25-GREEKSTEMMER reproduces rank_bm25 on greeklaws-2021 (sample, long and all queries)", async () => {
  const { bench, indexed } = await corpus("greeklaws-2021", "queries.jsonl");
  const scorer = indexed.index.withParams();
  const sampleIds = new Set((await readBeir(sharedPath("data", "greeklaws-2021"), { queriesFile: sharedPath("data", "greeklaws-2021", "queries-sample.jsonl") })).queries.map((q) => q.id));
  const sample = bench.queries.filter((q) => sampleIds.has(q.id));
  assertParity(bm25Search(indexed, scorer, sample, 100), await readTrec(sharedPath("oracles", "greeklaws-2021", "bm25-greekstemmer-sample.trec")), "2021 sample");
  assertParity(bm25Search(indexed, scorer, bench.queries, 100), await readTrec(sharedPath("oracles", "greeklaws-2021", "bm25-greekstemmer-all.trec")), "2021 all");
  const long = await readBeir(sharedPath("data", "greeklaws-2021"), { queriesFile: sharedPath("data", "greeklaws-2021", "queries-long.jsonl") });
  assertParity(bm25Search(indexed, scorer, long.queries, 100), await readTrec(sharedPath("oracles", "greeklaws-2021", "bm25-greekstemmer-long.trec")), "2021 long");
});

test("BM25-GREEKSTEMMER reproduces rank_bm25 on greeklaws-2022 (sample)", async () => {
  const { bench, indexed } = await corpus("greeklaws-2022", "queries-sample.jsonl");
  assertParity(bm25Search(indexed, indexed.index.withParams(), bench.queries, 100), await readTrec(sharedPath("oracles", "greeklaws-2022", "bm25-greekstemmer-sample.trec")), "2022 sample");
});
