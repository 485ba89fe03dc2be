import type { Tokenizer } from "../types";

/** A word-by-word tokenizer (each run of word characters maps alone to one term or none), so words intern once. */
export interface WordTokenizer extends Tokenizer {
  isWordChar(codePoint: number): boolean;
  /** The term for one raw word (a pure function of it), or null to drop it. */
  term(word: string): string | null;
  /** Text rewriting that can change which words appear (e.g. literal "NBSP" → space); identity if absent. */
  prepare?(text: string): string;
}

export function isWordTokenizer(t: Tokenizer): t is WordTokenizer {
  return typeof (t as WordTokenizer).isWordChar === "function" && typeof (t as WordTokenizer).term === "function";
}

const NOT_WORD = 0;
const WORD = 1;
const SURROGATE = 2;
const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

/** Text to term ids, raw words interned by a hash made while scanning; ids in first-appearance order, as rank_bm25. */
export class Analyzer {
  readonly terms: string[] = [];
  readonly termIds = new Map<string, number>();
  private readonly charClass = new Uint8Array(65536);
  /** Open addressing, two ints per slot: [hash, raw-word id], id -1 when empty. */
  private slots: Int32Array;
  private mask: number;
  private slotMask: number;
  /** Characters of every raw word, back to back, so a lookup compares one contiguous run. */
  private pool: Uint16Array = new Uint16Array(1 << 16);
  private poolUsed = 0;
  private rawCount = 0;
  private rawStart: Int32Array = new Int32Array(1024);
  private rawLen: Int32Array = new Int32Array(1024);
  private rawHash: Int32Array = new Int32Array(1024);
  private rawTerm: Int32Array = new Int32Array(1024);

  constructor(readonly tokenizer: WordTokenizer) {
    for (let c = 0; c < 65536; c++) {
      if (c >= 0xd800 && c <= 0xdfff) this.charClass[c] = SURROGATE;
      else this.charClass[c] = tokenizer.isWordChar(c) ? WORD : NOT_WORD;
    }
    const capacity = 1 << 16;
    this.slots = new Int32Array(capacity * 2).fill(-1);
    this.mask = capacity - 1;
    this.slotMask = capacity * 2 - 1;
  }

  /** Term ids of a text, in order (dropped words leave no id). */
  analyze(text: string): Int32Array {
    return this.analyzeMany([text]).ids;
  }

  /** Term ids of many texts back to back (text i: `ids.subarray(offsets[i], offsets[i + 1])`), one allocation. */
  analyzeMany(texts: readonly string[]): { ids: Int32Array; offsets: Int32Array } {
    const prepared = this.tokenizer.prepare ? texts.map(this.tokenizer.prepare) : texts;
    // A text has at most one word per two characters, so this bound needs no growth checks.
    let bound = 0;
    for (const s of prepared) bound += (s.length >> 1) + 1;
    const ids = new Int32Array(bound);
    const offsets = new Int32Array(prepared.length + 1);
    let n = 0;
    for (let i = 0; i < prepared.length; i++) {
      offsets[i] = n;
      n = this.scan(prepared[i], ids, n);
    }
    offsets[prepared.length] = n;
    return { ids: ids.subarray(0, n), offsets };
  }

  /** Terms of a text; the same output as the tokenizer's own `tokenize`. */
  tokenize(text: string): string[] {
    return Array.from(this.analyze(text), (id) => this.terms[id]);
  }

  /** Writes `s`'s term ids into `out` from `n` and returns the new end; needs room for (s.length >> 1) + 1. */
  private scan(s: string, out: Int32Array, n: number): number {
    const cls = this.charClass;
    const len = s.length;
    let start = -1;
    let h = 0;
    for (let i = 0; i <= len; i++) {
      let c = i < len ? s.charCodeAt(i) : 32;
      let k = cls[c];
      if (k === SURROGATE) {
        const cp = s.codePointAt(i)!;
        k = this.tokenizer.isWordChar(cp) ? WORD : NOT_WORD;
        if (k === WORD && cp > 0xffff) {
          // Hash both halves of the pair; the word continues after it.
          if (start < 0) {
            start = i;
            h = FNV_OFFSET;
          }
          h = Math.imul(h ^ c, FNV_PRIME);
          i++;
          c = s.charCodeAt(i);
        }
      }
      if (k === WORD) {
        if (start < 0) {
          start = i;
          h = FNV_OFFSET;
        }
        h = Math.imul(h ^ c, FNV_PRIME);
      } else if (start >= 0) {
        // Intern first: it may grow rawTerm, so the array is read after the call.
        const raw = this.intern(s, start, i, h);
        const t = this.rawTerm[raw];
        if (t >= 0) out[n++] = t;
        start = -1;
      }
    }
    return n;
  }

  /** Raw-word id for s[start, end), creating it (and resolving its term) on first sight. */
  private intern(s: string, start: number, end: number, h: number): number {
    const length = end - start;
    const slots = this.slots;
    const pool = this.pool;
    let slot = (h & this.mask) << 1;
    for (;;) {
      const id = slots[slot + 1];
      if (id < 0) break;
      if (slots[slot] === h && this.rawLen[id] === length) {
        const at = this.rawStart[id];
        let j = 0;
        while (j < length && pool[at + j] === s.charCodeAt(start + j)) j++;
        if (j === length) return id;
      }
      slot = (slot + 2) & this.slotMask;
    }
    return this.add(s, start, end, h, slot);
  }

  private add(s: string, start: number, end: number, h: number, slot: number): number {
    const id = this.rawCount++;
    const length = end - start;
    if (id >= this.rawTerm.length) {
      this.rawTerm = growInt32(this.rawTerm);
      this.rawStart = growInt32(this.rawStart);
      this.rawLen = growInt32(this.rawLen);
      this.rawHash = growInt32(this.rawHash);
    }
    if (this.poolUsed + length > this.pool.length) {
      const bigger = new Uint16Array(Math.max(this.pool.length * 2, this.poolUsed + length));
      bigger.set(this.pool);
      this.pool = bigger;
    }
    for (let j = 0; j < length; j++) this.pool[this.poolUsed + j] = s.charCodeAt(start + j);
    this.rawStart[id] = this.poolUsed;
    this.rawLen[id] = length;
    this.rawHash[id] = h;
    this.poolUsed += length;
    this.slots[slot] = h;
    this.slots[slot + 1] = id;

    const term = this.tokenizer.term(s.slice(start, end));
    let tid = -1;
    if (term !== null) {
      const known = this.termIds.get(term);
      if (known !== undefined) tid = known;
      else {
        tid = this.terms.length;
        this.terms.push(term);
        this.termIds.set(term, tid);
      }
    }
    this.rawTerm[id] = tid;
    // Keep the table at most half full so probe chains stay short.
    if (this.rawCount * 2 > this.mask + 1) this.rehash();
    return id;
  }

  private rehash(): void {
    const capacity = (this.mask + 1) * 2;
    this.slots = new Int32Array(capacity * 2).fill(-1);
    this.mask = capacity - 1;
    this.slotMask = capacity * 2 - 1;
    for (let id = 0; id < this.rawCount; id++) {
      const h = this.rawHash[id];
      let slot = (h & this.mask) << 1;
      while (this.slots[slot + 1] >= 0) slot = (slot + 2) & this.slotMask;
      this.slots[slot] = h;
      this.slots[slot + 1] = id;
    }
  }
}

function growInt32(a: Int32Array): Int32Array {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}
