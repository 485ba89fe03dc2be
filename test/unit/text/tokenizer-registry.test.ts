/**
 * How text/registry.ts gets spaCy's tables without doing I/O: from the context's loader only (the public
 * createTokenizer, tested in test/integration/spacy-lexicon.test.ts, supplies the project's). The tables are tiny
 * made-up ones.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildTokenizer, type SpacyLexiconLoader, type TokenizerContext } from "../../../lib/text/registry";
import { englishLexicon, greekLexicon, type SpacyLang } from "../../../lib/text/spacy-lexicon";

const greek = greekLexicon(
  {
    index: new Map([["noun", new Set(["σύμβαση", "μίσθιο"])]]),
    exc: new Map([["verb", new Map([["παραδώσει", ["παραδίδω"]]])]]),
    rules: new Map([["noun", [["εως", "η"] as [string, string]]]]),
  },
  new Set(["το", "η"]),
);
const english = englishLexicon(new Map([["courts", "court"], ["were", "be"]]), new Set(["the", "be"]));

function recordingLoader(calls: Array<[SpacyLang, TokenizerContext]>): SpacyLexiconLoader {
  return async (lang, ctx) => {
    calls.push([lang, ctx]);
    return lang === "el" ? greek : english;
  };
}

test("with no loader given, a spaCy tokenizer is a clear error; the others need none", async () => {
  await assert.rejects(buildTokenizer("spacy"), /bm25-spacy needs spaCy's lemma tables: pass a loader as ctx\.loadSpacyLexicon/);
  await assert.rejects(buildTokenizer("bm25-english"), /ctx\.loadSpacyLexicon/);
  assert.equal((await buildTokenizer("greekstemmer")).name, "bm25-greekstemmer");
  assert.equal((await buildTokenizer("grnlp")).name, "bm25-grnlp");
});

test("the context's loader is asked for the right language and receives the context", async () => {
  const calls: Array<[SpacyLang, TokenizerContext]> = [];
  const ctx: TokenizerContext = { cacheDir: "/nowhere", offline: true, loadSpacyLexicon: recordingLoader(calls) };
  const el = await buildTokenizer("bm25-spacy", ctx);
  assert.deepEqual(el.tokenize("Η σύμβαση το μίσθιο παραδώσει"), ["συμβαση", "μισθιο", "παραδιδω"]);
  const en = await buildTokenizer("english", ctx);
  assert.deepEqual(en.tokenize("The courts were"), ["court"]);
  assert.deepEqual(
    calls.map(([lang, c]) => [lang, c.cacheDir, c.offline]),
    [
      ["el", "/nowhere", true],
      ["en", "/nowhere", true],
    ],
  );
});

test("createRetriever brings the project's loader: nothing is installed by importing a module", async () => {
  const { createRetriever } = await import("../../../lib/retrievers.js");
  const bench = { name: "t", docs: [{ id: "a", text: "σύμβαση" }], queries: [], qrels: new Map(), meta: new Map() };
  const seen: Array<[SpacyLang, TokenizerContext]> = [];
  const r = await createRetriever("bm25-spacy", bench, {}, { loadSpacyLexicon: recordingLoader(seen) });
  assert.equal(r.name, "bm25-spacy");
  assert.deepEqual(seen.map(([lang]) => lang), ["el"], "the caller's loader wins over the project's");
});

test("a loader's failure reaches the caller unchanged", async () => {
  const offline = new Error("spaCy tables not available offline");
  await assert.rejects(buildTokenizer("spacy", { loadSpacyLexicon: async () => Promise.reject(offline) }), (err) => err === offline);
});
