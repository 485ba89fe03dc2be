/** Engine of the paper's BM25 sweep (DESIGN.md §6): its 16 × 12 (k1, b) grid and exact, fast top-100s per setting. */
import type { IndexedCorpus } from "./bm25-retriever";
import * as bm25 from "./bm25";
import { okapiIdf, type Bm25Index, type Bm25Params } from "./bm25";

// Bound once: the hot loops call these directly, not through the import's live binding, which a CommonJS build (tsx,
// the tests, the benches) reads through a getter per call; that made the sweep twice as slow.
const { bm25Weight, lengthNorm, tfSaturation } = bm25;

/** Integers divided once, so each value equals its typed literal (0.6, not 0.2 + 0.2 + 0.2); 0.75 needs hundredths. */
function gridFromHundredths(start: number, stop: number, step: number, extra: number): number[] {
  const set = new Set<number>([extra]);
  for (let v = start; v <= stop; v += step) set.add(v);
  return [...set].sort((x, y) => x - y).map((v) => v / 100);
}

/** The paper's k1 grid: 0.2, 0.4, …, 3.0 plus rank_bm25's default 1.5 (16 values, ascending). */
export const SWEEP_K1: readonly number[] = Object.freeze(gridFromHundredths(20, 300, 20, 150));

/** The paper's b grid: 0.0, 0.1, …, 1.0 plus rank_bm25's default 0.75 (12 values, ascending). */
export const SWEEP_B: readonly number[] = Object.freeze(gridFromHundredths(0, 100, 10, 75));

/**
 * Exact positive-only top-k BM25 rankings of one query under many (k1, b) settings. The setting enters only through
 * F(tf, L) = tf·(k1+1) / (tf + L), L_d = k1·(1 − b + b·|d|/avgdl), and a document has few distinct tf values, so
 *
 *   score(d) ≈ Σ over distinct tf values v of d: F(v, L_d) · S_d(v),  S_d(v) = Σ_{t: tf(t,d) = v} qtf(t) · idf(t).
 *
 * A document scores at most F(max tf, min L)·Σ_v |S_d(v)|, so visiting by decreasing bound stops early (about a
 * quarter of matching documents on greeklaws-2021). Regrouped scores carry a rigorous error bound; documents whose
 * intervals overlap each other or zero are re-scored exactly as the direct scorer does, ties by corpus position.
 */
export class QuerySweep {
  private readonly N: number;
  private readonly V: number;
  private readonly idf: Float64Array;
  /** Per setting: k1, b and the smallest L_d. */
  private readonly k1: Float64Array;
  private readonly b: Float64Array;
  private readonly minLenNorm: Float64Array;
  private readonly avgdl: number;
  private readonly index: IndexedCorpus["index"];

  // ---- the current query
  /** Each slot's term (slots in order of first occurrence) and its count in the query. */
  private slotTerm = new Int32Array(0);
  private slotQtf = new Int32Array(0);
  private tolerance = 0;
  private nonNegative = true;
  private maxTf = 1;
  /** Matched documents by decreasing A_d; their (v, S, A) entries are [entStart[m], entStart[m+1]). */
  private docs = new Int32Array(0);
  private docAbs = new Float64Array(0);
  /** |d| of each matched document, in visit order (read sequentially instead of a random L_d lookup). */
  private docLen = new Float64Array(0);
  /** The largest tf among each matched document's query terms, in visit order: its own bound F(max tf, L_d)·A_d. */
  private docMaxTf = new Int32Array(0);
  /** A_d split: Σ|c| of the terms occurring once in the document (weighed at most F(1, L_d)) and of the others. */
  private docAbsOnce = new Float64Array(0);
  private docAbsMore = new Float64Array(0);
  private entStart = new Int32Array(1);
  private entTf = new Int32Array(0);
  private entS = new Float64Array(0);
  private entA = new Float64Array(0);
  /** The m-th visited document's (slot, tf) pairs are [rawFrom[m], rawTo[m]), for exact re-scoring. */
  private rawFrom = new Int32Array(0);
  private rawTo = new Int32Array(0);
  private rawSlot = new Int32Array(0);
  private rawTf = new Int32Array(0);

  // ---- scratch
  private readonly slotOf: Int32Array;
  private readonly count: Int32Array;
  private readonly posOf: Int32Array;
  private tfBySlot = new Int32Array(0);
  private lo = new Float64Array(0);
  private hi = new Float64Array(0);
  private heap = new Float64Array(0);
  private cand = new Int32Array(0);

  constructor(corpus: Pick<IndexedCorpus, "index">, settings: readonly { k1: number; b: number }[], epsilon: number) {
    // The early stop needs L growing with |d| and F ≤ F(max tf, min L): true for k1 >= 0, 0 <= b <= 1.
    for (const { k1, b } of settings) {
      if (!(Number.isFinite(k1) && k1 >= 0 && Number.isFinite(b) && b >= 0 && b <= 1)) {
        throw new RangeError(`QuerySweep needs k1 >= 0 and 0 <= b <= 1, got k1=${k1} b=${b}`);
      }
    }
    if (!Number.isFinite(epsilon)) throw new RangeError(`epsilon must be finite, got ${epsilon}`);
    const index = corpus.index;
    this.index = index;
    this.N = index.docCount;
    this.V = index.termCount;
    // Same idf and avgdl as Bm25Scorer computes (same function, same summation order).
    this.idf = okapiIdf(index, epsilon);
    let total = 0;
    for (let d = 0; d < this.N; d++) total += index.docLen[d];
    const avgdl = total / this.N;
    this.avgdl = avgdl;
    this.k1 = Float64Array.from(settings, (s) => s.k1);
    this.b = Float64Array.from(settings, (s) => s.b);
    // L grows with |d| (k1, b >= 0; every rounding step is monotone), so the shortest document has the smallest L.
    const minLen = index.docLen.reduce((m, v) => Math.min(m, v), Infinity);
    this.minLenNorm = Float64Array.from(settings, ({ k1, b }) => lengthNorm(k1, b, minLen, avgdl));
    this.slotOf = new Int32Array(this.V).fill(-1);
    this.count = new Int32Array(this.N);
    this.posOf = new Int32Array(this.N);
  }

  /** Precomputes the setting-independent part for a query given as term ids. */
  setQuery(termIds: ArrayLike<number>): void {
    const { V, N, idf, slotOf, count, posOf, index } = this;
    const n = termIds.length;
    const tokens = Int32Array.from(termIds);
    const slotTerm: number[] = [];
    const qtf: number[] = [];
    for (let i = 0; i < n; i++) {
      const t = tokens[i];
      if (!(t >= 0 && t < V)) continue;
      if (slotOf[t] < 0) {
        slotOf[t] = slotTerm.length;
        slotTerm.push(t);
        qtf.push(0);
      }
      qtf[slotOf[t]]++;
    }
    for (const t of slotTerm) slotOf[t] = -1;
    this.tfBySlot = new Int32Array(slotTerm.length);
    this.slotTerm = Int32Array.from(slotTerm);
    this.slotQtf = Int32Array.from(qtf);
    // |approx − exact| ≤ 2·γ(n+2)·Σ|c| with γ(m) ≈ m·2⁻⁵³; 2⁻⁵⁰ a token is ~4× safer (looser only costs re-scoring).
    this.tolerance = (n + 16) * 2 ** -50;

    // Counting sort of the query terms' postings by document (corpus order first).
    const { termStart, postingDoc, postingTf } = index;
    let total = 0;
    for (const t of slotTerm) {
      for (let p = termStart[t]; p < termStart[t + 1]; p++) count[postingDoc[p]]++;
      total += termStart[t + 1] - termStart[t];
    }
    let M = 0;
    for (let d = 0; d < N; d++) if (count[d] > 0) M++;
    const byDoc = new Int32Array(M);
    const start = new Int32Array(M + 1);
    M = 0;
    for (let d = 0; d < N; d++) {
      if (count[d] === 0) continue;
      byDoc[M] = d;
      posOf[d] = start[M];
      start[M + 1] = start[M] + count[d];
      count[d] = 0;
      M++;
    }
    const rawSlot = new Int32Array(total);
    const rawTf = new Int32Array(total);
    let maxTf = 1;
    for (let s = 0; s < slotTerm.length; s++) {
      const t = slotTerm[s];
      for (let p = termStart[t]; p < termStart[t + 1]; p++) {
        const at = posOf[postingDoc[p]]++;
        rawSlot[at] = s;
        rawTf[at] = postingTf[p];
        if (postingTf[p] > maxTf) maxTf = postingTf[p];
      }
    }
    this.maxTf = maxTf;
    const coef = Float64Array.from(slotTerm, (t, s) => qtf[s] * idf[t]);
    this.nonNegative = coef.every((c) => c >= 0);

    // Visit order: decreasing Σ|c| (the bound the early stop uses), ties by corpus position.
    const absSum = new Float64Array(M);
    for (let m = 0; m < M; m++) {
      let a = 0;
      for (let i = start[m]; i < start[m + 1]; i++) a += Math.abs(coef[rawSlot[i]]);
      absSum[m] = a;
    }
    const order = new Int32Array(M);
    for (let m = 0; m < M; m++) order[m] = m;
    order.sort((x, y) => absSum[y] - absSum[x] || x - y);

    // Per document in visit order: raw (slot, tf) pairs, and entries merging equal small tf values (large stay apart).
    const docs = new Int32Array(M);
    const docAbs = new Float64Array(M);
    const docLenQ = new Float64Array(M);
    const docMaxTf = new Int32Array(M);
    const docAbsOnce = new Float64Array(M);
    const docAbsMore = new Float64Array(M);
    const rFrom = new Int32Array(M);
    const entTf = new Int32Array(total);
    const entS = new Float64Array(total);
    const entA = new Float64Array(total);
    const entStart = new Int32Array(M + 1);
    const SMALL = 64;
    const bucket = new Int32Array(SMALL).fill(-1);
    let E = 0;
    for (let m = 0; m < M; m++) {
      const src = order[m];
      docs[m] = byDoc[src];
      docAbs[m] = absSum[src];
      docLenQ[m] = index.docLen[byDoc[src]];
      rFrom[m] = start[src];
      entStart[m] = E;
      const first = E;
      for (let i = start[src]; i < start[src + 1]; i++) {
        const tf = rawTf[i];
        const c = coef[rawSlot[i]];
        if (tf < SMALL && bucket[tf] >= 0) {
          entS[bucket[tf]] += c;
          entA[bucket[tf]] += Math.abs(c);
          continue;
        }
        if (tf < SMALL) bucket[tf] = E;
        entTf[E] = tf;
        entS[E] = c;
        entA[E] = Math.abs(c);
        E++;
      }
      let most = 1;
      for (let j = first; j < E; j++) {
        if (entTf[j] < SMALL) bucket[entTf[j]] = -1;
        if (entTf[j] > most) most = entTf[j];
        if (entTf[j] === 1) docAbsOnce[m] += entA[j];
        else docAbsMore[m] += entA[j];
      }
      docMaxTf[m] = most;
    }
    entStart[M] = E;
    this.docs = docs;
    this.docAbs = docAbs;
    this.docLen = docLenQ;
    this.docMaxTf = docMaxTf;
    this.docAbsOnce = docAbsOnce;
    this.docAbsMore = docAbsMore;
    this.rawFrom = rFrom;
    const rawTo = new Int32Array(M);
    for (let m = 0; m < M; m++) rawTo[m] = start[order[m] + 1];
    this.rawTo = rawTo;
    this.rawSlot = rawSlot;
    this.rawTf = rawTf;
    this.entStart = entStart;
    this.entTf = entTf.slice(0, E);
    this.entS = entS.slice(0, E);
    this.entA = entA.slice(0, E);
    if (this.lo.length < M) {
      this.lo = new Float64Array(M);
      this.hi = new Float64Array(M);
    }
  }

  /** Positive-only top-k positions for setting s, in the direct scorer's order (exact score, ties by position). */
  rank(s: number, k: number): Int32Array {
    if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
    if (!(Number.isInteger(s) && s >= 0 && s < this.k1.length)) throw new RangeError(`no setting ${s}`);
    const { docs, docAbs, docAbsOnce, docAbsMore, docLen, docMaxTf, entStart, entTf, entS, entA, lo, hi, nonNegative, avgdl } = this;
    const k1 = this.k1[s];
    const b = this.b[s];
    const tol = this.tolerance;
    const M = docs.length;
    if (this.heap.length < k) this.heap = new Float64Array(k);
    const heap = this.heap;
    let size = 0;
    // F(v, L) ≤ F(maxTf, min L), so a document scores at most fMax·A_d (the margin covers rounding on either side).
    const fMax = tfSaturation(this.maxTf, k1, this.minLenNorm[s]) * (1 + 4 * tol);
    // [lo, hi] certainly holds each exact score; the k-th largest lo among possibly-positive docs bounds the top k.
    let visited = 0;
    for (let m = 0; m < M; m++) {
      if (size === k && fMax * docAbs[m] < heap[0]) break;
      visited++;
      // L_d recomputed from a sequential |d|: faster than 192 per-setting tables, which do not share the cache.
      const Ld = lengthNorm(k1, b, docLen[m], avgdl);
      // Its own bound, tighter than fMax·A_d (F grows with tf): below the k-th lower bound, k documents certainly
      // score above it.
      if (size === k && (tfSaturation(1, k1, Ld) * docAbsOnce[m] + tfSaturation(docMaxTf[m], k1, Ld) * docAbsMore[m]) * (1 + 4 * tol) < heap[0]) {
        hi[m] = -Infinity;
        continue;
      }
      let a = 0;
      let e: number;
      if (nonNegative) {
        // The same F the direct scorer computes (same function); only the grouping differs.
        for (let j = entStart[m]; j < entStart[m + 1]; j++) a += entS[j] * tfSaturation(entTf[j], k1, Ld);
        e = tol * a;
      } else {
        let abs = 0;
        for (let j = entStart[m]; j < entStart[m + 1]; j++) {
          const F = tfSaturation(entTf[j], k1, Ld);
          a += entS[j] * F;
          abs += entA[j] * F;
        }
        e = tol * abs;
      }
      const l = a - e;
      const h = a + e;
      lo[m] = l;
      hi[m] = h;
      if (!(h > 0)) continue;
      if (size < k) heapPush(heap, size++, l);
      else if (l > heap[0]) heapReplaceRoot(heap, size, l);
    }
    const threshold = size === k ? heap[0] : -Infinity;
    if (this.cand.length < visited) this.cand = new Int32Array(Math.max(visited, 2 * this.cand.length));
    let nc = 0;
    for (let m = 0; m < visited; m++) if (hi[m] > 0 && hi[m] >= threshold) this.cand[nc++] = m;
    const cand = this.cand;
    sortByKeyDescending(cand, nc, hi);

    const out = new Int32Array(Math.min(k, nc));
    let n = 0;
    let g = 0;
    while (g < nc && n < k) {
      // A group: candidates whose intervals chain-overlap; different groups are strictly ordered.
      let minLo = lo[cand[g]];
      let end = g + 1;
      while (end < nc && hi[cand[end]] >= minLo) {
        minLo = Math.min(minLo, lo[cand[end]]);
        end++;
      }
      if (end === g + 1 && lo[cand[g]] > 0) {
        out[n++] = docs[cand[g]];
      } else {
        const group: { d: number; score: number }[] = [];
        for (let i = g; i < end; i++) {
          const score = this.exactScore(cand[i], s);
          if (score > 0) group.push({ d: docs[cand[i]], score });
        }
        group.sort((x, y) => y.score - x.score || x.d - y.d);
        for (const { d } of group) {
          if (n === k) break;
          out[n++] = d;
        }
      }
      g = end;
    }
    return n === out.length ? out : out.slice(0, n);
  }

  /** Bm25Scorer's score of the m-th document, same operations: distinct terms, first-occurrence order, weight × qtf. */
  private exactScore(m: number, s: number): number {
    const { slotTerm, slotQtf, tfBySlot, rawFrom, rawTo, rawSlot, rawTf, idf } = this;
    const k1 = this.k1[s];
    const L = lengthNorm(k1, this.b[s], this.docLen[m], this.avgdl);
    for (let i = rawFrom[m]; i < rawTo[m]; i++) tfBySlot[rawSlot[i]] = rawTf[i];
    let score = 0;
    for (let slot = 0; slot < slotTerm.length; slot++) {
      const tf = tfBySlot[slot];
      if (tf === 0) continue;
      const times = slotQtf[slot];
      const w = bm25Weight(idf[slotTerm[slot]], tf, k1, L);
      score += times === 1 ? w : times * w;
    }
    for (let i = rawFrom[m]; i < rawTo[m]; i++) tfBySlot[rawSlot[i]] = 0;
    return score;
  }
}

/**
 * The sweep's reference, the plainest route to what `QuerySweep.rank` and `searchIds(…, { positiveOnly: true })` give:
 * each document's score summed over the query's distinct terms (first occurrence first, `bm25Weight` × count, as the
 * scorer adds), then a stable sort. The whole corpus per call: for the tests to compare the fast paths with.
 *
 * @example
 * referenceRank(corpus.index, corpus.analyze("καταγγελία σύμβασης"), { k1: 1.2, b: 0.6, epsilon: 0.25 }, 100);
 */
export function referenceRank(index: Bm25Index, termIds: ArrayLike<number>, params: Bm25Params, k: number): Int32Array {
  const { k1, b, epsilon } = params;
  const idf = okapiIdf(index, epsilon);
  let total = 0;
  for (let d = 0; d < index.docCount; d++) total += index.docLen[d];
  const avgdl = total / index.docCount;
  const counts = new Map<number, number>();
  for (const t of Array.from(termIds)) if (t >= 0 && t < index.termCount) counts.set(t, (counts.get(t) ?? 0) + 1);
  const scores = new Float64Array(index.docCount);
  for (const [t, c] of counts) {
    for (let p = index.termStart[t]; p < index.termStart[t + 1]; p++) {
      const d = index.postingDoc[p];
      scores[d] += c * bm25Weight(idf[t], index.postingTf[p], k1, lengthNorm(k1, b, index.docLen[d], avgdl));
    }
  }
  const ranked = [...scores.keys()].filter((d) => scores[d] > 0).sort((x, y) => scores[y] - scores[x] || x - y);
  return Int32Array.from(ranked.slice(0, k));
}

/**
 * Sorts items[0, n) by key descending, ties by item ascending (items come ascending). Insertion sort, as the candidates
 * arrive nearly in order (visited by decreasing bound): a typed array's sort calling a comparator was a sixth of the
 * sweep; a long list (a large k) takes that sort.
 */
function sortByKeyDescending(items: Int32Array, n: number, key: Float64Array): void {
  if (n > 512) {
    items.subarray(0, n).sort((x, y) => key[y] - key[x] || x - y);
    return;
  }
  for (let i = 1; i < n; i++) {
    const x = items[i];
    const kx = key[x];
    let j = i - 1;
    while (j >= 0 && key[items[j]] < kx) {
      items[j + 1] = items[j];
      j--;
    }
    items[j + 1] = x;
  }
}

function heapPush(heap: Float64Array, size: number, v: number): void {
  let i = size;
  heap[i] = v;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (heap[parent] <= heap[i]) break;
    const t = heap[parent];
    heap[parent] = heap[i];
    heap[i] = t;
    i = parent;
  }
}

function heapReplaceRoot(heap: Float64Array, size: number, v: number): void {
  heap[0] = v;
  let i = 0;
  for (;;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let m = i;
    if (l < size && heap[l] < heap[m]) m = l;
    if (r < size && heap[r] < heap[m]) m = r;
    if (m === i) return;
    const t = heap[m];
    heap[m] = heap[i];
    heap[i] = t;
    i = m;
  }
}
