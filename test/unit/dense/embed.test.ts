import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { apportion, embedItems } from "../../../lib/dense/embed";
import { openVectorStore, type VectorStore } from "../../../lib/store/vector-store";
import { presetFingerprint, renderTemplate, textKey } from "../../../lib/dense/presets";
import { EmbeddingError, type Embedder, type Side } from "../../../lib/models/embed";
import type { EmbeddingPreset } from "../../../lib/dense/presets";

const P: EmbeddingPreset = { name: "toy", provider: "openai", model: "toy", queryTemplate: "q: {text}", documentTemplate: "d: {text}" };
const items = Array.from({ length: 10 }, (_, i) => ({ id: `ΑΚ::${i + 1}`, text: `άρθρο ${i + 1}` }));

const root = mkdtempSync(path.join(os.tmpdir(), "gbr-embed-"));
after(() => rmSync(root, { recursive: true, force: true }));
let stores = 0;
/** A fresh vector store of its own (LanceDB, in the test's temporary folder). */
const tempStore = () => openVectorStore(path.join(root, `lancedb-${stores++}`), { log: () => {} });
/** How many of `items`' document vectors under P the store holds. */
async function storedItems(store: VectorStore): Promise<number> {
  const keys = items.map((it) => textKey(`document\n${renderTemplate(P, "document", it.text)}`));
  return (await store.get(presetFingerprint(P), keys)).size;
}

/** A scripted embedder: vectors from the text length, with faults chosen per call number. */
function fake(opts: { failOn?: number; bad?: "count" | "nan" | "dims"; maxBatch?: number; usage?: (texts: string[]) => number | undefined } = {}) {
  const calls: { texts: string[]; side: Side }[] = [];
  const e: Embedder = {
    id: "fake",
    maxBatch: opts.maxBatch ?? 3,
    endpoint: "local",
    async embed(texts, side) {
      calls.push({ texts, side });
      if (opts.failOn === calls.length) throw new EmbeddingError("HTTP 500 from the server", "PROVIDER");
      let vectors = texts.map((t) => Float32Array.of(t.length, side === "query" ? 1 : 2, 3));
      if (opts.bad === "count" && calls.length === 2) vectors = vectors.slice(1);
      if (opts.bad === "nan" && calls.length === 2) vectors[1] = Float32Array.of(1, NaN, 3);
      if (opts.bad === "dims" && calls.length === 2) vectors[0] = Float32Array.of(1, 2);
      return { vectors, tokens: opts.usage ? opts.usage(texts) : texts.length * 2 };
    },
  };
  return { e, calls };
}

test("templates per side, batching by maxBatch, vectors in item order, usage counted", async () => {
  const { e, calls } = fake();
  const r = await embedItems(items, "document", P, e, await tempStore(), { concurrency: 1 });
  assert.equal(calls.length, 4);
  assert.deepEqual(calls[0].texts, ["d: άρθρο 1", "d: άρθρο 2", "d: άρθρο 3"]);
  assert.deepEqual(r.vectors.map((v) => v[0]), items.map((it) => `d: ${it.text}`.length));
  assert.deepEqual({ requests: r.requests, tokens: r.tokens, estimatedTokens: r.estimatedTokens, cached: r.cached }, { requests: 4, tokens: 20, estimatedTokens: 0, cached: 0 });
});

test("a second run sends nothing; the side is part of the cache key", async () => {
  const cache = await tempStore();
  const { e, calls } = fake();
  await embedItems(items, "document", P, e, cache);
  const before = calls.length;
  const again = await embedItems(items, "document", P, e, cache);
  assert.equal(calls.length, before);
  assert.equal(again.cached, 10);
  const same: EmbeddingPreset = { ...P, queryTemplate: "{text}", documentTemplate: "{text}" };
  await embedItems(items.slice(0, 2), "document", same, e, cache);
  const n = calls.length;
  await embedItems(items.slice(0, 2), "query", same, e, cache);
  assert.equal(calls.length, n + 1, "same text on the other side is embedded again");
});

test("a failure half-way keeps finished batches; the rerun embeds only the rest", async () => {
  const cache = await tempStore();
  const first = fake({ failOn: 3 });
  await assert.rejects(embedItems(items, "document", P, first.e, cache, { concurrency: 1 }), (err: unknown) => {
    assert.ok(err instanceof EmbeddingError);
    assert.match(err.message, /articles ΑΚ::7, ΑΚ::8, ΑΚ::9 with toy \(batch 3 of 4\) failed: HTTP 500/);
    return true;
  });
  assert.equal(await storedItems(cache), 6);
  const second = fake();
  const r = await embedItems(items, "document", P, second.e, cache, { concurrency: 1 });
  assert.deepEqual(second.calls.map((c) => c.texts.length), [3, 1]);
  assert.equal(r.cached, 6);
});

test("wrong vector count, NaN and a changed dimension are rejected naming the item, and not cached", async () => {
  for (const [bad, re] of [
    ["count", /returned 2 vectors for 3 texts/],
    ["nan", /vector for 'ΑΚ::5' contains NaN at position 1/],
    ["dims", /vector for 'ΑΚ::4' has 2 dimensions, expected 3/],
  ] as const) {
    const cache = await tempStore();
    await assert.rejects(embedItems(items, "document", P, fake({ bad }).e, cache, { concurrency: 1 }), re);
    assert.equal(await storedItems(cache), 3, `${bad}: only the first batch is stored`);
  }
});

test("duplicate texts are embedded once; progress reaches the total", async () => {
  const dup = [...items.slice(0, 3), ...items.slice(0, 3)].map((it, i) => ({ ...it, id: `x${i}` }));
  const { e, calls } = fake({ maxBatch: 10 });
  const seen: number[] = [];
  const r = await embedItems(dup, "query", P, e, await tempStore(), { onProgress: (d) => seen.push(d) });
  assert.equal(calls[0].texts.length, 3);
  assert.equal(r.vectors.length, 6);
  assert.deepEqual(r.vectors[4], r.vectors[1]);
  assert.equal(seen[seen.length - 1], 6);
});

/** Words as a stand-in for o200k tokens (what the estimate would be). */
const words = (t: string) => t.split(/\s+/).filter(Boolean).length;

test("a rerun served from the cache reports exactly the provider's tokens of the first run", async () => {
  const cache = await tempStore();
  // The provider counts 7 per text plus 1 per request: nothing an estimate would reproduce.
  const usage = (texts: string[]) => texts.length * 7 + 1;
  const first = await embedItems(items, "document", P, fake({ usage }).e, cache, { estimateTokens: words, concurrency: 1 });
  assert.equal(first.tokens, 10 * 7 + 4);
  assert.equal(first.estimatedTokens, 0);
  const second = fake({ usage });
  const again = await embedItems(items, "document", P, second.e, cache, { estimateTokens: words });
  assert.equal(second.calls.length, 0);
  assert.deepEqual({ tokens: again.tokens, estimatedTokens: again.estimatedTokens, cached: again.cached }, { tokens: first.tokens, estimatedTokens: 0, cached: 10 });
  // A mix of cached and fresh items adds up the same way.
  const more = [...items, { id: "ΑΚ::11", text: "άρθρο 11" }];
  const mixed = await embedItems(more, "document", P, fake({ usage }).e, cache, { estimateTokens: words });
  assert.equal(mixed.tokens, first.tokens + 8);
});

test("a provider without usage gives estimated tokens, marked as such, on the first run and from the cache", async () => {
  const cache = await tempStore();
  const expected = items.reduce((n, it) => n + words(`d: ${it.text}`), 0);
  const r = await embedItems(items, "document", P, fake({ usage: () => undefined }).e, cache, { estimateTokens: words });
  assert.deepEqual({ tokens: r.tokens, estimatedTokens: r.estimatedTokens }, { tokens: expected, estimatedTokens: expected });
  const again = await embedItems(items, "document", P, fake().e, cache, { estimateTokens: words });
  assert.deepEqual({ tokens: again.tokens, estimatedTokens: again.estimatedTokens, cached: again.cached }, { tokens: expected, estimatedTokens: expected, cached: 10 });
  // Without an estimator nothing can be said: 0, not a guess.
  const blind = await embedItems(items, "document", P, fake({ usage: () => undefined }).e, await tempStore());
  assert.deepEqual({ tokens: blind.tokens, estimatedTokens: blind.estimatedTokens }, { tokens: 0, estimatedTokens: 0 });
});

test("cached rows without a stored count (old tables) are estimated; rows with one are not", async () => {
  const cache = await tempStore();
  const fp = presetFingerprint(P);
  const key = (i: number) => textKey(`document\n${renderTemplate(P, "document", items[i].text)}`);
  await cache.put(fp, [
    { key: key(0), id: items[0].id, side: "document", vector: Float32Array.of(1, 2, 3) },
    { key: key(1), id: items[1].id, side: "document", vector: Float32Array.of(1, 2, 3), tokens: 40 },
  ]);
  const r = await embedItems(items.slice(0, 2), "document", P, fake().e, cache, { estimateTokens: words });
  assert.equal(r.cached, 2);
  assert.deepEqual({ tokens: r.tokens, estimatedTokens: r.estimatedTokens }, { tokens: 3 + 40, estimatedTokens: 3 });
});

test("a batch's count is split over its texts by their estimates and stored with each vector", async () => {
  const cache = await tempStore();
  const texts = [
    { id: "a", text: "ένα" },
    { id: "b", text: "ένα δύο τρία" },
    { id: "c", text: "ένα δύο τρία τέσσερα πέντε έξι" },
  ];
  const p: EmbeddingPreset = { ...P, documentTemplate: "{text}" };
  await embedItems(texts, "document", p, fake({ usage: () => 101 }).e, cache, { estimateTokens: words });
  const keys = texts.map((t) => textKey(`document\n${t.text}`));
  const got = await cache.get(presetFingerprint(p), keys);
  // 101 over weights 1 : 3 : 6 = 10.1, 30.3, 60.6 → 10, 30, 61 (the largest remainder gets the spare token).
  assert.deepEqual(keys.map((k) => got.get(k)!.tokens), [10, 30, 61]);
});

test("duplicate items count once per item, on the first run as from the cache", async () => {
  const dup = [items[0], { ...items[0], id: "copy" }];
  const cache = await tempStore();
  const first = await embedItems(dup, "query", P, fake({ usage: () => 5 }).e, cache, { estimateTokens: words });
  const again = await embedItems(dup, "query", P, fake().e, cache, { estimateTokens: words });
  assert.equal(first.requests, 1);
  assert.equal(first.tokens, 10);
  assert.equal(again.tokens, 10);
});

test("apportion: largest remainder, exact sums, equal split of zero weights", () => {
  assert.deepEqual(apportion(10, [1, 1, 1]), [4, 3, 3]);
  assert.deepEqual(apportion(7, [0, 0]), [4, 3]);
  assert.deepEqual(apportion(0, [5, 2]), [0, 0]);
  assert.deepEqual(apportion(9, [0, 3]), [0, 9]);
});

test("apportion (property): shares are integers summing to the total, each within 1 of its exact quota", () => {
  fc.assert(
    fc.property(fc.nat({ max: 1_000_000 }), fc.array(fc.nat({ max: 100_000 }), { minLength: 1, maxLength: 64 }), (total, weights) => {
      const shares = apportion(total, weights);
      assert.equal(shares.length, weights.length);
      assert.equal(shares.reduce((a, b) => a + b, 0), total);
      const sum = weights.reduce((a, b) => a + b, 0);
      const w = sum > 0 ? weights : weights.map(() => 1);
      const sumW = sum > 0 ? sum : weights.length;
      shares.forEach((s, i) => {
        assert.ok(Number.isInteger(s) && s >= 0);
        // |s − total·w/Σw| < 1, in integers: |s·Σw − total·w| < Σw.
        assert.ok(Math.abs(s * sumW - total * w[i]) < sumW, `share ${s} of ${total} for weight ${w[i]} / ${sumW}`);
      });
      // Proportional: a larger weight never gets a smaller share.
      for (let i = 0; i < w.length; i++) for (let j = 0; j < w.length; j++) if (w[i] > w[j]) assert.ok(shares[i] >= shares[j]);
    }),
    { numRuns: 300 },
  );
});
