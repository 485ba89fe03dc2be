/** BM25Okapi as rank_bm25 0.2.2 (the paper's): float operations in its order, so scores agree to the last bit. */

/** k1: tf saturation, b: length normalisation, epsilon: negative idf's floor as a fraction of the mean idf. */
export type Bm25Params = { k1: number; b: number; epsilon: number };

export const DEFAULT_BM25: Readonly<Bm25Params> = Object.freeze({ k1: 1.5, b: 0.75, epsilon: 0.25 });

import { newSelectScratch, selectTop, selectTopClearing, type SelectScratch, type TopK } from "../util/top-k";

export type { TopK };

export interface SearchOptions {
  /** Keep only documents whose score is > 0 (REACT-BM25 and the tuning sweep use this). */
  positiveOnly?: boolean;
}

/** Immutable inverted index; `withParams` makes a scorer for any (k1, b, ε) without rebuilding (sweep speed). */
export class Bm25Index {
  private constructor(
    /** term -> id, in order of first occurrence (rank_bm25's dict order); term t's postings [termStart[t], termStart[t+1]). */
    readonly vocab: Map<string, number>,
    readonly termStart: Int32Array,
    readonly postingDoc: Int32Array,
    readonly postingTf: Int32Array,
    readonly docLen: Int32Array,
  ) {}

  get docCount(): number {
    return this.docLen.length;
  }

  get postingCount(): number {
    return this.postingDoc.length;
  }

  static build(docs: readonly (readonly string[])[]): Bm25Index {
    const vocab = new Map<string, number>();
    const offsets = new Int32Array(docs.length + 1);
    for (let d = 0; d < docs.length; d++) offsets[d + 1] = offsets[d] + docs[d].length;
    const ids = new Int32Array(offsets[docs.length]);
    let i = 0;
    for (const tokens of docs) {
      for (const token of tokens) {
        let id = vocab.get(token);
        if (id === undefined) vocab.set(token, (id = vocab.size));
        ids[i++] = id;
      }
    }
    return Bm25Index.fromFlat([...vocab.keys()], ids, offsets);
  }

  /** From a flat corpus (`analyzeMany`'s): doc d is `ids.subarray(offsets[d], offsets[d + 1])`. */
  static fromFlat(terms: readonly string[], ids: Int32Array, offsets: Int32Array): Bm25Index {
    const V = terms.length;
    const N = offsets.length - 1;
    const docLen = new Int32Array(N);
    const totalTokens = offsets[N];
    // First pass: each doc's distinct terms and tfs back to back in flat arrays (not two allocations per doc).
    const df = new Int32Array(V);
    const lastDoc = new Int32Array(V).fill(-1);
    const slotOf = new Int32Array(V);
    const flatTerm = new Int32Array(totalTokens);
    const flatTf = new Int32Array(totalTokens);
    const docStart = new Int32Array(N + 1);
    let postings = 0;
    for (let d = 0; d < N; d++) {
      docLen[d] = offsets[d + 1] - offsets[d];
      docStart[d] = postings;
      for (let i = offsets[d]; i < offsets[d + 1]; i++) {
        const id = ids[i];
        if (id < 0 || id >= V) throw new RangeError(`document ${d}: term id ${id} outside the vocabulary of ${V}`);
        if (lastDoc[id] !== d) {
          lastDoc[id] = d;
          slotOf[id] = postings;
          flatTerm[postings] = id;
          flatTf[postings++] = 1;
          df[id]++;
        } else {
          flatTf[slotOf[id]]++;
        }
      }
    }
    docStart[N] = postings;
    // Second pass: lay postings out term-major, doc ids ascending within a term.
    const termStart = new Int32Array(V + 1);
    for (let t = 0; t < V; t++) termStart[t + 1] = termStart[t] + df[t];
    const fill = termStart.slice(0, V);
    const postingDoc = new Int32Array(postings);
    const postingTf = new Int32Array(postings);
    for (let d = 0; d < N; d++) {
      for (let i = docStart[d]; i < docStart[d + 1]; i++) {
        const p = fill[flatTerm[i]]++;
        postingDoc[p] = d;
        postingTf[p] = flatTf[i];
      }
    }
    const vocab = new Map<string, number>();
    for (let t = 0; t < V; t++) vocab.set(terms[t], t);
    return new Bm25Index(vocab, termStart, postingDoc, postingTf, docLen);
  }

  private forwardIndex?: { start: Int32Array; term: Int32Array; tf: Int32Array };

  /** Document-major view of the postings (terms ascending, with tfs), built on first use for feedback methods. */
  forward(): { start: Int32Array; term: Int32Array; tf: Int32Array } {
    if (this.forwardIndex) return this.forwardIndex;
    const N = this.docCount;
    const start = new Int32Array(N + 1);
    for (let p = 0; p < this.postingDoc.length; p++) start[this.postingDoc[p] + 1]++;
    for (let d = 0; d < N; d++) start[d + 1] += start[d];
    const fill = start.slice(0, N);
    const term = new Int32Array(this.postingDoc.length);
    const tf = new Int32Array(this.postingDoc.length);
    for (let t = 0; t < this.termCount; t++) {
      for (let p = this.termStart[t]; p < this.termStart[t + 1]; p++) {
        const q = fill[this.postingDoc[p]]++;
        term[q] = t;
        tf[q] = this.postingTf[p];
      }
    }
    this.forwardIndex = { start, term, tf };
    return this.forwardIndex;
  }

  terms(): string[] {
    this.termList ??= Array.from(this.vocab.keys());
    return this.termList;
  }
  private termList?: string[];

  get termCount(): number {
    return this.termStart.length - 1;
  }

  docFreq(t: number): number {
    return this.termStart[t + 1] - this.termStart[t];
  }

  /** A scorer for the given parameters (missing ones take rank_bm25's defaults). */
  withParams(params: Partial<Bm25Params> = {}): Bm25Scorer {
    return new Bm25Scorer(this, { ...DEFAULT_BM25, ...params });
  }
}

/** Okapi idf, floored as rank_bm25: terms in over half the corpus get ε·mean idf (summed in first-occurrence order). */
export function okapiIdf(index: Bm25Index, epsilon: number): Float64Array {
  const V = index.termCount;
  const N = index.docCount;
  const idf = new Float64Array(V);
  let sum = 0;
  const negative: number[] = [];
  for (let t = 0; t < V; t++) {
    const n = index.docFreq(t);
    const v = Math.log(N - n + 0.5) - Math.log(n + 0.5);
    idf[t] = v;
    sum += v;
    if (v < 0) negative.push(t);
  }
  const eps = epsilon * (sum / V);
  for (const t of negative) idf[t] = eps;
  return idf;
}

/** L_d = k1·(1 − b + b·|d|/avgdl), BM25's length normalisation, operations in rank_bm25's order. */
export function lengthNorm(k1: number, b: number, docLen: number, avgdl: number): number {
  return k1 * (1 - b + (b * docLen) / avgdl);
}

/** BM25's tf saturation tf·(k1+1) / (tf + L_d): the weight without its idf, which the sweep groups by tf. */
export function tfSaturation(tf: number, k1: number, lenNorm: number): number {
  return (tf * (k1 + 1)) / (tf + lenNorm);
}

/** BM25's term weight in rank_bm25's order: search, the sweep's re-scoring and explain all use it, so they agree to the bit. */
export function bm25Weight(idf: number, tf: number, k1: number, lenNorm: number): number {
  return idf * tfSaturation(tf, k1, lenNorm);
}

/** scores[d] += times · w over the postings [from, to): four at a time, as a term lists a document once the four adds are independent and their loads overlap (each score gets the same additions in the same order). */
function addPostings(from: number, to: number, postingDoc: Int32Array, weight: Float64Array, scores: Float64Array, times: number): void {
  let p = from;
  if (times === 1) {
    for (; p + 3 < to; p += 4) {
      const d0 = postingDoc[p];
      const d1 = postingDoc[p + 1];
      const d2 = postingDoc[p + 2];
      const d3 = postingDoc[p + 3];
      scores[d0] += weight[p];
      scores[d1] += weight[p + 1];
      scores[d2] += weight[p + 2];
      scores[d3] += weight[p + 3];
    }
  } else {
    for (; p + 3 < to; p += 4) {
      const d0 = postingDoc[p];
      const d1 = postingDoc[p + 1];
      const d2 = postingDoc[p + 2];
      const d3 = postingDoc[p + 3];
      scores[d0] += times * weight[p];
      scores[d1] += times * weight[p + 1];
      scores[d2] += times * weight[p + 2];
      scores[d3] += times * weight[p + 3];
    }
  }
  for (; p < to; p++) scores[postingDoc[p]] += times * weight[p];
}

/** One parameter setting's scorer over a `Bm25Index`. */
export class Bm25Scorer {
  readonly idf: Float64Array;
  readonly weight: Float64Array;
  readonly avgdl: number;
  private readonly scores: Float64Array;
  /** Scratch for `accumulate`: each term's count in the current query, and the distinct terms. */
  private readonly times: Int32Array;
  private readonly distinct: Int32Array;
  /** Each term's largest weight: summed over a query's terms, a bound on its scores (`bound`, for `selectTopClearing`). */
  private readonly termMax: Float64Array;
  /** Every weight >= 0 (unless idf goes negative), so scores lie in [0, bound]. */
  private readonly nonNegative: boolean;
  private bound = 0;
  private readonly scratch: SelectScratch;

  constructor(readonly index: Bm25Index, readonly params: Bm25Params) {
    const { k1, b, epsilon } = params;
    const N = index.docCount;
    let total = 0;
    for (let d = 0; d < N; d++) total += index.docLen[d];
    this.avgdl = total / N;
    this.idf = okapiIdf(index, epsilon);
    const lenNorm = new Float64Array(N);
    for (let d = 0; d < N; d++) lenNorm[d] = lengthNorm(k1, b, index.docLen[d], this.avgdl);
    const w = new Float64Array(index.postingCount);
    const termMax = new Float64Array(this.idf.length);
    let nonNegative = true;
    const { termStart, postingDoc, postingTf } = index;
    for (let t = 0; t < this.idf.length; t++) {
      const idf = this.idf[t];
      let max = 0;
      for (let p = termStart[t]; p < termStart[t + 1]; p++) {
        const v = bm25Weight(idf, postingTf[p], k1, lenNorm[postingDoc[p]]);
        w[p] = v;
        if (v > max) max = v;
        if (!(v >= 0)) nonNegative = false;
      }
      termMax[t] = max;
    }
    this.weight = w;
    this.termMax = termMax;
    this.nonNegative = nonNegative;
    this.scratch = newSelectScratch(N);
    this.scores = new Float64Array(N);
    this.times = new Int32Array(this.idf.length);
    this.distinct = new Int32Array(this.idf.length);
  }

  /** Full score vector for one query (repeated terms count again, unknown add 0); the caller owns the array. */
  scoreAll(queryTokens: readonly string[]): Float64Array {
    const out = new Float64Array(this.index.docCount);
    this.accumulate(Int32Array.from(queryTokens, (tok) => this.index.vocab.get(tok) ?? -1), out);
    return out;
  }

  /** A repeated term's postings are read once with weight × count: ~1e-15 relative from rank_bm25's sum, no oracle moved. */
  private accumulate(termIds: ArrayLike<number>, scores: Float64Array): void {
    const V = this.index.termCount;
    const times = this.times;
    const distinct = this.distinct;
    let n = 0;
    for (let i = 0; i < termIds.length; i++) {
      const t = termIds[i];
      if (t < 0 || t >= V) continue;
      if (times[t]++ === 0) distinct[n++] = t;
    }
    const { termStart, postingDoc } = this.index;
    let bound = 0;
    for (let i = 0; i < n; i++) {
      const t = distinct[i];
      const c = times[t];
      times[t] = 0;
      bound += c * this.termMax[t];
      addPostings(termStart[t], termStart[t + 1], postingDoc, this.weight, scores, c);
    }
    // A little above the sum, so that rounding in the additions cannot carry a score past it.
    this.bound = bound * (1 + 1e-9);
  }

  /** The k best documents for term ids (outside the vocabulary: 0), ties in corpus order; `positiveOnly` drops <= 0. */
  searchIds(termIds: ArrayLike<number>, k: number, opts: SearchOptions = {}): TopK {
    this.accumulate(termIds, this.scores);
    return this.select(k, opts);
  }

  private select(k: number, opts: SearchOptions): TopK {
    if (!Number.isInteger(k) || k < 1) {
      this.scores.fill(0);
      throw new RangeError(`k must be a positive integer, got ${k}`);
    }
    if (this.nonNegative) return selectTopClearing(this.scores, k, opts.positiveOnly === true, this.bound, this.scratch);
    const top = selectTop(this.scores, k, opts.positiveOnly === true);
    this.scores.fill(0);
    return top;
  }
}
