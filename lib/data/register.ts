/**
 * What data/ supplies to other folders' registries: spaCy's tables for the lemma tokenizers of
 * text/, which may not fetch them itself. Imported for its effect by lib/retrievers.ts, the root
 * wiring, so every entry point that can name a tokenizer (the CLI, `reproduce`, lib/index.ts and
 * so the notebooks) has the loader installed.
 */
import { registerSpacyLexiconLoader } from "../text/registry";
import { loadSpacyLexicon } from "./spacy-tables";

/**
 * Installs data/'s loaders in the registries of other folders (done once on import; calling it
 * again changes nothing). Exported, not only run: tslab's compiler fails on a module that only
 * has effects.
 *
 * @example
 * installDataLoaders(); // `createTokenizer("spacy")` can now fetch spaCy's tables
 */
export function installDataLoaders(): void {
  registerSpacyLexiconLoader(loadSpacyLexicon);
}

installDataLoaders();
