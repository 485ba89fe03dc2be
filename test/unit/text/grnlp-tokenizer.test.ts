/**
 * The cached gr-nlp tokenizer (each whitespace chunk folded once) gives the tokens of folding
 * and splitting the whole text, on adversarial random text and on a whole statute corpus.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import fc from "fast-check";
import { GRNLP_DROPPED, grnlpSlices, grnlpTokenizer, grnlpTokensDirect } from "../../../lib/text/tokenizers";
import { readBeir } from "../../../lib/data/beir";
import { requireShared } from "../../helpers/shared";

test("random text: final sigma, apostrophes, combining marks, odd spaces and punctuation give the same tokens", () => {
  // Σ next to case-ignorable characters (apostrophes, marks, U+00AD) is where lower-casing looks at context.
  const pieces = ["Σ", "ς", "σ", "ΟΔΟΣ", "Α", "α", "ά", "ΐ", "'", "’", "\\u0301", "\\u00ad", " ", "  ", "\\u00a0", "\\u2000", "\\u2003", "\\n", "\\t", "\\u0001", ".", ";", "\\u037e", "\\u0387", "\\u1fef", "·", "-", "1", "x", "É", "İ"].map((p) =>
    JSON.parse(`"${p}"`),
  );
  const text = fc.array(fc.constantFrom(...pieces), { maxLength: 40 }).map((a) => a.join(""));
  const tok = grnlpTokenizer();
  fc.assert(
    fc.property(text, (t) => {
      assert.deepEqual(tok.tokenize(t), grnlpTokensDirect(t), JSON.stringify(t));
    }),
    { numRuns: 3000, seed: 7 },
  );
});

test("a whole corpus (greeklaws-2021, 5,692 articles) gives the same tokens", async () => {
  const dir = path.dirname(requireShared("data", "greeklaws-2021", "corpus.jsonl"));
  const bench = await readBeir(dir, { queriesFile: path.join(dir, "queries-sample.jsonl") });
  const tok = grnlpTokenizer();
  for (const d of bench.docs) assert.deepEqual(tok.tokenize(d.text), grnlpTokensDirect(d.text), d.id);
  for (const q of bench.queries) assert.deepEqual(tok.tokenize(q.text), grnlpTokensDirect(q.text), q.id);
});

test("the authors' rule: 2,000-code-point slices tokenised apart, their fixed punctuation set dropped, other marks kept", () => {
  const tok = grnlpTokenizer();
  // A word across position 2,000 becomes two tokens, as text[i:i+2000] cuts it.
  const pad = "α ".repeat(998) + "βγ";
  assert.equal(pad.length, 1998);
  // "βγ" + "δεζ" spans characters 1,996–2,000: the first slice ends after "βγδε", the second starts with "ζ".
  assert.deepEqual(tok.tokenize(pad + "δεζ ηθ").slice(-3), ["βγδε", "ζ", "ηθ"]);
  assert.deepEqual(tok.tokenize("α ".repeat(900) + "βγδεζ ηθ").slice(-2), ["βγδεζ", "ηθ"], "no cut below 2,000");
  // Counted in code points: an astral character before the boundary moves it by one code point, not two.
  const astral = "𝔸" + "α".repeat(1999) + "β";
  assert.deepEqual(grnlpSlices(astral).map((s) => Array.from(s).length), [2000, 1]);
  assert.deepEqual(tok.tokenize(astral).slice(-1), ["β"]);
  // Punctuation: the fixed set goes, any other mark stays as a token of its own.
  assert.deepEqual(tok.tokenize("Άρθρο 5 § 2, «όπως» … και ― το ¶ τέλος."), ["αρθρο", "5", "§", "2", "οπως", "και", "―", "το", "¶", "τελος"]);
  for (const p of ["!", "·", "΄", "—", "«", "»", "“", "”", "…", "‚", "„", "‘", "’", "–", "؛", "،"]) assert.ok(GRNLP_DROPPED.has(p), p);
  assert.deepEqual(tok.tokenize("α—β"), ["α", "β"]);
});
