import type { Benchmark, Query, Run, Tokenizer } from "../types";
import { Bm25Index, type Bm25Scorer, type SearchOptions } from "./bm25";
import { Analyzer, isWordTokenizer } from "../text/analyzer";
import type { BuildCache } from "../registry";

/** Index plus doc ids in corpus order, built once (scorers per setting); `seconds` it took, the one-time work. */
export interface IndexedCorpus {
  tokenizer: Tokenizer;
  docIds: string[];
  index: Bm25Index;
  /** Query text -> term ids; word-level cached when the tokenizer allows it. */
  analyze(text: string): ArrayLike<number>;
  seconds: number;
}

/**
 * Tokenises and indexes the documents in corpus order.
 *
 * @example
 * const corpus = indexCorpus(bench.docs, greekStemmerTokenizer());
 */
export function indexCorpus(docs: Benchmark["docs"], tokenizer: Tokenizer): IndexedCorpus {
  const t0 = performance.now();
  const docIds = docs.map((d) => d.id);
  if (isWordTokenizer(tokenizer)) {
    const analyzer = new Analyzer(tokenizer);
    const { ids, offsets } = analyzer.analyzeMany(docs.map((d) => d.text));
    const index = Bm25Index.fromFlat(analyzer.terms.slice(), ids, offsets);
    // Words first seen in queries get ids past the index's vocabulary, which scoring ignores.
    return { tokenizer, docIds, index, analyze: (text) => analyzer.analyze(text), seconds: (performance.now() - t0) / 1000 };
  }
  const index = Bm25Index.build(docs.map((d) => tokenizer.tokenize(d.text)));
  const analyze = (text: string) => tokenizer.tokenize(text).map((t) => index.vocab.get(t) ?? -1);
  return { tokenizer, docIds, index, analyze, seconds: (performance.now() - t0) / 1000 };
}

/** Indexed once per job with `opts.cache` (BM25, PRF, LSI, REACT, the tuning sweep share it); logged when built. */
export function sharedCorpus(docs: Benchmark["docs"], tokenizer: Tokenizer, opts: { cache?: BuildCache; log?: (message: string) => void } = {}): Promise<IndexedCorpus> {
  const build = async () => {
    const corpus = indexCorpus(docs, tokenizer);
    const i = corpus.index;
    opts.log?.(`${tokenizer.name}: indexed ${i.docCount} documents, ${i.termCount} terms, ${i.postingCount} postings in ${Math.round(corpus.seconds * 1000)} ms`);
    return corpus;
  };
  return opts.cache ? opts.cache.once(docs, `corpus ${tokenizer.name}`, build) : build();
}

// Plain loops: Array.from with a map function costs 10x, a quarter of a query's time at 15,000 queries/s.
function idsOf(corpus: IndexedCorpus, docs: Int32Array): string[] {
  const out = new Array<string>(docs.length);
  for (let i = 0; i < docs.length; i++) out[i] = corpus.docIds[docs[i]];
  return out;
}
function numbersOf(values: Float64Array): number[] {
  const out = new Array<number>(values.length);
  for (let i = 0; i < values.length; i++) out[i] = values[i];
  return out;
}

/** Every query through one scorer: the top-k run with scores; `expand` rewrites a query's term ids first (PRF). */
export function bm25Search(
  corpus: IndexedCorpus,
  scorer: Bm25Scorer,
  queries: readonly Query[],
  k: number,
  opts: SearchOptions & { expand?: (ids: ArrayLike<number>) => ArrayLike<number> } = {},
): Run {
  const rankings = new Map<string, string[]>();
  const scores = new Map<string, number[]>();
  for (const q of queries) {
    const ids = corpus.analyze(q.text);
    const top = scorer.searchIds(opts.expand ? opts.expand(ids) : ids, k, opts);
    rankings.set(q.id, idsOf(corpus, top.docs));
    scores.set(q.id, numbersOf(top.scores));
  }
  return { rankings, scores };
}
