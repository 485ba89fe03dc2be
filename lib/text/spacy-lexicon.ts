/** What the spaCy-based tokenizers know of spaCy, as values; fetching and parsing is lib/data/spacy-tables.ts. */

export type SpacyLang = "el" | "en";

/** Which upstream file a table came from; recorded in a lexicon's provenance. */
export type SpacyFileRole = "lemma_lookup" | "lemma_index" | "lemma_exc" | "lemma_rules" | "stop_words";

/** spaCy's Greek rule-lemmatizer tables (spacy-lookups-data has no Greek lookup table), by lower-case UPOS. */
export interface GreekRuleTables {
  /** Known lemmas per POS (lower-case, accented, as published). */
  index: Map<string, Set<string>>;
  /** Irregular forms per POS: form (lower-cased) -> lemmas, first preferred. */
  exc: Map<string, Map<string, string[]>>;
  /** Suffix rewrite rules per POS, in file order: [old suffix, new suffix]. */
  rules: Map<string, Array<[string, string]>>;
}

/** Where one table of a lexicon came from, so a run can record exactly what it used. */
export interface SpacyLexiconFile {
  role: SpacyFileRole;
  url: string;
  sha256: string;
  size: number;
}

/** spaCy's lemma data and stopwords for one language, ready for the tokenizers. */
export interface SpacyLexicon {
  lang: SpacyLang;
  /** Form -> lemma: English `en_lemma_lookup` as published, Greek the exceptions flattened (`greekLexicon`). */
  lemma: Map<string, string>;
  /** Greek only: the rule lemmatizer's tables. */
  greek?: GreekRuleTables;
  /** spaCy's stopwords exactly as listed (accents and case as in the source file). */
  stopwords: Set<string>;
  source: { files: SpacyLexiconFile[] };
}

/** POS tried first when a Greek word's POS is unknown: content words common in statutes come first. */
export const GREEK_POS_ORDER = ["noun", "verb", "adj", "adv", "propn"] as const;

export function englishLexicon(lookup: Map<string, string>, stopwords: Set<string>, files: SpacyLexiconFile[] = []): SpacyLexicon {
  return { lang: "en", lemma: lookup, stopwords, source: { files } };
}

/** The Greek lexicon; `lemma` flattens the exceptions over POS (a form under several takes the first's lemma). */
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
