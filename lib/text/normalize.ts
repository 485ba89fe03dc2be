/**
 * Text normalisation shared by every tokenizer: the paper's `clean` step and the
 * accent-stripping, upper-casing fold of its Greek stemmer pipeline.
 */

import { pyStrip } from "./python-str";

// One pass over literals and characters together, as the reference's single regex does: two
// passes would also replace a literal that only appears once a no-break space inside it became
// a space. (The literals differ in their second letter, so their order does not matter.) The
// escaped forms appear because the source texts went through tools that printed them literally.
const SPACE_LITERALS = ["NNBSP", "NBSP", "NARROW NO-BREAK SPACE", "\\u202f", "\\u00a0", "\\xa0"];
const ARTIFACTS_RE = new RegExp(SPACE_LITERALS.map((s) => s.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&")).join("|") + "|[\u202F\u00A0\u2009\u200A\u200B\uFEFF]", "g");

/**
 * The paper's `clean`: no-break and zero-width spaces (as characters or as the literal texts
 * that leaked into the corpus) become spaces, CR/CRLF become LF, runs of spaces or tabs
 * collapse to one space, and the ends are stripped of Python's whitespace (`str.strip()`).
 */
export function clean(text: string): string {
  return pyStrip(
    text
      .replace(ARTIFACTS_RE, " ")
      .replace(/\r\n?/g, "\n")
      .replace(/[ \t]{2,}/g, " "),
  );
}

const COMBINING = /\p{M}/gu;

/**
 * Decomposes (NFD), drops combining marks and upper-cases: the fold applied to every word
 * before the Greek stopword list and stemmer, so "Δικαστήριο" and "ΔΙΚΑΣΤΗΡΙΟ" meet.
 */
export function foldUpper(word: string): string {
  // Decomposition, mark removal and upper-casing all act character by character (canonical
  // reordering only moves marks, which are dropped anyway), so a per-character table gives the
  // same result without running the Unicode normaliser on every word.
  let out = "";
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) return word.normalize("NFD").replace(COMBINING, "").toUpperCase();
    let f = UPPER_FOLD[c];
    if (f === undefined) UPPER_FOLD[c] = f = String.fromCharCode(c).normalize("NFD").replace(COMBINING, "").toUpperCase();
    out += f;
  }
  return out;
}

const UPPER_FOLD: (string | undefined)[] = new Array(65536);

/**
 * Same fold but lower-cased: the form the spaCy-based and BERT-style tokenizers compare.
 */
export function foldLower(word: string): string {
  return word.normalize("NFD").replace(COMBINING, "").toLowerCase();
}

/** Python's `\w+` in Unicode mode: letters, digits (any script) and underscore. */
export const WORD_RE = /[\p{L}\p{N}_]+/gu;

/**
 * Splits text into the maximal runs of letters, digits and underscores, as Python's
 * `re.findall(r"\w+", text)` does; a one-character word such as the "5" of "άρθρο 5" is kept.
 *
 * @example
 * words("Άρθρο 5, παρ. 2α"); // ["Άρθρο", "5", "παρ", "2α"]
 */
export function words(text: string): string[] {
  const table = (wordChars ??= wordCharTable());
  const out: string[] = [];
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // A surrogate pair (a character beyond the BMP): the table does not cover it; the regex does.
    if (c >= 0xd800 && c <= 0xdfff) return text.match(WORD_RE) ?? [];
    if (table[c] === 1) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      out.push(text.slice(start, i));
      start = -1;
    }
  }
  if (start >= 0) out.push(text.slice(start));
  return out;
}

/**
 * `words(text).length` without making the words: the statistics count words over every
 * article, and the strings were most of that time.
 */
export function wordCount(text: string): number {
  const table = (wordChars ??= wordCharTable());
  let n = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) return words(text).length;
    const w = table[c] === 1;
    if (w && !inWord) n++;
    inWord = w;
  }
  return n;
}

// Which BMP characters WORD_RE matches, asked of the regex itself once per character: the scan
// above then gives its matches exactly, two and a half times faster than matching.
let wordChars: Uint8Array | undefined;

function wordCharTable(): Uint8Array {
  const one = new RegExp(`^${WORD_RE.source}$`, "u");
  const t = new Uint8Array(65536);
  for (let c = 0; c < 65536; c++) if (c < 0xd800 || c > 0xdfff) t[c] = one.test(String.fromCharCode(c)) ? 1 : 0;
  return t;
}
