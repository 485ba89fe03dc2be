import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { Analyzer } from "../../../lib/text/analyzer";
import { clean, foldUpper, words } from "../../../lib/text/normalize";
import { stem } from "../../../lib/text/greek-stemmer";
import { GREEK_STEMMER_STOPWORDS } from "../../../lib/text/stopwords";
import { greekStemmerTokenizer, grnlpTokenizer } from "../../../lib/text/tokenizers";

/** The paper's pipeline written directly, without any caching. */
function reference(text: string): string[] {
  return words(clean(text))
    .map((w) => w.normalize("NFD").replace(/\p{M}/gu, "").toUpperCase())
    .filter((w) => !GREEK_STEMMER_STOPWORDS.has(w))
    .map(stem);
}

const pieces = [
  "Άρθρο", "άρθρο", "ΆΡΘΡΟ", "5", "παρ.", "2α", "του", "ΚΑΙ", "και", "ν.", "4548/2018", " ", "  ", "\t", "\n", "\r\n",
  "\u00a0", "\u202f", "NBSP", "NNBSP", "NARROW NO-BREAK SPACE", "\\u00a0", "\\xa0", "µ", "_", "ϊ", "ΐ", "α\u0301", "’", "«", "»",
  "𝐀𝐁", "😀", "ﬁ", "ß", "Straße", "ύψους", "ακυρώσιμη", "δικαιοπραξία", "σύμβασης",
];

test("Analyzer gives exactly the reference pipeline's tokens on arbitrary text", () => {
  const tok = greekStemmerTokenizer();
  fc.assert(
    fc.property(fc.array(fc.oneof(fc.constantFrom(...pieces), fc.string({ maxLength: 4 }), fc.string({ unit: "binary", maxLength: 3 })), { maxLength: 30 }), (parts) => {
      const text = parts.join("");
      assert.deepEqual(tok.tokenize(text), reference(text));
    }),
    { numRuns: 2000 },
  );
});

test("term ids follow first appearance; known words are interned once", () => {
  const analyzer = new Analyzer(greekStemmerTokenizer());
  const a = analyzer.analyze("Η σύμβαση λύεται. Η σύμβαση ακυρώνεται.");
  assert.deepEqual(Array.from(a), [0, 1, 0, 2]);
  assert.equal(analyzer.terms.length, 3);
  assert.equal(analyzer.terms[0], "ΣΥΜΒΑΣ");
  assert.equal(analyzer.termIds.get(analyzer.terms[2]), 2);
  // Thousands of distinct words force table growth; results must not change.
  const many = Array.from({ length: 5000 }, (_, i) => `λέξη${i}`).join(" ");
  assert.deepEqual(analyzer.tokenize(many), reference(many));
});

test("foldUpper equals NFD + mark removal + upper-case for every BMP character", () => {
  for (let c = 0; c < 0x10000; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    const s = String.fromCharCode(c);
    assert.equal(foldUpper(s), s.normalize("NFD").replace(/\p{M}/gu, "").toUpperCase(), `U+${c.toString(16)}`);
  }
});

test("grnlp tokens: lower-case, unaccented, punctuation split off and dropped", () => {
  assert.deepEqual(grnlpTokenizer().tokenize("Κατά το άρθρο 281 Α.Κ., η «άσκηση» του δικαιώματος"), [
    "κατα", "το", "αρθρο", "281", "α", "κ", "η", "ασκηση", "του", "δικαιωματος",
  ]);
});
