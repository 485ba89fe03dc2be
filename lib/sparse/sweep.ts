/** Engine of the paper's BM25 sweep (DESIGN.md §6): its 16 × 12 (k1, b) grid and exact, fast top-100s per setting. */
import type { IndexedCorpus } from "./bm25-retriever";
import * as bm25 from "./bm25";

// Bound once: a CommonJS build (tsx, tests, benches) reads a live import binding through a getter per call (2× slower).
const { bm25Weight, lengthNorm, okapiIdf, tfSaturation } = bm25;

/** Integers divided once, so each value equals its literal (0.6, not 0.2 + 0.2 + 0.2). */
function gridFromHundredths(start: number, stop: number, step: number, extra: number): number[] {
  const set = new Set<number>([extra]);
  for (let v = start; v <= stop; v += step) set.add(v);
  return [...set].sort((x, y) => x - y).map((v) => v / 100);
}

/** The paper's k1 grid: 0.2, 0.4, …, 3.0 plus rank_bm25's default 1.5 (16 values, ascending). */
export const SWEEP_K1: readonly number[] = Object.freeze(gridFromHundredths(20, 300, 20, 150));

/** The paper's b grid: 0.0, 0.1, …, 1.0 plus rank_bm25's default 0.75 (12 values, ascending). */
export const SWEEP_B: readonly number[] = Object.freeze(gridFromHundredths(0, 100, 10, 75));

/** Length classes of documents, each with its own smallest L_d for the early stop. */
const LENGTH_CLASSES = 16;
/** Weight of A⁺ in the visit key A¹ + γ·A⁺: F(v, L)/F(1, L) ranges over [1, 1 + L], about 2 at common settings. */
const GAMMA = 2;
const INV_GAMMA = 1 / GAMMA;
/** Which 32-bit half of a float64 holds its low mantissa bits on this machine. */
const LOW = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 0 : 1;

/**
 * Exact positive-only top-k BM25 rankings of one query under many (k1, b) settings. The setting enters only through
 * F(tf, L) = tf·(k1+1) / (tf + L), L_d = k1·(1 − b + b·|d|/avgdl), and a document has few distinct tf values, so
 *   score(d) ≈ Σ over distinct tf values v of d: F(v, L_d) · S_d(v),  S_d(v) = Σ_{t: tf(t,d) = v} qtf(t) · idf(t).
 * With A¹_d = Σ|S_d(1)|, A⁺_d the rest and v̄_d their mean tf weighted by |S_d(v)|, a document scores at most
 * F(1, L_d)·A¹_d + F(v̄_d, L_d)·A⁺_d (F is concave in tf: Jensen's inequality). Documents
 * are visited by length class (L_d at least the class's smallest) and within it by decreasing A¹_d + γ·A⁺_d, so a class
 * stops once the bound of what is left in it falls below the k-th best lower bound; the last ranking's top k, scored
 * first, sets that bound high from the start. Regrouped scores carry a rigorous error bound; documents whose intervals
 * overlap each other or zero are re-scored exactly as the direct scorer does, ties by corpus position.
 */
export class QuerySweep {
  private readonly N: number;
  private readonly V: number;
  private readonly idf: Float64Array;
  private readonly k1: Float64Array;
  private readonly b: Float64Array;
  private readonly avgdl: number;
  private readonly index: IndexedCorpus["index"];
  /** Each document's length class, and each class's smallest |d| / avgdl. */
  private readonly docClass: Uint8Array;
  private readonly classMinRel: Float64Array;

  // The current query per document in visit order: (v, S, A) entries, (slot, tf) pairs for exact re-scoring, |d|, A¹, A⁺, v̄.
  private slotTerm = new Int32Array(0);
  private slotQtf = new Int32Array(0);
  private tolerance = 0;
  private nonNegative = true;
  private readonly classStart = new Int32Array(LENGTH_CLASSES + 1);
  private docs = new Int32Array(0);
  /** At least A¹_d + γ·A⁺_d of this and every later document of its class. */
  private docKey: Float64Array = new Float64Array(0);
  private docLen = new Float64Array(0);
  private docRel = new Float64Array(0);
  private docAbsOnce = new Float64Array(0);
  private docAbsMore = new Float64Array(0);
  private docMeanTf = new Float64Array(0);
  /** The largest v̄_d over the rest of the document's class. */
  private restMeanTf = new Float64Array(0);
  private entFrom = new Int32Array(0);
  private entTo = new Int32Array(0);
  private entTf = new Int32Array(0);
  private entS = new Float64Array(0);
  private entA = new Float64Array(0);
  private rawFrom = new Int32Array(0);
  private rawTo = new Int32Array(0);
  private rawSlot = new Int32Array(0);
  private rawTf = new Int32Array(0);

  // `scoredAt`: the stamp of the last `rank` that scored a position (no clearing); `warm`: the last ranking (shared mostly).
  private readonly slotOf: Int32Array;
  private readonly count: Int32Array;
  private readonly posOf: Int32Array;
  private tfBySlot = new Int32Array(0);
  private lo = new Float64Array(0);
  private hi = new Float64Array(0);
  private heap = new Float64Array(0);
  private cand = new Int32Array(0);
  private scoredAt = new Int32Array(0);
  private stamp = 0;
  private warm = new Int32Array(0);
  private warmCount = 0;

  constructor(corpus: Pick<IndexedCorpus, "index">, settings: readonly { k1: number; b: number }[], epsilon: number) {
    // The bounds need L growing with |d| and F growing with tf: true for k1 >= 0, 0 <= b <= 1.
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
    // Classes of equal size by length; L grows with |d| (each rounding is monotone): the shortest gives the smallest L.
    const sorted = Float64Array.from(index.docLen).sort();
    const edges = Float64Array.from({ length: LENGTH_CLASSES }, (_, c) => sorted[Math.floor((c * this.N) / LENGTH_CLASSES)]);
    this.classMinRel = edges.map((len) => len / avgdl);
    this.docClass = Uint8Array.from(index.docLen, (len) => {
      let c = LENGTH_CLASSES - 1;
      while (edges[c] > len) c--;
      return c;
    });
    this.slotOf = new Int32Array(this.V).fill(-1);
    this.count = new Int32Array(this.N);
    this.posOf = new Int32Array(this.N);
  }

  /** Precomputes the setting-independent part of a query. */
  setQuery(termIds: ArrayLike<number>): void {
    const { V, N, idf, slotOf, count, posOf, index, docClass } = this;
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
    // Buffers kept from query to query, grown as needed (fresh ones per query were a tenth of the time, in GC).
    if (this.rawSlot.length < total) {
      this.rawSlot = new Int32Array(total);
      this.rawTf = new Int32Array(total);
      this.entTf = new Int32Array(total);
      this.entS = new Float64Array(total);
      this.entA = new Float64Array(total);
    }
    const { rawSlot, rawTf, entTf, entS, entA } = this;
    for (let s = 0; s < slotTerm.length; s++) {
      const t = slotTerm[s];
      for (let p = termStart[t]; p < termStart[t + 1]; p++) {
        const at = posOf[postingDoc[p]]++;
        rawSlot[at] = s;
        rawTf[at] = postingTf[p];
      }
    }
    const coef = Float64Array.from(slotTerm, (t, s) => qtf[s] * idf[t]);
    this.nonNegative = coef.every((c) => c >= 0);

    // Per matched document (corpus order): entries merging equal small tf values (large stay apart), A¹, A⁺, max tf.
    const entStart = new Int32Array(M + 1);
    const once = new Float64Array(M);
    const more = new Float64Array(M);
    const meanTf = new Float64Array(M);
    const SMALL = 64;
    const bucket = new Int32Array(SMALL).fill(-1);
    let E = 0;
    for (let m = 0; m < M; m++) {
      entStart[m] = E;
      for (let i = start[m]; i < start[m + 1]; i++) {
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
      let weighted = 0;
      for (let j = entStart[m]; j < E; j++) {
        if (entTf[j] < SMALL) bucket[entTf[j]] = -1;
        if (entTf[j] === 1) once[m] += entA[j];
        else {
          more[m] += entA[j];
          weighted += entA[j] * entTf[j];
        }
      }
      meanTf[m] = more[m] > 0 ? weighted / more[m] : 1;
    }
    entStart[M] = E;

    // Visit order: by length class, then decreasing A¹ + γ·A⁺, ties by corpus position.
    const key = new Float64Array(M);
    const cls = new Uint8Array(M);
    for (let m = 0; m < M; m++) {
      key[m] = once[m] + GAMMA * more[m];
      cls[m] = docClass[byDoc[m]];
    }
    const classStart = this.classStart;
    const { order, bound } = visitOrder(cls, key, classStart);
    const docs = new Int32Array(M);
    const docLen = new Float64Array(M);
    const docRel = new Float64Array(M);
    const docMeanTf = new Float64Array(M);
    const docAbsOnce = new Float64Array(M);
    const docAbsMore = new Float64Array(M);
    const entFrom = new Int32Array(M);
    const entTo = new Int32Array(M);
    const rawFrom = new Int32Array(M);
    const rawTo = new Int32Array(M);
    for (let m = 0; m < M; m++) {
      const src = order[m];
      docs[m] = byDoc[src];
      docLen[m] = index.docLen[byDoc[src]];
      docRel[m] = docLen[m] / this.avgdl;
      docMeanTf[m] = meanTf[src];
      docAbsOnce[m] = once[src];
      docAbsMore[m] = more[src];
      entFrom[m] = entStart[src];
      entTo[m] = entStart[src + 1];
      rawFrom[m] = start[src];
      rawTo[m] = start[src + 1];
    }
    const restMeanTf = new Float64Array(M);
    for (let c = 0; c < LENGTH_CLASSES; c++) {
      for (let m = classStart[c + 1] - 1, most = 1; m >= classStart[c]; m--) restMeanTf[m] = most = Math.max(most, docMeanTf[m]);
    }
    this.docs = docs;
    this.docKey = bound;
    this.docLen = docLen;
    this.docRel = docRel;
    this.docMeanTf = docMeanTf;
    this.docAbsOnce = docAbsOnce;
    this.docAbsMore = docAbsMore;
    this.restMeanTf = restMeanTf;
    this.entFrom = entFrom;
    this.entTo = entTo;
    this.rawFrom = rawFrom;
    this.rawTo = rawTo;
    if (this.lo.length < M) {
      this.lo = new Float64Array(M);
      this.hi = new Float64Array(M);
      this.cand = new Int32Array(M);
      this.scoredAt = new Int32Array(M);
      this.warm = new Int32Array(M);
      this.stamp = 0;
    }
    this.warmCount = 0;
  }

  /** Positive-only top-k positions for setting s, in the direct scorer's order (exact score, ties by position). */
  rank(s: number, k: number): Int32Array {
    if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
    if (!(Number.isInteger(s) && s >= 0 && s < this.k1.length)) throw new RangeError(`no setting ${s}`);
    const { docs, docKey, docAbsOnce, docAbsMore, docRel, docMeanTf, restMeanTf, classStart, classMinRel } = this;
    const { lo, hi, cand, scoredAt, warm } = this;
    const k1 = this.k1[s];
    const b = this.b[s];
    if (this.heap.length < k) this.heap = new Float64Array(k);
    const heap = this.heap;
    let size = 0;
    if (this.stamp === 0x7fffffff) {
      scoredAt.fill(0);
      this.stamp = 0;
    }
    const stamp = ++this.stamp;
    // The bounds' margin covers rounding on either side (the sums in score and the direct scorer's).
    const k1p = (k1 + 1) * (1 + 8 * this.tolerance);
    // [lo, hi] certainly holds each exact score; the k-th largest lo among possibly-positive docs bounds the top k.
    // Candidates: scored documents that may reach the top k (hi > 0 and not below that bound when scored).
    let nc = 0;
    for (let i = 0; i < this.warmCount; i++) {
      const m = warm[i];
      scoredAt[m] = stamp;
      if (!this.score(m, k1, b)) continue;
      cand[nc++] = m;
      // Gathered, then ordered once (Floyd): k pushes sifting up cost more.
      if (size < k) {
        heap[size++] = lo[m];
        if (size === k) heapify(heap, size);
      } else if (lo[m] > heap[0]) heapReplaceRoot(heap, size, lo[m]);
    }
    if (size < k) heapify(heap, size);
    for (let c = 0; c < LENGTH_CLASSES; c++) {
      const Lc = k1 * (1 - b + b * classMinRel[c]);
      for (let m = classStart[c]; m < classStart[c + 1]; m++) {
        if (size === k) {
          // The rest of the class scores at most max(F(1, Lc), F(v, Lc)/γ)·key (stop), this document at most
          // F(1, L)·A¹ + F(v, L)·A⁺ (skip): each compared over one denominator, without dividing.
          let v = restMeanTf[m];
          if (docKey[m] * k1p * Math.max(v + Lc, v * (1 + Lc) * INV_GAMMA) < heap[0] * ((1 + Lc) * (v + Lc))) break;
          const L = k1 * (1 - b + b * docRel[m]);
          v = docMeanTf[m];
          if (k1p * (docAbsOnce[m] * (v + L) + v * docAbsMore[m] * (1 + L)) < heap[0] * ((1 + L) * (v + L))) continue;
        }
        if (scoredAt[m] === stamp || !this.score(m, k1, b) || (size === k && hi[m] < heap[0])) continue;
        cand[nc++] = m;
        if (size < k) heapPush(heap, size++, lo[m]);
        else if (lo[m] > heap[0]) heapReplaceRoot(heap, size, lo[m]);
      }
    }
    const threshold = size === k ? heap[0] : -Infinity;
    let kept = 0;
    for (let i = 0; i < nc; i++) if (hi[cand[i]] >= threshold) cand[kept++] = cand[i];
    nc = kept;
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
        warm[n] = cand[g];
        out[n++] = docs[cand[g]];
      } else {
        const group: { m: number; d: number; score: number }[] = [];
        for (let i = g; i < end; i++) {
          const score = this.exactScore(cand[i], s);
          if (score > 0) group.push({ m: cand[i], d: docs[cand[i]], score });
        }
        group.sort((x, y) => y.score - x.score || x.d - y.d);
        for (const { m, d } of group) {
          if (n === k) break;
          warm[n] = m;
          out[n++] = d;
        }
      }
      g = end;
    }
    this.warmCount = n;
    return n === out.length ? out : out.slice(0, n);
  }

  /** Sets lo[m], hi[m] around the m-th document's score by regrouped entries; true when it may be positive. */
  private score(m: number, k1: number, b: number): boolean {
    const { entTf, entS, entA, tolerance } = this;
    const from = this.entFrom[m];
    const to = this.entTo[m];
    // The same F the direct scorer computes (same functions); only the grouping differs.
    const L = lengthNorm(k1, b, this.docLen[m], this.avgdl);
    let a = 0;
    let e: number;
    if (this.nonNegative) {
      for (let j = from; j < to; j++) a += entS[j] * tfSaturation(entTf[j], k1, L);
      e = tolerance * a;
    } else {
      let abs = 0;
      for (let j = from; j < to; j++) {
        const F = tfSaturation(entTf[j], k1, L);
        a += entS[j] * F;
        abs += entA[j] * F;
      }
      e = tolerance * abs;
    }
    this.lo[m] = a - e;
    this.hi[m] = a + e;
    return a + e > 0;
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
 * Visit order by class, then decreasing key, with a bound on the keys from each position on in its class: a native sort
 * of keys with the document packed in their low bits (still bounding the key); a comparator sort was a tenth of the sweep.
 */
function visitOrder(cls: Uint8Array, key: Float64Array, classStart: Int32Array): { order: Int32Array; bound: Float64Array } {
  const M = key.length;
  classStart.fill(0);
  for (let m = 0; m < M; m++) classStart[cls[m] + 1]++;
  for (let c = 0; c < LENGTH_CLASSES; c++) classStart[c + 1] += classStart[c];
  const next = classStart.slice(0, LENGTH_CLASSES);
  const byClass = new Int32Array(M);
  for (let m = 0; m < M; m++) byClass[next[cls[m]]++] = m;
  const mask = 2 ** (32 - Math.clz32(M)) - 1;
  const packed = new Float64Array(M);
  const words = new Uint32Array(packed.buffer);
  for (let p = 0; p < M; p++) {
    packed[p] = key[byClass[p]];
    // Ties put the earlier document first.
    words[2 * p + LOW] = (words[2 * p + LOW] & ~mask) | (mask - (p - classStart[cls[byClass[p]]]));
  }
  const order = new Int32Array(M);
  const bound = new Float64Array(M);
  const boundWords = new Uint32Array(bound.buffer);
  for (let c = 0; c < LENGTH_CLASSES; c++) {
    const from = classStart[c];
    const to = classStart[c + 1];
    packed.subarray(from, to).sort();
    for (let p = from; p < to; p++) {
      const q = from + to - 1 - p;
      order[p] = byClass[from + mask - ((words[2 * q + LOW] & mask) >>> 0)];
      bound[p] = packed[q];
      boundWords[2 * p + LOW] |= mask;
    }
  }
  return { order, bound };
}

/**
 * By key descending (equal keys share a group of `rank`: order free). Insertion sort, as candidates arrive nearly in order;
 * a comparator sort was a sixth of the sweep, so only a long list (a large k) takes it.
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

/** Orders heap[0, size) as a min-heap (Floyd: sifting down from the last parent). */
function heapify(heap: Float64Array, size: number): void {
  for (let i = (size >> 1) - 1; i >= 0; i--) siftDown(heap, size, i);
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
  siftDown(heap, size, 0);
}

function siftDown(heap: Float64Array, size: number, i: number): void {
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
