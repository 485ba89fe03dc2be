/** BM25-SPACY and BM25-ENGLISH without spaCy: its tables on word tokens, normalised as the notebook does (docs/tokenizers.md). */
import type { Tokenizer } from "../types";
import { clean, foldLower, memo } from "./normalize";
import { GREEK_POS_ORDER, type SpacyLexicon } from "./spacy-lexicon";

// spaCy never splits a number's internal `.`, `,`, `/` ("4172/2013"); English keeps apostrophes for clitics.
const GREEK_TOKEN_SOURCE = String.raw`[\p{L}\p{M}\p{N}_]+(?:(?<=\p{N})[.,/]\p{N}+)*`;
const ENGLISH_TOKEN_SOURCE = String.raw`[\p{L}\p{M}\p{N}_]+(?:(?<=\p{N})[.,/]\p{N}+|['’][\p{L}\p{M}\p{N}_]+)*`;
const UNDERSCORES = /^_+$/;

/** The notebook's stop set: accent-stripped, lower-cased. */
const foldedStopwords = (lex: SpacyLexicon): Set<string> => new Set([...lex.stopwords].map(foldLower));

/**
 * A POS-blind spaCy rule_lemmatize: listed lemma, exception, first rule output in the index (exact, then accent-blind,
 * as rules do not move accents: "συμβάσεως" → "συμβάση" vs "σύμβαση"), else the word (spaCy's POS-less fallback is too risky).
 */
function greekLemmatizer(lex: SpacyLexicon): (lowerWord: string) => string {
  const g = lex.greek;
  if (!g) throw new Error("greekLemmatizer: the lexicon has no Greek rule tables (load it with lang 'el')");
  const extra = [...new Set([...g.index.keys(), ...g.rules.keys()])].filter((p) => !(GREEK_POS_ORDER as readonly string[]).includes(p)).sort();
  const posOrder = [...GREEK_POS_ORDER, ...extra].filter((p) => g.index.has(p) && (g.rules.get(p)?.length ?? 0) > 0);
  const anyIndex = new Set<string>();
  for (const set of g.index.values()) for (const w of set) anyIndex.add(w);
  let folded: Map<string, Set<string>> | undefined;
  const foldedIndex = (pos: string): Set<string> => {
    if (!folded) {
      folded = new Map();
      for (const [p, set] of g.index) folded.set(p, new Set([...set].map(foldLower)));
    }
    return folded.get(pos)!;
  };

  return (w) => {
    if (anyIndex.has(w)) return w;
    const exc = lex.lemma.get(w);
    if (exc !== undefined) return exc;
    const candidates: Array<[string, string]> = [];
    for (const pos of posOrder) {
      const index = g.index.get(pos)!;
      for (const [oldSuffix, newSuffix] of g.rules.get(pos)!) {
        if (!w.endsWith(oldSuffix)) continue;
        const form = w.slice(0, w.length - oldSuffix.length) + newSuffix;
        if (form === "") continue;
        if (index.has(form)) return form;
        candidates.push([pos, form]);
      }
    }
    for (const [pos, form] of candidates) if (foldedIndex(pos).has(foldLower(form))) return form;
    return w;
  };
}

/** BM25-SPACY: spaCy's Greek lemmas in accentless lower case; stopwords (same fold) and punctuation dropped. */
export function spacyGreekTokenizer(lex: SpacyLexicon): Tokenizer {
  if (lex.lang !== "el") throw new Error(`spacyGreekTokenizer needs the Greek lexicon, got '${lex.lang}'`);
  const lemmatize = greekLemmatizer(lex);
  const stop = foldedStopwords(lex);
  return scanTokenizer("bm25-spacy", GREEK_TOKEN_SOURCE, (word) => {
    const t = foldLower(lemmatize(word.normalize("NFC").toLowerCase())).trim();
    return t === "" || UNDERSCORES.test(t) || stop.has(t) ? EMPTY : [t];
  });
}

function scanTokenizer(name: string, source: string, termsOf: (word: string) => readonly string[]): Tokenizer {
  const terms = memo(termsOf);
  const re = new RegExp(source, "gu");
  return {
    name,
    tokenize(text: string): string[] {
      const out: string[] = [];
      const s = clean(text);
      re.lastIndex = 0;
      for (let m = re.exec(s); m !== null; m = re.exec(s)) out.push(...terms(m[0]));
      return out;
    },
  };
}

/** spaCy's tokenizer exceptions give these negation stems their own lemma ("can't" → "ca" + "n't"). */
const NEGATED_STEM_LEMMA: Record<string, string> = { ca: "can", wo: "will", sha: "shall", ai: "be" };
const NEGATION = /^(.+?)n['’]t$/i;
const CLITIC = /^(.+)['’](?:s|ll|re|ve|d|m)$/i;
const EMPTY: readonly string[] = Object.freeze([]);

/** BM25-ENGLISH: spaCy's lookup lemmas (surface, then lower-cased form), stopwords and punctuation dropped; clitics too. */
export function spacyEnglishTokenizer(lex: SpacyLexicon): Tokenizer {
  if (lex.lang !== "en") throw new Error(`spacyEnglishTokenizer needs the English lexicon, got '${lex.lang}'`);
  const stop = foldedStopwords(lex);
  const lemmaOf = (w: string): string => {
    const lower = w.toLowerCase();
    return (lex.lemma.get(w) ?? lex.lemma.get(lower) ?? lower).toLowerCase().trim();
  };
  const keep = (t: string): boolean => t !== "" && !UNDERSCORES.test(t) && !stop.has(t);
  return scanTokenizer("bm25-english", ENGLISH_TOKEN_SOURCE, (word) => {
    const w = word.normalize("NFC");
    let lemma: string;
    const neg = NEGATION.exec(w);
    const clitic = neg ? null : CLITIC.exec(w);
    if (neg) lemma = NEGATED_STEM_LEMMA[neg[1].toLowerCase()] ?? lemmaOf(neg[1]);
    else if (clitic) lemma = lemmaOf(clitic[1]);
    else lemma = lemmaOf(w);
    return keep(lemma) ? [lemma] : EMPTY;
  });
}
