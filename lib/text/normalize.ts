/** Text normalisation shared by every tokenizer: the paper's `clean` and its Greek stemmer pipeline's fold. */

import { pyStrip } from "./python-str";

// One pass, as the reference's single regex (two would also replace a literal formed once an inner no-break space
// became a space); order is free (the literals differ in their 2nd letter); tools printed the escaped forms literally.
const SPACE_LITERALS = ["NNBSP", "NBSP", "NARROW NO-BREAK SPACE", "\\u202f", "\\u00a0", "\\xa0"];
const ARTIFACTS_RE = new RegExp(SPACE_LITERALS.map((s) => s.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&")).join("|") + "|[\u202F\u00A0\u2009\u200A\u200B\uFEFF]", "g");

/** The paper's `clean`: odd spaces (and leaked literals) to spaces, CR to LF, blank runs to one, Python's strip. */
export function clean(text: string): string {
  return pyStrip(text.replace(ARTIFACTS_RE, " ").replace(/\r\n?/g, "\n").replace(/[ \t]{2,}/g, " "));
}

const COMBINING = /\p{M}/gu;

/** NFD, marks dropped, upper-cased: the fold applied before the Greek stopword list and stemmer. */
export function foldUpper(word: string): string {
  // NFD, mark removal and upper-casing act per character (canonical reordering only moves marks, dropped anyway),
  // so a per-character table gives the same result without normalising every word.
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

/** Same fold but lower-cased: the form the spaCy-based and BERT-style tokenizers compare. */
export function foldLower(word: string): string {
  return word.normalize("NFD").replace(COMBINING, "").toLowerCase();
}

/** `fn` with a cache per word: corpora repeat a few tens of thousands of words millions of times. */
export function memo<V>(fn: (word: string) => V): (word: string) => V {
  const cache = new Map<string, V>();
  return (word) => {
    let v = cache.get(word);
    if (v === undefined) cache.set(word, (v = fn(word)));
    return v;
  };
}

/**
 * Maximal runs of letters, digits and underscores, as Python's `re.findall(r"\w+", text)`; one-letter words kept.
 *
 * @example
 * words("Άρθρο 5, παρ. 2α"); // ["Άρθρο", "5", "παρ", "2α"]
 */
export function words(text: string): string[] {
  return text.match(/[\p{L}\p{N}_]+/gu) ?? [];
}
