/**
 * What the BM25-SPACY and BM25-ENGLISH tokenizers know of spaCy: its lemma tables and
 * stopword lists, as values. Fetching, caching and parsing the published files is the job of
 * lib/data/spacy-tables.ts; tokenizers receive the result and never touch files or network,
 * so they can be built from any tables (a mirror's, a test's) the same way.
 *
 * - English: the flat `{ "surface form": "lemma" }` table `en_lemma_lookup` of spacy-lookups-data.
 * - Greek: spacy-lookups-data has no Greek lookup table, only the tables of spaCy's Greek rule
 *   lemmatizer (`el_lemma_index`, `el_lemma_exc`, `el_lemma_rules`), kept here as
 *   {@link GreekRuleTables}.
 */

export type SpacyLang = "el" | "en";

/** Which upstream file a table came from; recorded in a lexicon's provenance. */
export type SpacyFileRole = "lemma_lookup" | "lemma_index" | "lemma_exc" | "lemma_rules" | "stop_words";

/**
 * The tables of spaCy's Greek rule lemmatizer, keyed by lower-case universal POS ("noun", "verb", ...).
 */
export interface GreekRuleTables {
  /** Known lemmas per POS (lower-case, accented, as published). */
  index: Map<string, Set<string>>;
  /** Irregular forms per POS: form (lower-cased) -> lemmas, first preferred. */
  exc: Map<string, Map<string, string[]>>;
  /** Suffix rewrite rules per POS, in file order: [old suffix, new suffix]. */
  rules: Map<string, Array<[string, string]>>;
}

/**
 * Where one table of a lexicon came from, so a run can record exactly what it used.
 */
export interface SpacyLexiconFile {
  role: SpacyFileRole;
  url: string;
  sha256: string;
  size: number;
}

/**
 * spaCy's lemma data and stopwords for one language, ready for the tokenizers.
 */
export interface SpacyLexicon {
  lang: SpacyLang;
  /**
   * Surface form -> lemma. English: the whole `en_lemma_lookup` table, keys as published
   * (case-sensitive). Greek: the exception table flattened over POS (keys lower-cased, first
   * POS in {@link GREEK_POS_ORDER} wins); the rest of the Greek lemmatizer is in `greek`.
   */
  lemma: Map<string, string>;
  /** Greek only: the rule lemmatizer's tables. */
  greek?: GreekRuleTables;
  /** spaCy's stopwords exactly as listed (accents and case as in the source file). */
  stopwords: Set<string>;
  source: { files: SpacyLexiconFile[] };
}

/**
 * POS tried first when a Greek word's POS is unknown: content words common in statutes come first.
 */
export const GREEK_POS_ORDER = ["noun", "verb", "adj", "adv", "propn"] as const;

/**
 * The English lexicon from the parsed lookup table and stopword list.
 */
export function englishLexicon(lookup: Map<string, string>, stopwords: Set<string>, files: SpacyLexiconFile[] = []): SpacyLexicon {
  return { lang: "en", lemma: lookup, stopwords, source: { files } };
}

/**
 * The Greek lexicon from the parsed rule tables and stopword list; `lemma` is the exception
 * table flattened over POS, so a form listed under several POS gets the first POS's lemma.
 */
export function greekLexicon(greek: GreekRuleTables, stopwords: Set<string>, files: SpacyLexiconFile[] = []): SpacyLexicon {
  return { lang: "el", lemma: flattenExceptions(greek.exc), greek, stopwords, source: { files } };
}

function flattenExceptions(exc: Map<string, Map<string, string[]>>): Map<string, string> {
  const order = [...GREEK_POS_ORDER, ...[...exc.keys()].filter((p) => !(GREEK_POS_ORDER as readonly string[]).includes(p)).sort()];
  const out = new Map<string, string>();
  for (const pos of order) {
    for (const [form, lemmas] of exc.get(pos) ?? []) if (!out.has(form)) out.set(form, lemmas[0]);
  }
  return out;
}
