/**
 * The OpenAI-compatible embedder driving the real `openai` SDK against a local double of the
 * API: what is sent, how answers are read, and how the SDK's retries, timeouts and our
 * concurrency cap behave. Retry-After: 0 keeps the retried cases fast; the SDK's own backoff
 * (0.5 s and up) is only paid by the timeout and dropped-connection cases.
 */
import { readConfig } from "../../lib/config";
import assert from "node:assert/strict";
import { after, afterEach, before, describe, test } from "node:test";
import { openaiEmbedder, openaiEmbedderFrom, type OpenAIEmbedderOptions } from "../../lib/providers/openai-embedder";
import { createSemaphore } from "../../lib/util/semaphore";
import { EmbeddingError } from "../../lib/models/embed";
import { fakeTokens, fakeVector, startOpenAIDouble, type OpenAIDouble } from "../fakes/openai-server";

for (const k of ["GBR_EMBED_BASE_URL", "GBR_EMBED_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_LOG"]) delete process.env[k];

const MODEL = "Qwen/Qwen3-Embedding-0.6B";
const SECRET = "sk-test-SECRET123";
// Already templated by the caller: the embedder must send them byte for byte.
const TEXTS = [
  "Instruct: Given a legal question with facts, retrieve relevant legal passages\nQuery:Ο Α τραυματίστηκε από το αυτοκίνητο του Β.",
  "Όποιος ζημιώσει άλλον παράνομα και υπαίτια έχει υποχρέωση να τον αποζημιώσει.",
  "  leading and trailing spaces kept  ",
  "$1 and {text} are not placeholders here",
];

let api: OpenAIDouble;
before(async () => {
  api = await startOpenAIDouble({ dims: 8 });
});
afterEach(() => api.reset());
after(() => api.close());

const make = (o: Partial<OpenAIEmbedderOptions> = {}) =>
  openaiEmbedder({ model: MODEL, baseURL: `${api.url}/v1`, apiKey: SECRET, maxRetries: 2, timeoutMs: 5000, ...o });

async function rejectsWith(p: Promise<unknown>, code: EmbeddingError["code"]): Promise<EmbeddingError> {
  const err = await p.then(
    () => assert.fail("expected an EmbeddingError"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof EmbeddingError, `expected EmbeddingError, got ${String(err)}`);
  assert.equal(err.code, code, err.message);
  return err;
}

describe("openaiEmbedder: the request", () => {
  test("sends the model and the texts exactly, asks for floats, sends no dimensions by default", async () => {
    const e = make({ dims: 8 });
    const { vectors, tokens } = await e.embed(TEXTS, "query");
    assert.equal(api.count(), 1, "one request for the whole call");
    assert.deepEqual(api.embeddingRequests(), [{ model: MODEL, input: TEXTS, encoding_format: "float" }]);
    assert.equal(api.requests[0].path, "/v1/embeddings");
    assert.equal(api.requests[0].authorization, `Bearer ${SECRET}`);
    assert.equal(vectors.length, TEXTS.length);
    TEXTS.forEach((t, i) => {
      assert.ok(vectors[i] instanceof Float32Array);
      assert.deepEqual(vectors[i], Float32Array.from(fakeVector(MODEL, t, 8)));
    });
    assert.equal(tokens, fakeTokens(TEXTS));
  });

  test("input \"string\": one text per request, the body exactly {model, input: \"<text>\"}", async () => {
    const e = make({ input: "string" });
    assert.equal(e.maxBatch, 1);
    const { vectors, tokens } = await e.embed([TEXTS[0]], "query");
    assert.deepEqual(api.requests[0].body, { model: MODEL, input: TEXTS[0] });
    assert.equal(api.requests[0].path, "/v1/embeddings");
    assert.deepEqual(vectors[0], Float32Array.from(fakeVector(MODEL, TEXTS[0], 8)));
    assert.equal(tokens, fakeTokens([TEXTS[0]]));
    await assert.rejects(e.embed(TEXTS.slice(0, 2), "query"), /2 texts in one call.*one per request/);
    assert.equal(api.count(), 1);
    assert.throws(() => make({ input: "string", batchSize: 4 }), (err: unknown) => err instanceof EmbeddingError && err.code === "NOT_CONFIGURED" && /batchSize must be 1/.test(err.message));
    // The SDK's retries apply to this request path too.
    api.fault("rateLimit", 1, { retryAfter: "0" });
    await e.embed(["α"], "document");
    assert.equal(api.count(), 3);
  });

  test("a server that reports no usage gives undefined tokens, not 0", async () => {
    const quiet = await startOpenAIDouble({ dims: 4, usage: false });
    try {
      const e = openaiEmbedder({ model: MODEL, baseURL: `${quiet.url}/v1` });
      assert.equal((await e.embed(["α β"], "document")).tokens, undefined);
      assert.equal((await openaiEmbedder({ model: MODEL, baseURL: `${quiet.url}/v1`, input: "string" }).embed(["α β"], "query")).tokens, undefined);
    } finally {
      await quiet.close();
    }
  });

  test("endpoint is scheme, host and port only", () => {
    assert.equal(make().endpoint, api.url);
    assert.equal(openaiEmbedder({ model: MODEL, baseURL: "https://user:secret@embed.example.org:8443/v1/tok-abc?key=xyz" }).endpoint, "https://embed.example.org:8443");
  });

  test("id, dims and maxBatch", () => {
    assert.equal(make().id, `openai:${MODEL}`);
    assert.equal(make().dims, undefined);
    assert.equal(make().maxBatch, 32);
    const e = make({ dims: 1024, batchSize: 16 });
    assert.equal(e.id, `openai:${MODEL}@1024`);
    assert.equal(e.dims, 1024);
    assert.equal(e.maxBatch, 16);
  });

  test("never sends `dimensions`: most models reject it", async () => {
    await make({ dims: 4 }).embed(["α"], "document");
    assert.equal("dimensions" in api.embeddingRequests()[0], false);
  });

  test("works with a base URL without /v1 and with a trailing slash", async () => {
    await make({ baseURL: api.url }).embed(["α"], "query");
    await make({ baseURL: `${api.url}/v1/` }).embed(["β"], "query");
    assert.deepEqual(
      api.requests.map((r) => r.path),
      ["/embeddings", "/v1/embeddings"],
    );
  });

  test("local servers get a placeholder key (the SDK demands one)", async () => {
    await openaiEmbedder({ model: MODEL, baseURL: `${api.url}/v1` }).embed(["α"], "query");
    assert.equal(api.requests[0].authorization, "Bearer not-needed");
  });

  test("an empty call sends nothing", async () => {
    assert.deepEqual(await make().embed([], "document"), { vectors: [], tokens: 0 });
    assert.equal(api.count(), 0);
  });
});

describe("openaiEmbedder: reading the answer", () => {
  test("orders vectors by `index`, not by position in the answer", async () => {
    api.fault("reorder", 1);
    const { vectors } = await make().embed(TEXTS, "document");
    TEXTS.forEach((t, i) => assert.deepEqual(vectors[i], Float32Array.from(fakeVector(MODEL, t, 8))));
  });

  test("unnormalised vectors pass through unchanged", async () => {
    const raw = await startOpenAIDouble({ dims: 5, normalize: false });
    try {
      const { vectors } = await openaiEmbedder({ model: MODEL, baseURL: `${raw.url}/v1` }).embed(["α β"], "query");
      assert.deepEqual(vectors[0], Float32Array.from(fakeVector(MODEL, "α β", 5, false)));
      assert.notEqual(Math.round(Math.hypot(...vectors[0]) * 1e6), 1e6);
    } finally {
      await raw.close();
    }
  });

  test("a wrong number of embeddings is COUNT_MISMATCH", async () => {
    api.fault("wrongCount", 1);
    const err = await rejectsWith(make().embed(TEXTS, "document"), "COUNT_MISMATCH");
    assert.match(err.message, /sent 4 texts, got 3 embeddings/);
  });

  test("null or a string inside a vector is BAD_VECTOR (never silently 0 or NaN)", async () => {
    api.fault("badValue", 1, { value: null });
    assert.match((await rejectsWith(make().embed(TEXTS, "document"), "BAD_VECTOR")).message, /non-number at position 0 \(null\)/);
    api.fault("badValue", 1, { value: "NaN" });
    assert.match((await rejectsWith(make().embed(TEXTS, "document"), "BAD_VECTOR")).message, /"NaN"/);
  });

  test("a wrong dimension is passed on for the caller to check against dims", async () => {
    api.fault("wrongDims", 1, { dims: 9 });
    const { vectors } = await make({ dims: 8 }).embed(["α"], "document");
    assert.equal(vectors[0].length, 9);
  });

  test("a body that is not JSON is a PROVIDER error, not retried", async () => {
    api.fault("malformed", 1);
    assert.match((await rejectsWith(make().embed(["α"], "document"), "PROVIDER")).message, /not valid JSON/);
    assert.equal(api.count(), 1, "one request: a malformed answer is the server's answer");
  });

  test("a body cut short is retried like a dropped connection; one that stays cut fails after the attempts", async () => {
    api.fault("truncate", 1);
    const { vectors } = await make().embed(["α"], "document");
    assert.equal(vectors.length, 1);
    assert.equal(api.count(), 2, "the cut answer, then the whole one");
    api.reset();
    api.fault("truncate", 3);
    assert.match((await rejectsWith(make({ maxRetries: 2 }).embed(["α"], "document"), "PROVIDER")).message, /request failed: terminated/);
    assert.equal(api.count(), 3, "maxRetries 2: three attempts");
  });
});

describe("openaiEmbedder: retries, errors, timeouts (the SDK's)", () => {
  test("429 with Retry-After is retried, then succeeds", async () => {
    api.fault("rateLimit", 2, { retryAfter: "0" });
    const t0 = Date.now();
    const { vectors } = await make({ maxRetries: 2 }).embed(["α", "β"], "document");
    assert.equal(vectors.length, 2);
    assert.equal(api.count(), 3, "two 429s and the successful retry");
    assert.deepEqual(api.embeddingRequests()[2].input, ["α", "β"], "the retry resends the same body");
    // The SDK's own backoff would sleep at least 0.375 s + 0.75 s for two retries.
    assert.ok(Date.now() - t0 < 1000, "Retry-After: 0 means no backoff wait");
  });

  test("500 is retried", async () => {
    api.fault("status", 1, { status: 500, retryAfter: "0" });
    await make().embed(["α"], "document");
    assert.equal(api.count(), 2);
  });

  test("a persistent 500 surfaces as PROVIDER with status and server message, never the key", async () => {
    api.fault("status", 10, { status: 503, retryAfter: "0", message: "model is loading" });
    const err = await rejectsWith(make({ maxRetries: 2 }).embed(["α"], "document"), "PROVIDER");
    assert.equal(api.count(), 3, "first attempt + maxRetries");
    assert.match(err.message, /HTTP 503/);
    assert.match(err.message, /model is loading/);
    assert.match(err.message, /after 3 attempts/);
    assert.ok(err.message.includes(`openai:${MODEL}`), "says which model");
    assert.ok(!err.message.includes(SECRET), "no API key in the message");
    assert.ok(!String(err.stack).includes(SECRET), "nor in the stack");
    assert.equal(api.requests[0].authorization, `Bearer ${SECRET}`, "yet the key was sent");
  });

  test("a server that echoes the key back does not get it into the message", async () => {
    api.fault("status", 1, { status: 401, message: `Incorrect API key provided: ${SECRET}` });
    const err = await rejectsWith(make().embed(["α"], "document"), "PROVIDER");
    assert.match(err.message, /HTTP 401: Incorrect API key provided: \[redacted\]/);
    assert.equal(api.count(), 1, "401 is not retried");
  });

  test("400 is not retried", async () => {
    api.fault("status", 5, { status: 400, message: "dimensions not supported for this model" });
    const err = await rejectsWith(make().embed(["α"], "document"), "PROVIDER");
    assert.equal(api.count(), 1);
    assert.match(err.message, /HTTP 400: dimensions not supported/);
  });

  test("a timeout is retried, then succeeds", async () => {
    api.fault("slow", 1, { delayMs: 3000 });
    const { vectors } = await make({ timeoutMs: 400, maxRetries: 1 }).embed(["α"], "document");
    assert.equal(vectors.length, 1);
    assert.equal(api.count(), 2);
  });

  test("a persistent timeout surfaces as PROVIDER 'timed out'", async () => {
    api.fault("slow", 2, { delayMs: 3000 });
    const err = await rejectsWith(make({ timeoutMs: 250, maxRetries: 1 }).embed(["α"], "document"), "PROVIDER");
    assert.match(err.message, /timed out after 250 ms per attempt \(2 attempts\)/);
    assert.equal(api.count(), 2);
  });

  test("a dropped connection is retried, and surfaces when it persists", async () => {
    api.fault("drop", 1);
    await make({ maxRetries: 1 }).embed(["α"], "document");
    assert.equal(api.count(), 2);
    api.reset();
    api.fault("drop", 1);
    const err = await rejectsWith(make({ maxRetries: 0 }).embed(["α"], "document"), "PROVIDER");
    assert.match(err.message, /connection failed \(1 attempt\)/);
  });
});

describe("openaiEmbedder: concurrency", () => {
  test("six concurrent embed() calls with concurrency 2 never have more than 2 requests in flight", async () => {
    const slow = await startOpenAIDouble({ delayMs: 120 });
    try {
      const e = openaiEmbedder({ model: MODEL, baseURL: `${slow.url}/v1`, concurrency: 2 });
      const texts = Array.from({ length: 6 }, (_, i) => [`κείμενο ${i}`]);
      const results = await Promise.all(texts.map((t) => e.embed(t, "document")));
      assert.equal(slow.count(), 6);
      assert.equal(slow.maxInFlight(), 2);
      results.forEach((r, i) => assert.deepEqual(r.vectors[0], Float32Array.from(fakeVector(MODEL, texts[i][0], 8))));
    } finally {
      await slow.close();
    }
  });

  test("the default allows 2 in flight", async () => {
    const slow = await startOpenAIDouble({ delayMs: 80 });
    try {
      const e = openaiEmbedder({ model: MODEL, baseURL: `${slow.url}/v1` });
      await Promise.all(Array.from({ length: 5 }, (_, i) => e.embed([`${i}`], "query")));
      assert.equal(slow.maxInFlight(), 2);
    } finally {
      await slow.close();
    }
  });
});

describe("openaiEmbedderFrom", () => {
  test("without a base URL: NOT_CONFIGURED, naming the variables", () => {
    assert.throws(
      () => openaiEmbedderFrom(readConfig().embed, MODEL),
      (err: unknown) => err instanceof EmbeddingError && err.code === "NOT_CONFIGURED" && /GBR_EMBED_BASE_URL/.test(err.message) && /OPENAI_BASE_URL/.test(err.message),
    );
  });

  test("GBR_EMBED_* win over OPENAI_*", async () => {
    const env = { GBR_EMBED_BASE_URL: `${api.url}/v1`, GBR_EMBED_API_KEY: "sk-embed", OPENAI_BASE_URL: "http://127.0.0.1:9/v1", OPENAI_API_KEY: "sk-chat" };
    const e = openaiEmbedderFrom(readConfig(env).embed, MODEL, 8, 64, {});
    assert.equal(e.id, `openai:${MODEL}@8`);
    assert.equal(e.maxBatch, 64);
    await e.embed(["α"], "query");
    assert.equal(api.requests[0].authorization, "Bearer sk-embed");
  });

  test("falls back to OPENAI_BASE_URL and OPENAI_API_KEY (read from process.env by default)", async () => {
    process.env.OPENAI_BASE_URL = `${api.url}/v1`;
    process.env.OPENAI_API_KEY = "sk-chat";
    try {
      await openaiEmbedderFrom(readConfig().embed, MODEL).embed(["α"], "query");
      assert.equal(api.requests[0].authorization, "Bearer sk-chat");
    } finally {
      delete process.env.OPENAI_BASE_URL;
      delete process.env.OPENAI_API_KEY;
    }
  });
});

describe("createSemaphore", () => {
  test("caps concurrency, serves waiters in order, frees the slot when a task fails", async () => {
    const limit = createSemaphore(2);
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const task = (i: number) => async () => {
      started.push(i);
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      if (i === 1) throw new Error("boom");
      return i;
    };
    const results = await Promise.allSettled([0, 1, 2, 3, 4].map((i) => limit.run(task(i))));
    assert.equal(peak, 2);
    assert.deepEqual(started, [0, 1, 2, 3, 4]);
    assert.equal(results[1].status, "rejected");
    assert.deepEqual(
      results.filter((r) => r.status === "fulfilled").map((r) => (r as PromiseFulfilledResult<number>).value),
      [0, 2, 3, 4],
    );
    assert.equal(limit.active, 0);
  });

  test("rejects a size that is not a positive integer", () => {
    assert.throws(() => createSemaphore(0), RangeError);
    assert.throws(() => createSemaphore(1.5), RangeError);
  });
});
