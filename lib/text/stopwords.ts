/**
 * The 43 Greek stopwords of the paper's BM25-GREEKSTEMMER variant, in their folded
 * (accent-free, upper-case) form: articles, common prepositions, conjunctions and forms of
 * "to be" / "to have". Matched after folding and before stemming.
 */
export const GREEK_STEMMER_STOPWORDS: ReadonlySet<string> = new Set(
  (
    "ΚΑΙ Η Ο ΤΟ ΤΑ ΤΟΥ ΤΗΣ ΤΩΝ ΣΤΟ ΣΤΗ ΣΤΗΝ ΣΤΑ ΣΕ ΜΕ ΓΙΑ ΑΠΟ ΩΣ ΠΟΥ ΟΤΙ ΟΤΑΝ ΑΝ ΝΑ ΔΕΝ ΜΗ ΜΗΝ ΤΙ ΠΩΣ " +
    "ΠΡΟΣ ΥΠΟ ΚΑΤΑ ΕΝ ΕΠΙ ΜΕΤΑ ΠΡΙΝ ΠΑΝΩ ΚΑΤΩ ΕΩΣ ΗΤΑΝ ΕΙΝΑΙ ΕΙΜΑΙ ΕΧΕΙ ΕΧΟΥΝ ΕΧΩ"
  ).split(" "),
);
