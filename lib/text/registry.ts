import { GbrError } from "../util/errors";
import { didYouMean } from "../util/suggest";
import type { Tokenizer } from "../types";
import type { SpacyLang, SpacyLexicon } from "./spacy-lexicon";
import { spacyEnglishTokenizer, spacyGreekTokenizer } from "./spacy-tokenizers";
import { greekStemmerTokenizer, grnlpTokenizer } from "./tokenizers";

/**
 * Canonical tokenizer names, one per BM25 variant of the paper, with a one-line description.
 *
 * @example
 * Object.keys(TOKENIZERS); // ["bm25-greekstemmer", "bm25-spacy", "bm25-grnlp", "bm25-english"]
 */
export const TOKENIZERS = {
  "bm25-greekstemmer": "Greek stemmer (Ntais rules), accents removed, upper-case, 43 stopwords",
  "bm25-spacy": "spaCy Greek lemma lookup, lower-case, accents removed, spaCy stopwords",
  "bm25-grnlp": "gr-nlp-toolkit style: lower-case, accents removed, BERT punctuation split, no stemming",
  "bm25-english": "spaCy English lemma lookup, lower-case, spaCy stopwords (translation baseline)",
} as const;
export type TokenizerId = keyof typeof TOKENIZERS;

/** Supplies spaCy's tables for one language, as text/ does no I/O (the project's: data/spacy-tables.ts). */
export type SpacyLexiconLoader = (lang: SpacyLang, ctx: TokenizerContext) => Promise<SpacyLexicon>;

/** What a tokenizer needs beyond code: the spaCy tables, through a loader given `cacheDir`, `offline` and `log`. */
export interface TokenizerContext {
  cacheDir?: string;
  offline?: boolean;
  log?: (message: string) => void;
  loadSpacyLexicon?: SpacyLexiconLoader;
}

/**
 * A tokenizer by name or short form, spaCy's tables through `ctx.loadSpacyLexicon` (`createTokenizer` supplies them).
 * @example
 * const tok = await buildTokenizer("bm25-greekstemmer");
 * tok.tokenize("Οι συμβάσεις ερμηνεύονται"); // ["ΟΙ", "ΣΥΜΒΑΣ", "ΕΡΜΗΝΕΥ"]
 */
export async function buildTokenizer(name: string, ctx: TokenizerContext = {}): Promise<Tokenizer> {
  const id = canonicalTokenizer(name);
  switch (id) {
    case "bm25-greekstemmer":
      return greekStemmerTokenizer();
    case "bm25-grnlp":
      return grnlpTokenizer();
    case "bm25-spacy":
      return spacyGreekTokenizer(await lexicon(id, "el", ctx));
    case "bm25-english":
      return spacyEnglishTokenizer(await lexicon(id, "en", ctx));
  }
}

function lexicon(id: TokenizerId, lang: SpacyLang, ctx: TokenizerContext): Promise<SpacyLexicon> {
  if (!ctx.loadSpacyLexicon) throw new Error(`${id} needs spaCy's lemma tables: pass a loader as ctx.loadSpacyLexicon`);
  return ctx.loadSpacyLexicon(lang, ctx);
}

function canonicalTokenizer(name: string): TokenizerId {
  const full = name.startsWith("bm25-") ? name : `bm25-${name}`;
  if (full in TOKENIZERS) return full as TokenizerId;
  throw new GbrError(`unknown tokenizer '${name}'${didYouMean(full, Object.keys(TOKENIZERS))}; choose one of ${Object.keys(TOKENIZERS).join(", ")}`, "USAGE");
}
