/**
 * The Gemini embedder through the real @google/genai SDK against the local Gemini double:
 * what goes over the wire (path, header, task types, sizes, one request per batch), what comes
 * back (order, tokens), and how failures surface (retries, status, no key in messages).
 */
import { readConfig } from "../../lib/config";
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { inspect } from "node:util";
import { GeminiEmbeddingError, geminiEmbedder, geminiEmbedderFrom } from "../../lib/providers/gemini-embedder";
import { backoffDelay, retryAfterMs } from "../../lib/util/retry";
import { EmbeddingError } from "../../lib/models/embed";
import { fakeGeminiVector, startGeminiDouble, type GeminiDouble } from "../fakes/gemini-server";

const KEY = "AIzaTEST-secret-key-0123456789";
const MODEL = "gemini-embedding-001";

/** Everything a person or a log could see of an error. */
const visible = (e: unknown) => `${String(e)}\n${(e as Error).stack ?? ""}\n${inspect(e, { depth: 5 })}\n${JSON.stringify(e)}`;

describe("gemini embedder through the SDK", () => {
  let gemini: GeminiDouble;
  before(async () => {
    gemini = await startGeminiDouble({ apiKey: KEY, usage: true });
  });
  after(() => gemini.close());
  beforeEach(() => {
    gemini.requests.length = 0;
  });

  // Small vectors and millisecond backoff keep the suite fast; the protocol is the same.
  const make = (extra: Partial<Parameters<typeof geminiEmbedder>[0]> = {}) =>
    geminiEmbedder({ apiKey: KEY, baseUrl: gemini.url, dims: 16, retryBaseMs: 1, retryMaxMs: 5, ...extra });

  it("sends one batchEmbedContents request per batch, with the key in the header", async () => {
    const texts = Array.from({ length: 37 }, (_, i) => `Άρθρο ${i}: ο μισθωτής οφείλει ${i} μισθώματα`);
    const { vectors } = await make().embed(texts, "document");
    assert.equal(gemini.count(), 1);
    const req = gemini.requests[0];
    assert.equal(req.method, "POST");
    assert.equal(req.path, `/v1beta/models/${MODEL}:batchEmbedContents`);
    assert.equal(req.keyPresent, true);
    assert.equal(req.keyMatches, true);
    assert.deepEqual(req.query, {}, "the key must not travel in the URL");
    assert.ok(!JSON.stringify(req.headers).includes(KEY), "the double keeps no copy of the key");
    assert.equal(req.body.requests.length, 37);
    assert.equal(vectors.length, 37);
  });

  it("uses RETRIEVAL_QUERY for queries and RETRIEVAL_DOCUMENT for documents, with outputDimensionality", async () => {
    const e = make();
    await e.embed(["ερώτημα"], "query");
    await e.embed(["άρθρο"], "document");
    const [q, d] = gemini.requests.map((r) => r.body.requests[0]);
    assert.equal(q.taskType, "RETRIEVAL_QUERY");
    assert.equal(d.taskType, "RETRIEVAL_DOCUMENT");
    assert.equal(q.outputDimensionality, 16);
    assert.equal(d.outputDimensionality, 16);
    assert.equal(q.model, `models/${MODEL}`);
    assert.deepEqual(q.content, { role: "user", parts: [{ text: "ερώτημα" }] });
  });

  it("returns Float32Array vectors in input order, with tokens from usageMetadata", async () => {
    const texts = ["γ τρίτο κείμενο", "α", "β δύο"];
    const { vectors, tokens } = await make().embed(texts, "query");
    assert.equal(tokens, 3 + 1 + 2);
    texts.forEach((t, i) => {
      assert.ok(vectors[i] instanceof Float32Array);
      assert.equal(vectors[i].length, 16);
      assert.deepEqual([...vectors[i]], [...Float32Array.from(fakeGeminiVector(MODEL, "RETRIEVAL_QUERY", t, 16))]);
    });
    // The side changes the vector (the double hashes the task type like the real model uses it).
    const doc = await make().embed(["α"], "document");
    assert.notDeepEqual([...doc.vectors[0]], [...vectors[1]]);
  });

  it("has a stable id and reports its size and batch limit", async () => {
    const e = geminiEmbedder({ apiKey: KEY });
    assert.equal(e.id, "gemini:gemini-embedding-001@3072");
    assert.equal(e.dims, 3072);
    assert.equal(e.maxBatch, 100);
    assert.equal(geminiEmbedder({ apiKey: KEY, model: "models/x-embed", dims: 768 }).id, "gemini:x-embed@768");
    assert.deepEqual(await make().embed([], "query"), { vectors: [], tokens: 0 });
    assert.equal(gemini.count(), 0);
    await assert.rejects(make({ batchSize: 2 }).embed(["a", "b", "c"], "query"), RangeError);
  });

  it("reports undefined tokens (unknown, not free) when the API gives no usage, as Gemini's embed answers do", async () => {
    const plain = await startGeminiDouble({ apiKey: KEY });
    try {
      const { tokens } = await geminiEmbedder({ apiKey: KEY, baseUrl: plain.url, dims: 8 }).embed(["α β"], "query");
      assert.equal(tokens, undefined);
    } finally {
      await plain.close();
    }
  });

  it("endpoint: the API host by default, else the base URL's scheme, host and port", () => {
    assert.equal(geminiEmbedder({ apiKey: KEY }).endpoint, "https://generativelanguage.googleapis.com");
    assert.equal(make().endpoint, gemini.url);
    assert.equal(geminiEmbedder({ apiKey: KEY, baseUrl: "https://proxy.example.org/gemini/v1beta?key=abc" }).endpoint, "https://proxy.example.org");
  });

  it("fromEnv passes batchSize on (one text per call as the authors embedded)", async () => {
    const e = geminiEmbedderFrom(readConfig({ GEMINI_API_KEY: KEY, GBR_GEMINI_BASE_URL: gemini.url }), MODEL, 8, { batchSize: 1 });
    assert.equal(e.maxBatch, 1);
    await assert.rejects(e.embed(["α", "β"], "query"), RangeError);
  });

  it("waits out 429 (Retry-After) and then succeeds", async () => {
    gemini.fault("429", 2, { retryAfter: "0" });
    const { vectors } = await make().embed(["α", "β"], "document");
    assert.equal(vectors.length, 2);
    assert.deepEqual(gemini.requests.map((r) => r.status), [429, 429, 200]);
  });

  it("honours Retry-After seconds rather than its own short backoff", async () => {
    gemini.fault("429", 1, { retryAfter: "0.3" });
    const t0 = Date.now();
    await make().embed(["α"], "query");
    assert.ok(Date.now() - t0 >= 280, `retried after ${Date.now() - t0} ms`);
    assert.equal(gemini.count(), 2);
  });

  it("reads Google's RetryInfo delay from the body when there is no header wait", async () => {
    gemini.fault("429", 1, { retryAfter: "", retryDelay: "0.2s" });
    const t0 = Date.now();
    await make().embed(["α"], "query");
    assert.ok(Date.now() - t0 >= 180, `retried after ${Date.now() - t0} ms`);
  });

  it("retries a dropped connection and a slow answer (per-attempt timeout)", async () => {
    gemini.fault("drop", 1);
    gemini.fault("slow", 1, { delayMs: 1500 });
    const { vectors } = await make({ timeoutMs: 300 }).embed(["α"], "query");
    assert.equal(vectors.length, 1);
    assert.equal(gemini.count(), 3);
  });

  it("gives up on a persistent 500 after `attempts`, with the status and the server's message", async () => {
    // The server echoes the key in its message: the embedder must scrub it.
    gemini.fault("500", 3, { message: `backend exploded near ${KEY}` });
    const err = await make({ attempts: 3 }).embed(["α", "β"], "document").then(
      () => assert.fail("should fail"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof EmbeddingError);
    assert.ok(err instanceof GeminiEmbeddingError);
    assert.equal(err.code, "PROVIDER");
    assert.equal(err.status, 500);
    assert.equal(err.attempts, 3);
    assert.match(err.message, /HTTP 500 INTERNAL/);
    assert.match(err.message, /backend exploded near \[redacted\]/);
    assert.match(err.message, /3 attempts/);
    assert.ok(!visible(err).includes(KEY), "the key must never appear in an error");
    assert.deepEqual(gemini.requests.map((r) => r.status), [500, 500, 500]);
  });

  it("does not retry a refused key, and never shows it", async () => {
    const wrong = "AIzaWRONG-key-should-not-leak";
    const err = await geminiEmbedder({ apiKey: wrong, baseUrl: gemini.url, dims: 8, retryBaseMs: 1 })
      .embed(["α"], "query")
      .then(
        () => assert.fail("should fail"),
        (e: unknown) => e as GeminiEmbeddingError,
      );
    assert.equal(err.code, "PROVIDER");
    assert.equal(err.status, 400);
    assert.match(err.message, /API key not valid/);
    assert.ok(!visible(err).includes(wrong));
    assert.equal(gemini.count(), 1);
    assert.equal(gemini.requests[0].keyPresent, true);
    assert.equal(gemini.requests[0].keyMatches, false);
  });

  it("rejects a wrong vector count or size without retrying", async () => {
    gemini.fault("wrong-count", 1);
    await assert.rejects(make().embed(["α", "β", "γ"], "document"), (e: EmbeddingError) => e.code === "COUNT_MISMATCH");
    gemini.fault("wrong-dims", 1);
    await assert.rejects(make().embed(["α"], "query"), (e: EmbeddingError) => e.code === "BAD_VECTOR" && /17 values, expected 16/.test(e.message));
    assert.equal(gemini.count(), 2);
  });

  it("keeps at most `concurrency` requests at the server", async () => {
    const slow = await startGeminiDouble({ apiKey: KEY });
    try {
      slow.fault("slow", 6, { delayMs: 80 });
      const e = geminiEmbedder({ apiKey: KEY, baseUrl: slow.url, dims: 8, concurrency: 2 });
      const results = await Promise.all(Array.from({ length: 6 }, (_, i) => e.embed([`κείμενο ${i}`], "document")));
      assert.equal(results.length, 6);
      assert.equal(slow.count(), 6);
      assert.equal(slow.peakInFlight(), 2);
    } finally {
      await slow.close();
    }
  });

  it("fromEnv: NOT_CONFIGURED without a key; GEMINI_API_KEY, then GOOGLE_API_KEY, and GBR_GEMINI_BASE_URL", async () => {
    assert.throws(
      () => geminiEmbedderFrom(readConfig({}), undefined, undefined),
      (e: unknown) => e instanceof EmbeddingError && e.code === "NOT_CONFIGURED" && /GEMINI_API_KEY/.test(e.message),
    );
    assert.throws(() => geminiEmbedderFrom(readConfig({ GEMINI_API_KEY: "  " }), undefined, undefined), /GEMINI_API_KEY/);
    const e = geminiEmbedderFrom(readConfig({ GOOGLE_API_KEY: KEY, GBR_GEMINI_BASE_URL: gemini.url }), MODEL, 8);
    assert.equal(e.id, `gemini:${MODEL}@8`);
    await e.embed(["α"], "query");
    assert.equal(gemini.requests[0].keyMatches, true);
    const both = geminiEmbedderFrom(readConfig({ GEMINI_API_KEY: KEY, GOOGLE_API_KEY: "other", GBR_GEMINI_BASE_URL: `${gemini.url}/` }), MODEL, 8);
    await both.embed(["α"], "query");
    assert.equal(gemini.requests[1].keyMatches, true, "GEMINI_API_KEY wins over GOOGLE_API_KEY");
  });
});

describe("backoff helpers", () => {
  it("parses Retry-After seconds and dates", () => {
    assert.equal(retryAfterMs("2"), 2000);
    assert.equal(retryAfterMs("0.5"), 500);
    assert.equal(retryAfterMs(null), undefined);
    assert.equal(retryAfterMs("soon"), undefined);
    const now = Date.parse("Wed, 21 Oct 2026 07:27:58 GMT");
    assert.equal(retryAfterMs("Wed, 21 Oct 2026 07:28:00 GMT", now), 2000);
    assert.equal(retryAfterMs("Wed, 21 Oct 2026 07:27:00 GMT", now), 0);
  });

  it("doubles up to the cap, with jitter in the upper half, and prefers the server's wait", () => {
    assert.equal(backoffDelay(1, { baseMs: 1000, random: () => 0 }), 500);
    assert.equal(backoffDelay(3, { baseMs: 1000, random: () => 0.999999 }) > 3999, true);
    assert.equal(backoffDelay(20, { baseMs: 1000, maxMs: 8000, random: () => 0 }), 4000);
    assert.equal(backoffDelay(5, { afterMs: 7000 }), 7000);
    assert.equal(backoffDelay(1, { afterMs: 10 * 60_000 }), 5 * 60_000);
  });
});
