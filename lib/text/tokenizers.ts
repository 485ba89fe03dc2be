import type { Tokenizer } from "../types";
import { Analyzer, type WordTokenizer } from "./analyzer";
import { clean, foldLower, foldUpper, words } from "./normalize";
import { createCachedStemmer } from "./greek-stemmer";
import { GREEK_STEMMER_STOPWORDS } from "./stopwords";

const PY_WORD_CHAR = /[\p{L}\p{N}_]/u;
const CLEAN_TRIGGERS = ["NBSP", "NARROW", "\\"];

/** The paper's BM25-GREEKSTEMMER: clean, Python `\w+` words, accentless upper case, stopwords out, Ntais stems. */
export function greekStemmerTokenizer(): WordTokenizer {
  // Case variants of a word fold to one form, so stems are cached per folded form.
  const stem = createCachedStemmer();
  const self: WordTokenizer = {
    name: "bm25-greekstemmer",
    isWordChar: (cp) => PY_WORD_CHAR.test(String.fromCodePoint(cp)),
    term(word) {
      const folded = foldUpper(word);
      return GREEK_STEMMER_STOPWORDS.has(folded) ? null : stem(folded);
    },
    // Only clean()'s literal "NBSP"-style replacements can change the words: skip it for texts without them.
    prepare: (text) => (CLEAN_TRIGGERS.some((t) => text.includes(t)) ? clean(text) : text),
    tokenize: (text) => analyzer.tokenize(text),
  };
  const analyzer = new Analyzer(self);
  return self;
}

/** One word through BM25-GREEKSTEMMER's steps: folded form, stopword or not (then no stem), stem. */
export interface StemmingStep {
  word: string;
  folded: string;
  stopword: boolean;
  stem: string | null;
}

/**
 * A text taken through BM25-GREEKSTEMMER word by word, for teaching what the tokenizer does.
 *
 * @example
 * explainStemming("Ο μισθωτής οφείλει");
 * // [{ word: "Ο", folded: "Ο", stopword: true, stem: null }, { word: "μισθωτής", folded: "ΜΙΣΘΩΤΗΣ", stopword: false, stem: "ΜΙΣΘΩΤ" }, …]
 */
export function explainStemming(text: string): StemmingStep[] {
  const stem = createCachedStemmer();
  return words(clean(text)).map((word) => {
    const folded = foldUpper(word);
    const stopword = GREEK_STEMMER_STOPWORDS.has(folded);
    return { word, folded, stopword, stem: stopword ? null : stem(folded) };
  });
}

// BERT's basic tokenizer treats ASCII symbols as punctuation too, not only Unicode P* characters.
const BERT_PUNCT = /[\p{P}!-\/:-@[-`{-~]/u;
const BERT_SPLIT = /[\p{P}!-\/:-@[-`{-~]|[\s\p{Cc}]+/u;

/**
 * Approximates BM25-GR-NLP-TOOLKIT's tokens: accentless lower case (its Greek BERT is uncased), split on
 * whitespace and punctuation as BERT's basic tokenizer, punctuation dropped, no stems (docs/tokenizers.md).
 */
export function grnlpTokenizer(): Tokenizer {
  const splitter = new RegExp(BERT_SPLIT.source, "gu");
  const tokensOf = (text: string) => foldLower(text).split(splitter).filter((t) => t !== "" && !BERT_PUNCT.test(t));
  // Each whitespace chunk is folded and split once, then reused: the same tokens as folding the whole text, as
  // folding is per character and final sigma never looks across whitespace (a test checks it on a corpus).
  const cache = new Map<string, string[]>();
  return {
    name: "bm25-grnlp",
    tokenize(text: string): string[] {
      const out: string[] = [];
      for (const chunk of clean(text).split(WHITESPACE)) {
        if (chunk === "") continue;
        let tokens = cache.get(chunk);
        if (!tokens) {
          if (cache.size >= CHUNK_CACHE_LIMIT) cache.clear();
          cache.set(chunk, (tokens = tokensOf(chunk)));
        }
        for (const t of tokens) out.push(t);
      }
      return out;
    },
  };
}

const WHITESPACE = /\s+/u;
/** Distinct chunks kept (a corpus the size of greeklaws has about 60,000). */
const CHUNK_CACHE_LIMIT = 500_000;

/** The uncached gr-nlp tokens (whole text folded, then split): the reference `grnlpTokenizer` is tested against. */
export function grnlpTokensDirect(text: string): string[] {
  const splitter = new RegExp(BERT_SPLIT.source, "gu");
  return foldLower(clean(text)).split(splitter).filter((t) => t !== "" && !BERT_PUNCT.test(t));
}
