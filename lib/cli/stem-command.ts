/** `gbr stem`: the Greek stemmer over stdin's words. */
import type { Command } from "./args";
import { eachLine } from "./options";
import { createCachedStemmer } from "../text/greek-stemmer";
import { foldUpper } from "../text/normalize";

export const stem: Command = {
  spec: {
    name: "stem",
    summary: "Stem words with the Greek stemmer (Ntais rules): one word per stdin line, in any case, with or without accents.",
    usage: "stem < words.txt",
    options: {},
    help: ["(each word is folded first, as the BM25-GREEKSTEMMER tokenizer folds it: accents removed, upper case)"],
  },
  async run(_values, io) {
    const stemWord = createCachedStemmer();
    await eachLine(io, (w) => stemWord(foldUpper(w.trim())));
  },
};
