/** What the spaCy-based tokenizers know of spaCy, as values; fetching and parsing is lib/data/spacy-tables.ts. */

export type SpacyLang = "el" | "en";

/** Which upstream file a table came from. */
export type SpacyFileRole = "lemma_lookup" | "lemma_index" | "lemma_exc" | "lemma_rules" | "stop_words";

/** spaCy's Greek rule-lemmatizer tables by lower-case UPOS: lemmas, exceptions (first lemma preferred), suffix rules. */
export interface GreekRuleTables {
  index: Map<string, Set<string>>;
  exc: Map<string, Map<string, string[]>>;
  rules: Map<string, Array<[string, string]>>;
}

/** spaCy's lemma data (English lookup; Greek exceptions flattened, plus its rule tables) and stopwords as listed. */
export type SpacyLexicon = { lang: SpacyLang; lemma: Map<string, string>; greek?: GreekRuleTables; stopwords: Set<string> };

/** POS tried first when a Greek word's POS is unknown: content words common in statutes come first. */
export const GREEK_POS_ORDER = ["noun", "verb", "adj", "adv", "propn"] as const;

export function englishLexicon(lookup: Map<string, string>, stopwords: Set<string>): SpacyLexicon {
  return { lang: "en", lemma: lookup, stopwords };
}

/** The Greek lexicon; `lemma` flattens the exceptions over POS (a form under several takes the first's lemma). */
export function greekLexicon(greek: GreekRuleTables, stopwords: Set<string>): SpacyLexicon {
  return { lang: "el", lemma: flattenExceptions(greek.exc), greek, stopwords };
}

function flattenExceptions(exc: Map<string, Map<string, string[]>>): Map<string, string> {
  const order = [...GREEK_POS_ORDER, ...[...exc.keys()].filter((p) => !(GREEK_POS_ORDER as readonly string[]).includes(p)).sort()];
  const out = new Map<string, string>();
  for (const pos of order) for (const [form, lemmas] of exc.get(pos) ?? []) if (!out.has(form)) out.set(form, lemmas[0]);
  return out;
}
