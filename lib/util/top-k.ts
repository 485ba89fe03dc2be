/** Top-k result: document indices (corpus positions) and their scores, best first. */
export interface TopK {
  docs: Int32Array;
  scores: Float64Array;
}

/**
 * Bounded heap whose root is the worst kept entry: lower score, or equal score and later
 * corpus position. Keeps the selection O(N log k) instead of sorting all N scores, and gives
 * every retriever the same tie rule (corpus order).
 *
 * @example
 * const heap = new TopKHeap(2);
 * [0.1, 0.9, 0.9, 0.5].forEach((s, d) => heap.offer(d, s));
 * heap.sorted().docs; // Int32Array [1, 2]
 */
export class TopKHeap {
  private readonly doc: Int32Array;
  private readonly score: Float64Array;
  private size = 0;
  constructor(readonly capacity: number) {
    this.doc = new Int32Array(capacity);
    this.score = new Float64Array(capacity);
  }
  /** Entries kept so far. */
  get count(): number {
    return this.size;
  }

  /**
   * The score a new entry must beat once the heap is full: the worst kept score (a later
   * position with an equal score never enters, since ties go to corpus order). -Infinity
   * while the heap has room.
   */
  get floor(): number {
    return this.size < this.capacity ? -Infinity : this.score[0];
  }

  /** a is worse than b */
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
    // Heap sort in place: the root (worst) goes to the end of the kept part, repeatedly, so
    // the arrays end up best first; no closure, no allocation but the two results.
    const n = this.size;
    for (let end = n - 1; end > 0; end--) {
      this.swap(0, end);
      this.siftDown(0, end);
    }
    // One allocation for both arrays: allocating buffers, more than filling them, is what a
    // search of thousands of queries pays per query.
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

/** Reusable buffers of `selectTop` for one corpus size (a scorer keeps one). */
export interface SelectScratch {
  hist: Int32Array;
  candidates: Int32Array;
  /** The bounded heap of the last k asked for, reused (it empties itself in `sorted`). */
  heap?: TopKHeap;
  /** The candidates' scores, read as they are cleared (`selectTopClearing`). */
  candidateScores: Float64Array;
}

const BUCKETS = 1024;

/**
 * Buffers for `selectTop` over `n` scores.
 *
 * @example
 * const scratch = newSelectScratch(corpus.index.docCount);
 */
export function newSelectScratch(n: number): SelectScratch {
  return { hist: new Int32Array(BUCKETS), candidates: new Int32Array(n), candidateScores: new Float64Array(n) };
}

/**
 * The k best of `scores` (indices and values, best first, ties in index order), as offering
 * every index to a `TopKHeap` in order would give, but without doing so. A histogram of the
 * scores over [0, max] finds a bucket b with at least k scores at or above it; since bucketing
 * is monotone, every index among the true k best (and every tie of the k-th) falls in buckets
 * >= b, so only those candidates — typically little more than k of several thousand — go
 * through the heap. With negative or non-finite scores, or fewer than k positive ones (the
 * list is then filled with zeros in index order), every index goes through the heap.
 * `positiveOnly` leaves out indices scoring <= 0.
 *
 * @example
 * selectTop(Float64Array.of(0.1, 0.9, 0.9, 0.5), 2, false, newSelectScratch(4)).docs; // Int32Array [1, 2]
 */
export function selectTop(scores: Float64Array, k: number, positiveOnly: boolean, scratch: SelectScratch): TopK {
  const n = scores.length;
  const heap = heapOf(scratch, Math.min(k, n));
  let max = -Infinity;
  let min = Infinity;
  for (let d = 0; d < n; d++) {
    const s = scores[d];
    if (s > max) max = s;
    if (s < min) min = s;
  }
  if (heap.capacity > 0 && min >= 0 && max > 0 && max < Infinity) {
    const hist = scratch.hist;
    const scale = (BUCKETS - 1) / max;
    for (let d = 0; d < n; d++) hist[(scores[d] * scale) | 0]++;
    let b = BUCKETS - 1;
    let above = hist[b];
    while (b > 0 && above < heap.capacity) above += hist[--b];
    hist.fill(0);
    // Bucket 0 holds the zeros: then the zero-filling order matters and every index competes.
    if (b > 0) {
      const cand = scratch.candidates;
      let m = 0;
      for (let d = 0; d < n; d++) if (((scores[d] * scale) | 0) >= b) cand[m++] = d;
      for (let i = 0; i < m; i++) heap.offer(cand[i], scores[cand[i]]);
      return heap.sorted();
    }
  }
  let d = 0;
  for (; d < n && heap.count < heap.capacity; d++) {
    const s = scores[d];
    if (positiveOnly && !(s > 0)) continue;
    heap.offer(d, s);
  }
  // Full: a later index with an equal score is worse, so only a strictly higher score enters
  // (and, positive-only, the floor is then above 0).
  let floor = heap.floor;
  for (; d < n; d++) {
    const s = scores[d];
    if (s > floor) {
      heap.offer(d, s);
      floor = heap.floor;
    }
  }
  return heap.sorted();
}

/**
 * `selectTop` for scores known to lie in [0, bound], leaving `scores` all zero for the next
 * query: the same result in two passes instead of four. The histogram is scaled by `bound` (the
 * sum of the query terms' largest weights, say) rather than by the maximum, which would need a
 * pass of its own, and the pass that picks the candidates also clears the array. Bucketing by
 * any bound at or above the maximum is still monotone, so the candidates still hold every one of
 * the k best. Falls back to `selectTop` (then clears) when the bound is not a positive finite
 * number or too few scores lie above bucket 0.
 *
 * @example
 * const s = Float64Array.of(0.1, 0.9, 0.9, 0.5);
 * selectTopClearing(s, 2, false, newSelectScratch(4), 1.0).docs; // Int32Array [1, 2]; s is now all 0
 */
export function selectTopClearing(scores: Float64Array, k: number, positiveOnly: boolean, scratch: SelectScratch, bound: number): TopK {
  const n = scores.length;
  const cap = Math.min(k, n);
  if (cap > 0 && bound > 0 && bound < Infinity) {
    const hist = scratch.hist;
    const scale = (BUCKETS - 1) / bound;
    let d = 0;
    // Four at a time: the loads overlap (the counts are the same whatever the order).
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
      const cand = scratch.candidates;
      const candScore = scratch.candidateScores;
      let m = 0;
      // Buckets compared as the histogram computed them; four scores at a time, as there.
      let d = 0;
      for (; d + 3 < n; d += 4) {
        const s0 = scores[d];
        const s1 = scores[d + 1];
        const s2 = scores[d + 2];
        const s3 = scores[d + 3];
        scores[d] = 0;
        scores[d + 1] = 0;
        scores[d + 2] = 0;
        scores[d + 3] = 0;
        if (((s0 * scale) | 0) >= b) {
          cand[m] = d;
          candScore[m++] = s0;
        }
        if (((s1 * scale) | 0) >= b) {
          cand[m] = d + 1;
          candScore[m++] = s1;
        }
        if (((s2 * scale) | 0) >= b) {
          cand[m] = d + 2;
          candScore[m++] = s2;
        }
        if (((s3 * scale) | 0) >= b) {
          cand[m] = d + 3;
          candScore[m++] = s3;
        }
      }
      for (; d < n; d++) {
        const s = scores[d];
        if (((s * scale) | 0) >= b) {
          cand[m] = d;
          candScore[m++] = s;
        }
        scores[d] = 0;
      }
      const heap = heapOf(scratch, cap);
      for (let i = 0; i < m; i++) heap.offer(cand[i], candScore[i]);
      return heap.sorted();
    }
  }
  const top = selectTop(scores, k, positiveOnly, scratch);
  scores.fill(0);
  return top;
}

/**
 * Sorts `items[0..n)` in place by `key[item]` descending, ties by item ascending: the ranking
 * order used everywhere in this project. Hand-written (quicksort, insertion sort below 16)
 * because a typed array's `sort` with a comparator calls back into JavaScript per comparison,
 * which was a quarter of the tuning sweep's ranking time.
 *
 * @example
 * const items = Int32Array.of(0, 1, 2);
 * sortByKeyDescending(items, 3, Float64Array.of(0.5, 2, 0.5)); // items = [1, 0, 2]
 */
export function sortByKeyDescending(items: Int32Array, n: number, key: Float64Array): void {
  sortRange(items, 0, n - 1, key);
}

function sortRange(a: Int32Array, lo: number, hi: number, key: Float64Array): void {
  while (hi - lo >= 16) {
    // Median of three as the pivot, then Hoare partition; recurse on the smaller side.
    const mid = (lo + hi) >>> 1;
    if (before(a[mid], a[lo], key)) swap(a, mid, lo);
    if (before(a[hi], a[lo], key)) swap(a, hi, lo);
    if (before(a[hi], a[mid], key)) swap(a, hi, mid);
    const pivot = a[mid];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (before(a[i], pivot, key)) i++;
      while (before(pivot, a[j], key)) j--;
      if (i <= j) swap(a, i++, j--);
    }
    if (j - lo < hi - i) {
      sortRange(a, lo, j, key);
      lo = i;
    } else {
      sortRange(a, i, hi, key);
      hi = j;
    }
  }
  for (let i = lo + 1; i <= hi; i++) {
    const x = a[i];
    let j = i - 1;
    while (j >= lo && before(x, a[j], key)) {
      a[j + 1] = a[j];
      j--;
    }
    a[j + 1] = x;
  }
}

function before(x: number, y: number, key: Float64Array): boolean {
  const kx = key[x];
  const ky = key[y];
  return kx > ky || (kx === ky && x < y);
}

function swap(a: Int32Array, i: number, j: number): void {
  const t = a[i];
  a[i] = a[j];
  a[j] = t;
}

/** The scratch's heap for k entries: one per scorer, not two typed arrays more per query. */
function heapOf(scratch: SelectScratch, k: number): TopKHeap {
  // A heap left holding entries (a selection that threw half-way) is not reused.
  if (scratch.heap?.capacity !== k || scratch.heap.count !== 0) scratch.heap = new TopKHeap(k);
  return scratch.heap;
}
