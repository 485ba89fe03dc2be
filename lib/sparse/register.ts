import type { Benchmark, Query, Run, RunInfo } from "../types";
import { registerRetriever, type FeedbackRetriever, type RetrieverOptions } from "../registry";
import { TOKENIZERS, createTokenizer } from "../text/registry";
import { bm25Search, indexCorpus } from "./bm25-retriever";
import { expandQuery } from "./prf";

/**
 * The BM25 variants of the paper as named retrievers, with query-expansion feedback for `prf:`.
 *
 * @example
 * const r = await bm25Retriever("bm25-greekstemmer", bench, { bm25: { k1: 1.2 } });
 */
export async function bm25Retriever(name: string, bench: Benchmark, opts: RetrieverOptions): Promise<FeedbackRetriever> {
  const tokenizer = await createTokenizer(name, opts);
  const t0 = performance.now();
  const corpus = indexCorpus(bench.docs, tokenizer);
  opts.log?.(
    `${name}: indexed ${corpus.index.docCount} documents, ${corpus.index.termCount} terms, ` +
      `${corpus.index.postingCount} postings in ${Math.round(performance.now() - t0)} ms`,
  );
  const scorer = corpus.index.withParams(opts.bm25);
  const search = { positiveOnly: opts.positiveOnly };
  // The parameters the scorer was built with, not the ones asked for: what ran is what is recorded.
  const { k1, b, epsilon } = scorer.params;
  const info = (retriever: string): RunInfo => ({ retriever, bm25: { tokenizer: tokenizer.name, k1, b, epsilon, positiveOnly: search.positiveOnly ?? false } });
  return {
    name,
    retrieve(queries: Query[], k: number): Run {
      return { ...bm25Search(corpus, scorer, queries, k, search), info: info(name) };
    },
    retrieveWithFeedback(queries: Query[], k: number): Run {
      const terms = corpus.index.terms();
      const rankings = new Map<string, string[]>();
      const scores = new Map<string, number[]>();
      for (const q of queries) {
        const ids = corpus.analyze(q.text);
        const first = scorer.searchIds(ids, 10, search);
        const top = scorer.searchIds(expandQuery(scorer, ids, first.docs, terms), k, search);
        rankings.set(q.id, Array.from(top.docs, (d) => corpus.docIds[d]));
        scores.set(q.id, Array.from(top.scores));
      }
      return { rankings, scores, info: info(`prf:${name}`) };
    },
  };
}

for (const name of Object.keys(TOKENIZERS)) registerRetriever(name, bm25Retriever);
