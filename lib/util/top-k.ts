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
  constructor(private readonly capacity: number) {
    this.doc = new Int32Array(capacity);
    this.score = new Float64Array(capacity);
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
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < this.size && this.worse(this.score[l], this.doc[l], this.score[m], this.doc[m])) m = l;
      if (r < this.size && this.worse(this.score[r], this.doc[r], this.score[m], this.doc[m])) m = r;
      if (m === i) break;
      this.swap(i, m);
      i = m;
    }
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
    const order = Array.from({ length: this.size }, (_, i) => i);
    order.sort((a, b) => this.score[b] - this.score[a] || this.doc[a] - this.doc[b]);
    return {
      docs: Int32Array.from(order, (i) => this.doc[i]),
      scores: Float64Array.from(order, (i) => this.score[i]),
    };
  }
}
