import { test } from "node:test";
import assert from "node:assert/strict";
import { embedItems, memoryCache } from "../../lib/dense/embed";
import { EmbeddingError, type Embedder, type Side } from "../../lib/dense/types";
import type { EmbeddingPreset } from "../../lib/dense/presets";

const P: EmbeddingPreset = { name: "toy", provider: "openai", model: "toy", queryTemplate: "q: {text}", documentTemplate: "d: {text}" };
const items = Array.from({ length: 10 }, (_, i) => ({ id: `ΑΚ::${i + 1}`, text: `άρθρο ${i + 1}` }));

/** A scripted embedder: vectors from the text length, with faults chosen per call number. */
function fake(opts: { failOn?: number; bad?: "count" | "nan" | "dims"; maxBatch?: number } = {}) {
  const calls: { texts: string[]; side: Side }[] = [];
  const e: Embedder = {
    id: "fake",
    maxBatch: opts.maxBatch ?? 3,
    async embed(texts, side) {
      calls.push({ texts, side });
      if (opts.failOn === calls.length) throw new EmbeddingError("HTTP 500 from the server", "PROVIDER");
      let vectors = texts.map((t) => Float32Array.of(t.length, side === "query" ? 1 : 2, 3));
      if (opts.bad === "count" && calls.length === 2) vectors = vectors.slice(1);
      if (opts.bad === "nan" && calls.length === 2) vectors[1] = Float32Array.of(1, NaN, 3);
      if (opts.bad === "dims" && calls.length === 2) vectors[0] = Float32Array.of(1, 2);
      return { vectors, tokens: texts.length * 2 };
    },
  };
  return { e, calls };
}

test("templates per side, batching by maxBatch, vectors in item order, usage counted", async () => {
  const { e, calls } = fake();
  const r = await embedItems(items, "document", P, e, memoryCache(), { concurrency: 1 });
  assert.equal(calls.length, 4);
  assert.deepEqual(calls[0].texts, ["d: άρθρο 1", "d: άρθρο 2", "d: άρθρο 3"]);
  assert.deepEqual(r.vectors.map((v) => v[0]), items.map((it) => `d: ${it.text}`.length));
  assert.deepEqual({ requests: r.requests, tokens: r.tokens, cached: r.cached }, { requests: 4, tokens: 20, cached: 0 });
});

test("a second run sends nothing; the side is part of the cache key", async () => {
  const cache = memoryCache();
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
  const cache = memoryCache();
  const first = fake({ failOn: 3 });
  await assert.rejects(embedItems(items, "document", P, first.e, cache, { concurrency: 1 }), (err: unknown) => {
    assert.ok(err instanceof EmbeddingError);
    assert.match(err.message, /articles ΑΚ::7, ΑΚ::8, ΑΚ::9 with toy \(batch 3 of 4\) failed: HTTP 500/);
    return true;
  });
  assert.equal(cache.size(), 6);
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
    const cache = memoryCache();
    await assert.rejects(embedItems(items, "document", P, fake({ bad }).e, cache, { concurrency: 1 }), re);
    assert.equal(cache.size(), 3, `${bad}: only the first batch is stored`);
  }
});

test("duplicate texts are embedded once; progress reaches the total", async () => {
  const dup = [...items.slice(0, 3), ...items.slice(0, 3)].map((it, i) => ({ ...it, id: `x${i}` }));
  const { e, calls } = fake({ maxBatch: 10 });
  const seen: number[] = [];
  const r = await embedItems(dup, "query", P, e, memoryCache(), { onProgress: (d) => seen.push(d) });
  assert.equal(calls[0].texts.length, 3);
  assert.equal(r.vectors.length, 6);
  assert.deepEqual(r.vectors[4], r.vectors[1]);
  assert.equal(seen[seen.length - 1], 6);
});
