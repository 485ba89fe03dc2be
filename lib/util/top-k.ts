/** Top-k result: document indices (corpus positions) and their scores, best first. */
export interface TopK {
  docs: Int32Array;
  scores: Float64Array;
}

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
    // Heap sort in place (the worst root goes to the end), so the arrays end up best first without allocation.
    const n = this.size;
    for (let end = n - 1; end > 0; end--) {
      this.swap(0, end);
      this.siftDown(0, end);
    }
    const docs = this.doc.slice(0, n);
    const scores = this.score.slice(0, n);
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
