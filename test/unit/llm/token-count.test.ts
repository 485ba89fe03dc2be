// countTokens counts piece by piece with its own cache, and countTokensJoined counts a text part
// by part: both must give gpt-tokenizer's own count of the whole text, on real statute text and
// on text built to hit the pre-tokenizer's edge cases (line feeds before "/", spaces, digits,
// special-token markers).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { countTemplated, countTokens, countTokensJoined } from "../../../lib/text/tokens";
import { o200kHarmony } from "../../../lib/util/sdk";
import { CHAT_OVERHEAD_TOKENS, observerPromptTokens } from "../../../lib/llm/react-batches";
import { observerMessage } from "../../../lib/llm/react-prompts";
import { requireShared } from "../../helpers/shared";

/** The same count via gpt-tokenizer's public `countTokens`, uncached; special-token texts count as ordinary text. */
function referenceCountTokens(text: string): number {
  return text.length === 0 ? 0 : o200kHarmony().countTokens(text, { disallowedSpecial: new Set<string>() });
}

function corpusTexts(limit: number): { id: string; text: string }[] {
  const lines = readFileSync(requireShared("data", "greeklaws-2021", "corpus.jsonl"), "utf8").trim().split("\n");
  return lines.slice(0, limit).map((l) => {
    const d = JSON.parse(l) as { _id: string; title?: string; text: string };
    return { id: d._id, text: d.text };
  });
}

/** A small seeded generator (mulberry32), so a failure names a case that can be rerun. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const EDGE_BITS = ["\n", "\n\n", "\r\n", " \n", "/", "\n/", "]", "[DOC]", " ", "   ", "\t", "123", "4567", "'s", "ΑΚ::914", "<|endoftext|>", "α", "Ά", "x", ".", "…", "\u00a0", "🙂"];

function edgeText(r: () => number, n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += EDGE_BITS[Math.floor(r() * EDGE_BITS.length)];
  return s;
}

test("countTokens equals gpt-tokenizer's own count on 600 statute articles and on edge-case text", () => {
  const docs = corpusTexts(600);
  for (const d of docs) assert.equal(countTokens(d.text), referenceCountTokens(d.text), d.id);
  const r = rng(7);
  for (let i = 0; i < 300; i++) {
    const s = edgeText(r, 1 + Math.floor(r() * 40));
    assert.equal(countTokens(s), referenceCountTokens(s), JSON.stringify(s));
  }
  // The cache answers the second time the same as the first.
  assert.equal(countTokens(docs[0].text), referenceCountTokens(docs[0].text));
  assert.equal(countTokens(""), 0);
});

test("countTokensJoined equals the count of the joined text, wherever the parts are cut", () => {
  const docs = corpusTexts(200);
  const r = rng(11);
  for (let i = 0; i < 400; i++) {
    // Real text and edge-case text, cut at random places, often right after a line feed or a mark before a space.
    const source = i % 2 === 0 ? docs[Math.floor(r() * docs.length)].text + edgeText(r, 6) : edgeText(r, 60);
    const parts: string[] = [];
    let at = 0;
    while (at < source.length) {
      let next = at + 1 + Math.floor(r() * 80);
      const nl = source.indexOf("\n", at);
      const mark = source.slice(at).search(/[^\s\p{L}\p{N}](?= )/u); // "] text": a cut the counter takes
      if (nl >= at && r() < 0.5) next = nl + 1;
      else if (mark >= 0 && r() < 0.5) next = at + mark + 1;
      parts.push(source.slice(at, Math.min(next, source.length)));
      at = Math.min(next, source.length);
    }
    assert.equal(countTokensJoined(parts), referenceCountTokens(parts.join("")), JSON.stringify(parts.slice(0, 8)));
  }
});

test("a numbered passage (\"[3] text\") counts the same apart from its number as joined to it", () => {
  const docs = corpusTexts(50);
  for (const [i, d] of docs.entries()) {
    for (const text of [d.text, ` ${d.text}`, `«${d.text}»`, `1. ${d.text}`, `\n${d.text}`, ` \n${d.text}`]) {
      const parts = [`[${i + 1}]`, ` ${text}`, "\n\n", `[${i + 2}]`, "", " ", "—", " /x", "]", " ", "\u{1F600} a"];
      assert.equal(countTokensJoined(parts), referenceCountTokens(parts.join("")), JSON.stringify(parts.slice(0, 2)));
    }
  }
});

test("countTemplated equals the count of the rendered text, for every preset's kind of template", () => {
  const docs = corpusTexts(40);
  const templates = ["{text}", "query: {text}", "search_document: {text}", "title: none | text: {text}", "Instruct: Βρες άρθρα\nQuery:{text}", "x{text}", "{text} end"];
  for (const t of templates) {
    for (const d of docs) {
      for (const text of [d.text, ` ${d.text}`, `1. ${d.text}`]) {
        const rendered = t.split("{text}").join(text);
        assert.equal(countTemplated(t, rendered), referenceCountTokens(rendered), JSON.stringify([t, text.slice(0, 30)]));
      }
    }
  }
});

test("observer prompts counted by parts equal the whole rendered prompt's count, for any template", () => {
  const docs = corpusTexts(120);
  const q = "Ποιες είναι οι προϋποθέσεις της αδικοπραξίας;";
  const templates = [
    "Ερώτηση:\n{original_query}\n\nΆρθρα:\n{retrieved_docs_block}\n\nΑπάντησε.", // block after a line feed
    "Ερώτηση: {original_query} Άρθρα: {retrieved_docs_block}", // after a space, nothing after
    "{retrieved_docs_block}/{original_query}", // first thing, "/" after
    "Δύο φορές:\n{retrieved_docs_block}\n---\n{retrieved_docs_block}", // twice: counted whole
    "Χωρίς άρθρα: {original_query}", // none
  ];
  const r = rng(3);
  for (const user of templates) {
    const prompts = { OBSERVER_SYSTEM: "Κράτα τα χρήσιμα άρθρα.\n", OBSERVER_USER: user };
    const count = observerPromptTokens(prompts, q);
    for (let i = 0; i < 15; i++) {
      const start = Math.floor(r() * 100);
      const batch = docs.slice(start, start + Math.floor(r() * 20));
      const whole = referenceCountTokens(prompts.OBSERVER_SYSTEM + observerMessage(prompts, q, batch)) + CHAT_OVERHEAD_TOKENS;
      assert.equal(count(batch), whole, `${JSON.stringify(user)} with ${batch.length} articles from ${start}`);
    }
  }
});
