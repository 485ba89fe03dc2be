import type { Benchmark, Query, Run } from "../types";
import { secondsOf, timed } from "../eval/run-cost";
import type { FeedbackRetriever, RetrieverOptions, RunContext } from "../registry";
import { buildTokenizer } from "../text/registry";
import { bm25Search, sharedCorpus, type IndexedCorpus } from "./bm25-retriever";
import { expandQuery } from "./prf";

/** A BM25 retriever that lends its indexed corpus to the methods on the same index (LSI, REACT-BM25, the sweep). */
export type Bm25Retriever = FeedbackRetriever & { readonly corpus: IndexedCorpus };

/** The paper's BM25 variants as retrievers (with `prf:` feedback); runs record params, tokenizer and cost. */
export async function bm25Retriever(name: string, bench: Benchmark, opts: RetrieverOptions, ctx: RunContext): Promise<Bm25Retriever> {
  const tokenizer = await buildTokenizer(name, ctx);
  const corpus = await sharedCorpus(bench.docs, tokenizer, ctx);
  const scorer = corpus.index.withParams(opts.bm25);
  const search = { positiveOnly: opts.positiveOnly };
  // The parameters the scorer was built with, not the ones asked for: what ran is what is recorded.
  const { k1, b, epsilon } = scorer.params;
  const record = async (retriever: string, make: () => Run | Promise<Run>): Promise<Run> => {
    const { value: run, seconds } = await timed(make);
    return {
      ...run,
      info: { retriever, bm25: { tokenizer: tokenizer.name, k1, b, epsilon, positiveOnly: search.positiveOnly ?? false } },
      cost: { online: secondsOf(seconds), corpus: secondsOf(corpus.seconds) },
    };
  };
  return {
    name,
    corpus,
    retrieve: (queries: Query[], k: number) => record(name, () => bm25Search(corpus, scorer, queries, k, search)),
    retrieveWithFeedback: (queries: Query[], k: number) => {
      const expand = (ids: ArrayLike<number>) => expandQuery(scorer, ids, scorer.searchIds(ids, 10, search).docs);
      return record(`prf:${name}`, () => bm25Search(corpus, scorer, queries, k, { ...search, expand }));
    },
  };
}
