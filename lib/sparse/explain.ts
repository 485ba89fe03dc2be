/** One BM25 score taken apart per shared query term; the contributions add up to `Bm25Scorer.scoreAll`'s (tested). */
import type { DocId } from "../types";
import { bm25Weight, lengthNorm, type Bm25Params } from "./bm25";
import type { IndexedCorpus } from "./bm25-retriever";
import { expandQuery, type SparsePrfOptions } from "./prf";

/** One query term (as the tokenizer makes it) in an article's score: inQuery (rank_bm25 adds a repeat again) · bm25Weight. */
export type TermContribution = { term: string; inQuery: number; docFreq: number; idf: number; tf: number; contribution: number };

/** The article's score and rank (1 + articles scoring strictly higher), its length, and the shared terms, largest first. */
export interface Bm25Explanation {
  docId: DocId;
  score: number;
  rank: number;
  docLength: number;
  avgdl: number;
  params: Bm25Params;
  /** Query tokens, with repeats. */
  queryTokens: number;
  terms: TermContribution[];
}

/**
 * Why BM25 gives `docId` its score for `queryText`, term by term (defaults rank_bm25's: k1 1.5, b 0.75, ε 0.25).
 *
 * @example
 * const corpus = indexCorpus(bench.docs, greekStemmerTokenizer());
 * const why = explainBm25(corpus, query.text, "ΑΚ::914");
 * why.rank; why.terms.slice(0, 5); // the five terms that weigh most
 */
export function explainBm25(corpus: IndexedCorpus, queryText: string, docId: DocId, params: Partial<Bm25Params> = {}): Bm25Explanation {
  const d = corpus.docIds.indexOf(docId);
  if (d < 0) throw new Error(`explainBm25: no article '${docId}' in the corpus`);
  const scorer = corpus.index.withParams(params);
  const { k1, b } = scorer.params;
  const tokens = corpus.tokenizer.tokenize(queryText);
  const scores = scorer.scoreAll(tokens);
  const L = lengthNorm(k1, b, corpus.index.docLen[d], scorer.avgdl);
  const fw = corpus.index.forward();
  const tfInDoc = new Map<number, number>();
  for (let p = fw.start[d]; p < fw.start[d + 1]; p++) tfInDoc.set(fw.term[p], fw.tf[p]);
  const counts = new Map<string, number>();
  for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
  const terms: TermContribution[] = [];
  for (const [term, inQuery] of counts) {
    const id = corpus.index.vocab.get(term);
    const tf = id === undefined ? undefined : tfInDoc.get(id);
    if (id === undefined || tf === undefined) continue;
    const idf = scorer.idf[id];
    terms.push({ term, inQuery, docFreq: corpus.index.docFreq(id), idf, tf, contribution: inQuery * bm25Weight(idf, tf, k1, L) });
  }
  terms.sort((x, y) => y.contribution - x.contribution || (x.term < y.term ? -1 : 1));
  return {
    docId,
    score: scores[d],
    rank: 1 + scores.filter((s) => s > scores[d]).length,
    docLength: corpus.index.docLen[d],
    avgdl: scorer.avgdl,
    params: scorer.params,
    queryTokens: tokens.length,
    terms,
  };
}

/** The terms feedback added (best first), and the article ids of the first and the second pass. */
export type PrfExplanation = { added: string[]; before: DocId[]; after: DocId[] };

/**
 * One query through BM25 PRF as `prf:` runs it (rank_bm25's defaults): first pass, added terms, second pass.
 *
 * @example
 * const corpus = indexCorpus(bench.docs, greekStemmerTokenizer());
 * const prf = explainPrf(corpus, query.text);
 * prf.added.slice(0, 5);                                // the five terms that weigh most
 * [prf.before.indexOf("ΑΚ::914") + 1, prf.after.indexOf("ΑΚ::914") + 1]; // its rank, before and after
 */
export function explainPrf(corpus: IndexedCorpus, queryText: string, opts: SparsePrfOptions & { depth?: number } = {}): PrfExplanation {
  const scorer = corpus.index.withParams();
  const terms = corpus.index.terms();
  const depth = opts.depth ?? 100;
  const queryIds = Array.from(corpus.analyze(queryText));
  const first = scorer.searchIds(queryIds, depth);
  const expanded = expandQuery(scorer, queryIds, first.docs.subarray(0, opts.docs ?? 10), opts);
  const second = scorer.searchIds(expanded, depth);
  const ids = (docs: Int32Array) => Array.from(docs, (d) => corpus.docIds[d]);
  return { added: expanded.slice(queryIds.length).map((t) => terms[t]), before: ids(first.docs), after: ids(second.docs) };
}
