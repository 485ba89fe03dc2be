/** BM25-GREEKSTEMMER's 43 stopwords, folded (no accents, upper-case): matched after folding, before stemming. */
export const GREEK_STEMMER_STOPWORDS: ReadonlySet<string> = new Set(
  (
    "ΚΑΙ Η Ο ΤΟ ΤΑ ΤΟΥ ΤΗΣ ΤΩΝ ΣΤΟ ΣΤΗ ΣΤΗΝ ΣΤΑ ΣΕ ΜΕ ΓΙΑ ΑΠΟ ΩΣ ΠΟΥ ΟΤΙ ΟΤΑΝ ΑΝ ΝΑ ΔΕΝ ΜΗ ΜΗΝ ΤΙ ΠΩΣ " +
    "ΠΡΟΣ ΥΠΟ ΚΑΤΑ ΕΝ ΕΠΙ ΜΕΤΑ ΠΡΙΝ ΠΑΝΩ ΚΑΤΩ ΕΩΣ ΗΤΑΝ ΕΙΝΑΙ ΕΙΜΑΙ ΕΧΕΙ ΕΧΟΥΝ ΕΧΩ"
  ).split(" "),
);
