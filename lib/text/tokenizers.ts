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

/** One word through BM25-GREEKSTEMMER: folded form, stopword (then no stem), stem. */
export type StemmingStep = { word: string; folded: string; stopword: boolean; stem: string | null };

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

// BERT's basic tokenizer splits off every punctuation character, ASCII symbols included, as a token of its own.
const BERT_TOKEN = /[\p{P}!-\/:-@[-`{-~]|[^\s\p{Cc}\p{P}!-\/:-@[-`{-~]+/gu;

/** The authors' fixed set of punctuation tokens, dropped after tokenising. */
export const GRNLP_DROPPED = new Set(Array.from("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~·΄—«»“”…‚„‘’–؛،"));

const GRNLP_SLICE = 2000;

/** BM25-GR-NLP-TOOLKIT as the authors run it on 2,000-character slices; its BERT tokenizer approximated (docs/tokenizers.md). */
export function grnlpTokenizer(): Tokenizer {
  // Each whitespace chunk of a cleaned slice is folded and split once, then reused: the same tokens as folding the
  // whole slice, as folding is per character and final sigma never looks across whitespace (a test checks it).
  const cache = new Map<string, string[]>();
  return {
    name: "bm25-grnlp",
    tokenize(text: string): string[] {
      const out: string[] = [];
      for (const slice of grnlpSlices(text)) {
        for (const chunk of clean(slice).split(WHITESPACE)) {
          if (chunk === "") continue;
          let tokens = cache.get(chunk);
          if (!tokens) {
            if (cache.size >= CHUNK_CACHE_LIMIT) cache.clear();
            cache.set(chunk, (tokens = kept(foldLower(chunk).match(BERT_TOKEN) ?? [])));
          }
          for (const t of tokens) out.push(t);
        }
      }
      return out;
    },
  };
}

function kept(tokens: readonly string[]): string[] {
  const out: string[] = [];
  for (const t of tokens) {
    const c = clean(t);
    if (c !== "" && !GRNLP_DROPPED.has(c)) out.push(c);
  }
  return out;
}

/** `text[i:i+2000]` for i = 0, 2000, …, counting code points as Python does (a surrogate pair is one). */
export function grnlpSlices(text: string): string[] {
  const cps = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < cps.length; i += GRNLP_SLICE) out.push(cps.slice(i, i + GRNLP_SLICE).join(""));
  return out;
}

const WHITESPACE = /\s+/u;
const CHUNK_CACHE_LIMIT = 500_000;

/** The uncached gr-nlp tokens: the reference `grnlpTokenizer` is tested against. */
export function grnlpTokensDirect(text: string): string[] {
  return grnlpSlices(text).flatMap((slice) => kept(foldLower(clean(slice)).match(BERT_TOKEN) ?? []));
}
