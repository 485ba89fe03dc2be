import type { Tokenizer } from "../types";

/**
 * A tokenizer that works word by word: text splits into maximal runs of "word characters",
 * and each word maps on its own to one term or to nothing (a stopword). Declaring this shape
 * lets the indexer intern raw words once and reuse the result, which is what makes
 * tokenising 1.9M words take tens of milliseconds instead of a second.
 */
export interface WordTokenizer extends Tokenizer {
  /** Whether a code point belongs to a word. Must not depend on context. */
  isWordChar(codePoint: number): boolean;
  /** The term for one raw word, or null to drop it. Must be a pure function of the word. */
  term(word: string): string | null;
  /** Text rewriting that can change which words appear (e.g. literal "NBSP" → space); identity if absent. */
  prepare?(text: string): string;
}

/**
 * Type guard for `WordTokenizer`.
 *
 * @example
 * if (isWordTokenizer(tok)) new Analyzer(tok);
 */
export function isWordTokenizer(t: Tokenizer): t is WordTokenizer {
  return typeof (t as WordTokenizer).isWordChar === "function" && typeof (t as WordTokenizer).term === "function";
}

const NOT_WORD = 0;
const WORD = 1;
const SURROGATE = 2;
const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

/**
 * Maps text to term ids through a word-level cache. Raw words are interned in an
 * open-addressing hash table keyed by a hash computed while scanning, so a word seen before
 * costs no substring allocation and no Map lookup. Term ids are assigned in order of first
 * appearance, which is the order rank_bm25's dictionaries iterate in.
 *
 * @example
 * const analyzer = new Analyzer(greekStemmerTokenizer());
 * const ids = analyzer.analyze("Η αγωγή απορρίπτεται"); // Int32Array [0, 1]
 * analyzer.terms[ids[0]]; // "ΑΓΩΓ"
 */
export class Analyzer {
  /** term id -> term */
  readonly terms: string[] = [];
  /** term -> term id */
  readonly termIds = new Map<string, number>();
  private readonly charClass = new Uint8Array(65536);
  private slots: Int32Array;
  private mask: number;
  private rawWords: string[] = [];
  private rawHash: number[] = [];
  private rawTerm: Int32Array = new Int32Array(1024);
  private buffer = new Int32Array(4096);

  constructor(readonly tokenizer: WordTokenizer) {
    for (let c = 0; c < 65536; c++) {
      if (c >= 0xd800 && c <= 0xdfff) this.charClass[c] = SURROGATE;
      else this.charClass[c] = tokenizer.isWordChar(c) ? WORD : NOT_WORD;
    }
    this.slots = new Int32Array(1 << 16).fill(-1);
    this.mask = this.slots.length - 1;
  }

  /**
   * Term ids of a text, in order (dropped words leave no id).
   *
   * @example
   * analyzer.analyze("άρθρο 5"); // Int32Array [ … ]
   */
  analyze(text: string): Int32Array {
    const n = this.scan(this.tokenizer.prepare ? this.tokenizer.prepare(text) : text);
    return this.buffer.slice(0, n);
  }

  /**
   * Terms (strings) of a text; the same output as the tokenizer's own `tokenize`.
   *
   * @example
   * analyzer.tokenize("Η αγωγή"); // ["ΑΓΩΓ"]
   */
  tokenize(text: string): string[] {
    return Array.from(this.analyze(text), (id) => this.terms[id]);
  }

  /** Writes the term ids of `s` into `this.buffer` and returns how many there are. */
  private scan(s: string): number {
    const cls = this.charClass;
    const len = s.length;
    // A text has at most one word per two characters, so this bound avoids growth checks.
    if (this.buffer.length < (len >> 1) + 1) this.buffer = new Int32Array((len >> 1) + 1);
    const out = this.buffer;
    let n = 0;
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
    let slot = h & this.mask;
    for (;;) {
      const id = this.slots[slot];
      if (id < 0) break;
      if (this.rawHash[id] === h) {
        const w = this.rawWords[id];
        if (w.length === length) {
          let same = true;
          for (let j = 0; j < length; j++) {
            if (w.charCodeAt(j) !== s.charCodeAt(start + j)) {
              same = false;
              break;
            }
          }
          if (same) return id;
        }
      }
      slot = (slot + 1) & this.mask;
    }
    const word = s.slice(start, end);
    const id = this.rawWords.length;
    this.rawWords.push(word);
    this.rawHash.push(h);
    this.slots[slot] = id;
    if (id >= this.rawTerm.length) {
      const bigger = new Int32Array(this.rawTerm.length * 2);
      bigger.set(this.rawTerm);
      this.rawTerm = bigger;
    }
    const term = this.tokenizer.term(word);
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
    if (this.rawWords.length * 2 > this.slots.length) this.rehash();
    return id;
  }

  private rehash(): void {
    this.slots = new Int32Array(this.slots.length * 2).fill(-1);
    this.mask = this.slots.length - 1;
    for (let id = 0; id < this.rawWords.length; id++) {
      let slot = this.rawHash[id] & this.mask;
      while (this.slots[slot] >= 0) slot = (slot + 1) & this.mask;
      this.slots[slot] = id;
    }
  }
}
