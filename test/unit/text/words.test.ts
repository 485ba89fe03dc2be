import { test } from "node:test";
import assert from "node:assert/strict";
import { words } from "../../../lib/text/normalize";

test("words are Python's \\w+ matches: letters and digits of any script, underscore, astral letters; marks split", () => {
  assert.deepEqual(words("Άρθρο 5, παρ. 2α"), ["Άρθρο", "5", "παρ", "2α"]);
  assert.deepEqual(words("٣_x 𝔸b e\u0301 §"), ["٣_x", "𝔸b", "e"]);
});
