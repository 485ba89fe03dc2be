/** `gbr tokenize`: a BM25 variant's tokenizer over stdin's lines. */
import type { Command } from "./args";
import type { SpacyLexiconLoader } from "../text/registry";
import { eachLine, logger, quietOption } from "./options";
import { createTokenizer, spacyLoader } from "../data/spacy-tables";

export const tokenize: Command = {
  spec: {
    name: "tokenize",
    summary: "Tokenize text as a BM25 variant does: one text per stdin line, tokens joined by single spaces on stdout.",
    usage: "tokenize --tokenizer NAME < texts.txt",
    options: { tokenizer: { type: "string" }, ...quietOption },
    help: ["--tokenizer NAME   greekstemmer (default), spacy, grnlp or english (bm25-… forms accepted)", "-q, --quiet        no messages on stderr"],
  },
  async run(values, io, config) {
    // The configuration is read only when a spaCy tokenizer asks for its tables: the Greek stemmer needs none.
    const loadSpacyLexicon: SpacyLexiconLoader = (lang, ctx) => spacyLoader(config())(lang, ctx);
    const tok = await createTokenizer(String(values.tokenizer ?? "bm25-greekstemmer"), { log: logger(io, values.quiet), loadSpacyLexicon });
    await eachLine(io, (l) => tok.tokenize(l).join(" "));
  },
};
