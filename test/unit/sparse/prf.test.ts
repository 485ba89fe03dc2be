import { test } from "node:test";
import assert from "node:assert/strict";
import { Bm25Index } from "../../../lib/sparse/bm25";
import { expandQuery } from "../../../lib/sparse/prf";

test("sparse PRF adds the feedback documents' best tf·idf terms not in the query, ties by term text", () => {
  const docs = [
    ["Α", "Β", "Β", "Γ"],
    ["Α", "Δ", "Ε"],
    ["Ζ"],
    ["Η"],
    ["Θ"],
    ["Ι"],
  ];
  const index = Bm25Index.build(docs);
  const scorer = index.withParams();
  const id = (t: string) => index.vocab.get(t)!;
  const terms = index.terms();
  // Feedback: documents 0 and 1. tf: Α 2 (in query), Β 2, Γ 1, Δ 1, Ε 1.
  const expanded = expandQuery(scorer, [id("Α")], [0, 1], { terms: 3 });
  // Every one of Β, Γ, Δ, Ε is in one document (same idf), so Β (tf 2) comes first, then Γ, Δ by text.
  assert.deepEqual(expanded.map((t) => terms[t]), ["Α", "Β", "Γ", "Δ"]);
  const idf = scorer.idf[id("Β")];
  assert.ok(idf > 0);
});

test("terms whose idf is not > 0 are never added", () => {
  // Χ is in 3 of 4 documents: negative raw idf, floored to ε · mean idf; with ε = 0 the floor is 0.
  const index = Bm25Index.build([["Χ", "Ψ"], ["Χ"], ["Χ"], ["Ω"]]);
  const scorer = index.withParams({ epsilon: 0 });
  const terms = index.terms();
  const expanded = expandQuery(scorer, [index.vocab.get("Ω")!], [0, 1]);
  assert.deepEqual(expanded.map((t) => terms[t]), ["Ω", "Ψ"]);
});
