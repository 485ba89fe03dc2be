import type { Tokenizer } from "../types";
import { loadSpacyLexicon } from "./spacy-lexicon";
import { spacyEnglishTokenizer, spacyGreekTokenizer } from "./spacy-tokenizers";
import { greekStemmerTokenizer, grnlpTokenizer } from "./tokenizers";

/** Canonical tokenizer names, one per BM25 variant of the paper. */
export const TOKENIZERS = {
  "bm25-greekstemmer": "Greek stemmer (Ntais rules), accents removed, upper-case, 43 stopwords",
  "bm25-spacy": "spaCy Greek lemma lookup, lower-case, accents removed, spaCy stopwords",
  "bm25-grnlp": "gr-nlp-toolkit style: lower-case, accents removed, BERT punctuation split, no stemming",
  "bm25-english": "spaCy English lemma lookup, lower-case, spaCy stopwords (translation baseline)",
} as const;
export type TokenizerId = keyof typeof TOKENIZERS;

export interface TokenizerContext {
  /** Where downloaded resources (spaCy lookup tables) are cached; default `<dataDir()>/spacy`. */
  cacheDir?: string;
  offline?: boolean;
  log?: (message: string) => void;
}

/**
 * Resolves a tokenizer by name; the short forms `greekstemmer`, `spacy`, `grnlp`, `english`
 * are accepted too. Lemma-based tokenizers download spaCy's lookup tables on first use and
 * fail with a DownloadError (code OFFLINE) when they can be neither fetched nor found cached.
 *
 * @example
 * const tok = await createTokenizer("bm25-greekstemmer");
 * tok.tokenize("Οι συμβάσεις ερμηνεύονται"); // ["ΟΙ", "ΣΥΜΒΑΣ", "ΕΡΜΗΝΕΥ"]
 */
export async function createTokenizer(name: string, ctx: TokenizerContext = {}): Promise<Tokenizer> {
  const id = canonicalTokenizer(name);
  switch (id) {
    case "bm25-greekstemmer":
      return greekStemmerTokenizer();
    case "bm25-grnlp":
      return grnlpTokenizer();
    case "bm25-spacy":
      return spacyGreekTokenizer(await loadSpacyLexicon("el", ctx));
    case "bm25-english":
      return spacyEnglishTokenizer(await loadSpacyLexicon("en", ctx));
  }
}

/**
 * The canonical name for a tokenizer name or alias; throws listing the valid names otherwise.
 *
 * @example
 * canonicalTokenizer("spacy"); // "bm25-spacy"
 */
export function canonicalTokenizer(name: string): TokenizerId {
  const full = name.startsWith("bm25-") ? name : `bm25-${name}`;
  if (full in TOKENIZERS) return full as TokenizerId;
  throw new Error(`unknown tokenizer '${name}'; choose one of ${Object.keys(TOKENIZERS).join(", ")}`);
}
