/** Top-k result: document indices (corpus positions) and their scores, best first. */
export type TopK = { docs: Int32Array; scores: Float64Array };

/** Bounded heap rooted at the worst kept entry: O(N log k), and one tie rule (corpus order) for every retriever. */
export class TopKHeap {
  private readonly doc: Int32Array;
  private readonly score: Float64Array;
  private size = 0;
  constructor(readonly capacity: number) {
    this.doc = new Int32Array(capacity);
    this.score = new Float64Array(capacity);
  }
  get count(): number {
    return this.size;
  }

  /** The score a new entry must beat once full (ties lose to earlier positions); -Infinity while there is room. */
  get floor(): number {
    return this.size < this.capacity ? -Infinity : this.score[0];
  }

  private worse(sa: number, da: number, sb: number, db: number): boolean {
    return sa < sb || (sa === sb && da > db);
  }
  offer(d: number, s: number): void {
    if (this.capacity === 0) return;
    if (this.size < this.capacity) {
      let i = this.size++;
      this.doc[i] = d;
      this.score[i] = s;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!this.worse(this.score[i], this.doc[i], this.score[parent], this.doc[parent])) break;
        this.swap(i, parent);
        i = parent;
      }
      return;
    }
    if (!this.worse(this.score[0], this.doc[0], s, d)) return;
    this.doc[0] = d;
    this.score[0] = s;
    this.siftDown(0, this.size);
  }
  private swap(i: number, j: number): void {
    const d = this.doc[i];
    this.doc[i] = this.doc[j];
    this.doc[j] = d;
    const s = this.score[i];
    this.score[i] = this.score[j];
    this.score[j] = s;
  }
  sorted(): TopK {
    // Heap sort in place (the worst root goes to the end), so the arrays end up best first without allocation.
    const n = this.size;
    for (let end = n - 1; end > 0; end--) {
      this.swap(0, end);
      this.siftDown(0, end);
    }
    // One allocation for both arrays: a search of thousands of queries pays per query for allocations, not copies.
    const buffer = new ArrayBuffer(n * 12);
    const scores = new Float64Array(buffer, 0, n);
    const docs = new Int32Array(buffer, n * 8, n);
    scores.set(this.score.subarray(0, n));
    docs.set(this.doc.subarray(0, n));
    this.size = 0;
    return { docs, scores };
  }

  private siftDown(i: number, size: number): void {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < size && this.worse(this.score[l], this.doc[l], this.score[m], this.doc[m])) m = l;
      if (r < size && this.worse(this.score[r], this.doc[r], this.score[m], this.doc[m])) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }
}

/** The k best of `scores`, best first, ties in index order (as a stable descending sort); `positiveOnly` drops <= 0. */
export function selectTop(scores: Float64Array, k: number, positiveOnly: boolean): TopK {
  const n = scores.length;
  const heap = new TopKHeap(Math.min(k, n));
  let d = 0;
  for (; d < n && heap.count < heap.capacity; d++) {
    if (positiveOnly && !(scores[d] > 0)) continue;
    heap.offer(d, scores[d]);
  }
  // Full: a later index with an equal score is worse, so only a strictly higher score enters.
  let floor = heap.floor;
  for (; d < n; d++) {
    if (scores[d] > floor) {
      heap.offer(d, scores[d]);
      floor = heap.floor;
    }
  }
  return heap.sorted();
}

/** Reusable buffers of `selectTopClearing` for one corpus size (a scorer keeps one: no big allocation per query). */
export type SelectScratch = { hist: Int32Array; doc: Int32Array; score: Float64Array; heap?: TopKHeap };

const BUCKETS = 1024;

export function newSelectScratch(n: number): SelectScratch {
  return { hist: new Int32Array(BUCKETS), doc: new Int32Array(n), score: new Float64Array(n) };
}

/**
 * `selectTop` for scores known to lie in [0, bound], leaving `scores` all zero: the same result in two passes. A
 * histogram over [0, bound] finds the lowest bucket b > 0 with at least k scores at or above it; bucketing is monotone,
 * so the k best and every tie of the k-th lie in buckets >= b, and only those (little more than k) enter the heap.
 * Otherwise (bound not positive and finite, or fewer than k scores above bucket 0) it is `selectTop`, then a clear.
 */
export function selectTopClearing(scores: Float64Array, k: number, positiveOnly: boolean, bound: number, scratch: SelectScratch): TopK {
  const n = scores.length;
  const cap = Math.min(k, n);
  if (cap > 0 && bound > 0 && bound < Infinity) {
    const { hist, doc, score } = scratch;
    const scale = (BUCKETS - 1) / bound;
    let d = 0;
    // Four at a time: the loads overlap (the counts are the same in any order).
    for (; d + 3 < n; d += 4) {
      const b0 = (scores[d] * scale) | 0;
      const b1 = (scores[d + 1] * scale) | 0;
      const b2 = (scores[d + 2] * scale) | 0;
      const b3 = (scores[d + 3] * scale) | 0;
      hist[b0]++;
      hist[b1]++;
      hist[b2]++;
      hist[b3]++;
    }
    for (; d < n; d++) hist[(scores[d] * scale) | 0]++;
    let b = BUCKETS - 1;
    let above = hist[b];
    while (b > 0 && above < cap) above += hist[--b];
    hist.fill(0);
    if (b > 0) {
      let m = 0;
      // Buckets compared as the histogram computed them; four at a time, as there.
      for (d = 0; d + 3 < n; d += 4) {
        const s0 = scores[d];
        const s1 = scores[d + 1];
        const s2 = scores[d + 2];
        const s3 = scores[d + 3];
        scores[d] = scores[d + 1] = scores[d + 2] = scores[d + 3] = 0;
        if (((s0 * scale) | 0) >= b) (doc[m] = d), (score[m++] = s0);
        if (((s1 * scale) | 0) >= b) (doc[m] = d + 1), (score[m++] = s1);
        if (((s2 * scale) | 0) >= b) (doc[m] = d + 2), (score[m++] = s2);
        if (((s3 * scale) | 0) >= b) (doc[m] = d + 3), (score[m++] = s3);
      }
      for (; d < n; d++) {
        const s = scores[d];
        if (((s * scale) | 0) >= b) (doc[m] = d), (score[m++] = s);
        scores[d] = 0;
      }
      // A heap left holding entries (a selection that threw half-way) is not reused.
      if (scratch.heap?.capacity !== cap || scratch.heap.count !== 0) scratch.heap = new TopKHeap(cap);
      const heap = scratch.heap;
      for (let i = 0; i < m; i++) heap.offer(doc[i], score[i]);
      return heap.sorted();
    }
  }
  const top = selectTop(scores, k, positiveOnly);
  scores.fill(0);
  return top;
}
