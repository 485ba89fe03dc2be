/**
 * A base URL given as a list (chat, embeddings, rerank): the requests spread over the servers,
 * and when one stops in the middle of a run the run completes on the other, every request
 * answered once.
 */
import { readConfig } from "../../lib/config";
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startOpenAIDouble, type OpenAIDouble } from "../fakes/openai-server";
import { openaiChatFrom } from "../../lib/providers/openai-chat";
import type { SpreadChatModel } from "../../lib/providers/openai-chat";

let tmp = "";
before(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-chat-endpoints-"));
});
after(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

const echo = (body: { messages: { role: string; content: unknown }[] }) => ({ content: `echo ${String(body.messages.at(-1)?.content)}`, usage: { prompt_tokens: 5, completion_tokens: 2 } });
const request = (i: number) => ({ system: "", user: `ερώτηση ${i}`, temperature: 0 });

test("two endpoints: both receive work, and every answer comes back", async () => {
  const [a, b] = [await startOpenAIDouble({ delayMs: 30 }), await startOpenAIDouble({ delayMs: 30 })];
  try {
    a.chat(echo);
    b.chat(echo);
    const llm = openaiChatFrom(readConfig({ GBR_CHAT_BASE_URL: `${a.url}/v1, ${b.url}/v1`, GBR_CHAT_MODEL: "m" }), undefined, {}) as SpreadChatModel;
    assert.match(llm.endpoint ?? "", /^http:\/\/127\.0\.0\.1:\d+, http:\/\/127\.0\.0\.1:\d+$/);
    const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => llm.complete(request(i))));
    answers.forEach((r, i) => assert.equal(r.text, `echo ερώτηση ${i}`));
    assert.ok(a.count("chat/completions") > 0 && b.count("chat/completions") > 0, `${a.count("chat/completions")} and ${b.count("chat/completions")}`);
    assert.equal(a.count("chat/completions") + b.count("chat/completions"), 24);
    assert.deepEqual(llm.endpointStats().map((s) => s.answered).reduce((x, y) => x + y, 0), 24);
  } finally {
    await Promise.allSettled([a.close(), b.close()]);
  }
});

test("with one request in flight per endpoint, reformulation over two servers keeps both busy", async () => {
  const [a, b] = [await startOpenAIDouble({ delayMs: 60 }), await startOpenAIDouble({ delayMs: 60 })];
  const saved = { ...process.env };
  try {
    a.chat(echo);
    b.chat(echo);
    const env = { GBR_CHAT_BASE_URL: `${a.url}/v1,${b.url}/v1`, GBR_CHAT_MODEL: "m", GBR_CHAT_CONCURRENCY: "1" };
    assert.equal(openaiChatFrom(readConfig({ ...env, GBR_CHAT_CONCURRENCY: "3" }), undefined, {}).capacity, 6, "3 per endpoint, 2 endpoints");
    Object.assign(process.env, env, { GBR_DATA_DIR: path.join(tmp, "capacity") });
    const { loadBenchmark, createRetriever } = await import("../../lib/index.js");
    const { benchmark } = await loadBenchmark("sample");
    const r = await createRetriever("reform:bm25-greekstemmer", benchmark, {}, { replay: "off", workDir: path.join(tmp, "capacity-work") });
    await r.retrieve(benchmark.queries, 10);
    // Each server held one request at a time, and both had work at once: 2 in flight in all.
    assert.equal(a.maxInFlight(), 1);
    assert.equal(b.maxInFlight(), 1);
    assert.equal(a.count("chat/completions") + b.count("chat/completions"), benchmark.queries.length);
    assert.ok(a.count("chat/completions") >= 8 && b.count("chat/completions") >= 8, `${a.count("chat/completions")} and ${b.count("chat/completions")}`);
  } finally {
    process.env = saved;
    await Promise.allSettled([a.close(), b.close()]);
  }
});

test("one endpoint stops in the middle of a run: the run completes on the other, each request answered once", async () => {
  let a: OpenAIDouble | undefined = await startOpenAIDouble({ delayMs: 40 });
  const b = await startOpenAIDouble({ delayMs: 40 });
  try {
    a.chat(echo);
    b.chat(echo);
    const llm = openaiChatFrom(readConfig({ GBR_CHAT_BASE_URL: `${a.url}/v1,${b.url}/v1`, GBR_CHAT_MODEL: "m", GBR_CHAT_CONCURRENCY: "2" }), undefined, { timeoutMs: 5_000 }) as SpreadChatModel;
    let done = 0;
    const all = Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        llm.complete(request(i)).then((r) => {
          done++;
          return r;
        }),
      ),
    );
    while (done < 6) await new Promise((r) => setTimeout(r, 5));
    await a.close();
    a = undefined;
    const answers = await all;
    answers.forEach((r, i) => assert.equal(r.text, `echo ερώτηση ${i}`));
    const stats = llm.endpointStats();
    assert.equal(stats.reduce((x, s) => x + s.answered, 0), 30, "each request answered once");
    assert.ok(stats[1].answered > stats[0].answered, JSON.stringify(stats));
  } finally {
    await Promise.allSettled([a?.close(), b.close()]);
  }
});

test("a client error (400) is the request's: thrown at once, no other endpoint tried", async () => {
  const { spreadChat } = await import("../../lib/providers/openai-chat.js");
  const { ChatError } = await import("../../lib/models/chat.js");
  let calls = 0;
  const bad = { id: "openai:m", endpoint: "http://a", complete: async () => { calls++; throw new ChatError("bad request", "PROVIDER", { status: 400 }); } };
  const good = { id: "openai:m", endpoint: "http://b", complete: async () => { calls++; return { text: "ok", raw: "ok", usage: { input: 1, output: 1 }, seconds: 0 }; } };
  const llm = spreadChat([bad, good]);
  await assert.rejects(llm.complete(request(1)), /bad request/);
  assert.equal(calls, 1);
  // A server failure (503) sets the endpoint aside and the request goes to the other.
  const down = { id: "openai:m", endpoint: "http://c", complete: async () => { throw new ChatError("unavailable", "PROVIDER", { status: 503 }); } };
  const spread = spreadChat([down, good], { sleep: async () => {} });
  assert.equal((await spread.complete(request(2))).text, "ok");
  assert.deepEqual(spread.endpointStats().map((s) => [s.endpoint, s.sent, s.answered, s.failed]), [["http://c", 1, 0, 1], ["http://b", 1, 1, 0]]);
});

test("embeddings over two servers: both receive batches; one stopped mid-run, every text embedded once, the same vectors", async () => {
  const { openaiEmbedderFrom } = await import("../../lib/providers/openai-embedder.js");
  const { fakeVector } = await import("../fakes/openai-server.js");
  let a: OpenAIDouble | undefined = await startOpenAIDouble({ delayMs: 30 });
  const b = await startOpenAIDouble({ delayMs: 30 });
  try {
    const e = openaiEmbedderFrom(readConfig({ GBR_EMBED_BASE_URL: `${a.url}/v1,${b.url}/v1`, GBR_EMBED_CONCURRENCY: "2" }).embed, "m", 8, 2, { timeoutMs: 5_000 });
    const texts = Array.from({ length: 40 }, (_, i) => `κείμενο ${i}`);
    let done = 0;
    const all = Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        e.embed(texts.slice(2 * i, 2 * i + 2), "document").then((r) => {
          done++;
          return r;
        }),
      ),
    );
    while (done < 4) await new Promise((r) => setTimeout(r, 5));
    assert.ok(a.count("embeddings") > 0 && b.count("embeddings") > 0);
    await a.close();
    a = undefined;
    const results = await all;
    results.forEach((r, i) => r.vectors.forEach((v, j) => assert.deepEqual(v, Float32Array.from(fakeVector("m", texts[2 * i + j], 8)))));
  } finally {
    await Promise.allSettled([a?.close(), b.close()]);
  }
});

test("rerank over two servers: one stopped mid-run, every batch scored once, the same scores", async () => {
  const { rerankClientFrom } = await import("../../lib/providers/rerank-client.js");
  const { startRerankDouble, defaultRerankScore } = await import("../fakes/rerank-server.js");
  let a: Awaited<ReturnType<typeof startRerankDouble>> | undefined = await startRerankDouble({ delayMs: 30 });
  const b = await startRerankDouble({ delayMs: 30 });
  try {
    const client = rerankClientFrom(readConfig({ GBR_RERANK_BASE_URL: `${a.url},${b.url}` }).rerank, { timeoutMs: 5_000 });
    const docs = (i: number) => [`άρθρο ${i} μίσθωση`, `άρθρο ${i} κλοπή`, `άλλο ${i}`];
    let done = 0;
    const all = Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        client.rerank("m", `μίσθωση ${i}`, docs(i)).then((r) => {
          done++;
          return r;
        }),
      ),
    );
    while (done < 4) await new Promise((r) => setTimeout(r, 5));
    assert.ok(a.count() > 0 && b.count() > 0);
    await a.close();
    a = undefined;
    const results = await all;
    results.forEach((r, i) => assert.deepEqual(r.scores, docs(i).map((d) => defaultRerankScore(`μίσθωση ${i}`, d))));
  } finally {
    await Promise.allSettled([a?.close(), b.close()]);
  }
});

test("metadata.json says how a run's requests spread over the servers: chat, embeddings and rerank", async () => {
  const { runGbr } = await import("../helpers/gbr.js");
  const { scriptedModel } = await import("../fakes/scripted-model.js");
  const { startRerankDouble } = await import("../fakes/rerank-server.js");
  const [a, b] = [await startOpenAIDouble({ delayMs: 10, dims: 16 }), await startOpenAIDouble({ delayMs: 10, dims: 16 })];
  const [ra, rb] = [await startRerankDouble(), await startRerankDouble()];
  try {
    a.chat(scriptedModel);
    b.chat(scriptedModel);
    const presets = path.join(tmp, "presets-endpoints.json");
    await fs.writeFile(presets, JSON.stringify({ presets: [{ name: "qwen3-0.6b", provider: "openai", model: "Qwen/Qwen3-Embedding-0.6B", dims: 16, queryTemplate: "{text}", documentTemplate: "{text}" }] }));
    const out = path.join(tmp, "out-endpoints");
    const only = ["reform:bm25-greekstemmer", "dense:qwen3-0.6b", "rerank:bge-reranker-v2-m3:bm25-greekstemmer"];
    const r = await runGbr(["reproduce", "--data", "sample", "--out", out, "--only", only.join(",")], {
      dataDir: path.join(tmp, "data-endpoints"),
      env: {
        GBR_CHAT_BASE_URL: `${a.url}/v1,${b.url}/v1`,
        GBR_CHAT_MODEL: "openai/gpt-oss-120b",
        GBR_EMBED_BASE_URL: `${a.url}/v1,${b.url}/v1`,
        GBR_PRESETS: presets,
        GBR_RERANK_BASE_URL: `${ra.url},${rb.url}`,
      },
    });
    assert.equal(r.code, 0, r.stderr);
    const meta = JSON.parse(await fs.readFile(path.join(out, "sample", "metadata.json"), "utf8"));
    const spread = meta.llm.endpoints["reform:bm25-greekstemmer"] as { endpoint: string; answered: number }[];
    assert.equal(spread.length, 2);
    assert.equal(spread.reduce((x, s) => x + s.answered, 0), 26, "one rewrite per sample question");
    assert.ok(spread.every((s) => s.answered > 0), JSON.stringify(spread));
    const info = (id: string) => meta.experiments.find((e: { id: string }) => e.id === id).info;
    const embed = info("dense:qwen3-0.6b").embedding.endpoints as { answered: number; failed: number }[];
    assert.equal(embed.length, 2, JSON.stringify(info("dense:qwen3-0.6b")));
    assert.ok(embed.every((s) => s.answered > 0 && s.failed === 0), JSON.stringify(embed));
    assert.equal(embed.reduce((x, s) => x + s.answered, 0), a.count("embeddings") + b.count("embeddings"));
    const rerank = info("rerank:bge-reranker-v2-m3:bm25-greekstemmer").rerank.endpoints as { answered: number }[];
    assert.equal(rerank.length, 2);
    assert.equal(rerank.reduce((x, s) => x + s.answered, 0), ra.count() + rb.count());
    assert.ok(rerank.every((s) => s.answered > 0), JSON.stringify(rerank));
  } finally {
    await Promise.allSettled([a.close(), b.close(), ra.close(), rb.close()]);
  }
});
