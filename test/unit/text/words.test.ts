// `words` scans by a table of the characters WORD_RE matches; it must give WORD_RE's matches
// exactly, on statute text and on text mixing every kind of character, astral ones included.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { wordCount, words, WORD_RE } from "../../../lib/text/normalize";
import { requireShared } from "../../helpers/shared";

const byRegex = (text: string) => text.match(WORD_RE) ?? [];

test("words (and wordCount) equal matching WORD_RE on every article of greeklaws-2021", () => {
  const lines = readFileSync(requireShared("data", "greeklaws-2021", "corpus.jsonl"), "utf8").trim().split("\n");
  for (const l of lines) {
    const d = JSON.parse(l) as { _id: string; text: string; title?: string };
    for (const t of [d.text, d.title ?? ""]) {
      assert.deepEqual(words(t), byRegex(t), d._id);
      assert.equal(wordCount(t), byRegex(t).length, d._id);
    }
  }
});

test("words (and wordCount) equal matching WORD_RE on any text: Greek, Latin, digits of other scripts, marks, symbols, astral characters", () => {
  const pieces = fc.oneof(
    fc.constantFrom("Άρθρο", "παρ.", "2α", "_", " ", "\n", "—", "§", "٣", "ǅ", "ͅ", "\u0301", "\u00a0", "🙂", "𝔸", "\ud800", "x\u200d", "ά", "ΐ", "Ⅻ"),
    fc.string({ unit: "binary", maxLength: 6 }),
  );
  fc.assert(
    fc.property(fc.array(pieces, { maxLength: 20 }), (parts) => {
      const text = parts.join("");
      assert.deepEqual(words(text), byRegex(text));
      assert.equal(wordCount(text), byRegex(text).length);
    }),
    { numRuns: 3000 },
  );
});
