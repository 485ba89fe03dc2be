/**
 * The providers of a run (lib/providers): the concurrency settings reach every kind, a request
 * has a deadline after which it moves to another server, and a body cut short is retried as a
 * dropped connection is, with one server as with two.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { readConfig } from "../../lib/config";
import { createProviders } from "../../lib/providers";
import { startOpenAIDouble } from "../fakes/openai-server";
import type { Benchmark } from "../../lib/types";

let tmp = "";
before(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-providers-"));
});
after(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

/** 400 short articles: 13 batches of 32 for the embedding server. */
function bench(): Benchmark {
  const docs = Array.from({ length: 400 }, (_, i) => ({ id: `Ν::${i}`, text: `άρθρο ${i} για τη μίσθωση και την πώληση` }));
  return { name: "many", docs, queries: [{ id: "q", text: "μίσθωση" }], qrels: new Map([["q", new Set(["Ν::1"])]]), meta: new Map() };
}

async function embedCorpus(env: Record<string, string>, flags: { concurrency?: number } = {}): Promise<void> {
  const { createRetriever } = await import("../../lib/retrievers.js");
  const providers = createProviders(readConfig({ ...env, GBR_DATA_DIR: path.join(tmp, `data-${Math.random()}`) }, flags));
  const r = await createRetriever("dense:qwen3-0.6b", bench(), {}, { providers, vectorStore: path.join(tmp, `lance-${Math.random()}`) });
  await r.retrieve(bench().queries, 10);
}

test("GBR_EMBED_CONCURRENCY and --concurrency reach the embedding requests, with one server or two", async () => {
  const a = await startOpenAIDouble({ delayMs: 80, dims: 1024 });
  const b = await startOpenAIDouble({ delayMs: 80, dims: 1024 });
  try {
    await embedCorpus({ GBR_EMBED_BASE_URL: `${a.url}/v1`, GBR_EMBED_CONCURRENCY: "5" });
    assert.equal(a.maxInFlight(), 5, "GBR_EMBED_CONCURRENCY=5: five batches in flight (it was always 2)");
    a.reset();
    await embedCorpus({ GBR_EMBED_BASE_URL: `${a.url}/v1` }, { concurrency: 4 });
    assert.equal(a.maxInFlight(), 4, "--concurrency 4");
    a.reset();
    await embedCorpus({ GBR_EMBED_BASE_URL: `${a.url}/v1,${b.url}/v1`, GBR_EMBED_CONCURRENCY: "3" });
    assert.equal(a.maxInFlight() + b.maxInFlight(), 6, `three per server: ${a.maxInFlight()} and ${b.maxInFlight()}`);
  } finally {
    await Promise.allSettled([a.close(), b.close()]);
  }
});

test("a hung chat server among two: after GBR_REQUEST_TIMEOUT_S its requests move to the healthy one", async () => {
  const hung = await startOpenAIDouble();
  const healthy = await startOpenAIDouble();
  try {
    hung.fault("slow", 1000, { delayMs: 120_000 });
    const providers = createProviders(readConfig({ GBR_CHAT_BASE_URL: `${hung.url}/v1,${healthy.url}/v1`, GBR_REQUEST_TIMEOUT_S: "0.5", GBR_CHAT_MODEL: "m" }));
    const llm = providers.chat();
    const t0 = performance.now();
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => llm.complete({ system: "", user: `ερώτηση ${i}` })));
    const seconds = (performance.now() - t0) / 1000;
    assert.equal(answers.length, 12);
    assert.equal(healthy.count("chat/completions"), 12, "every request answered by the healthy server");
    assert.ok(seconds < 20, `took ${seconds.toFixed(1)} s (the hung server's requests waited their deadline, not 600 s)`);
  } finally {
    await Promise.allSettled([hung.close(), healthy.close()]);
  }
});

test("one chat server whose answer is cut mid-way: the request is retried and answered", async () => {
  const api = await startOpenAIDouble();
  try {
    api.fault("truncate", 1);
    const llm = createProviders(readConfig({ GBR_CHAT_BASE_URL: `${api.url}/v1`, GBR_CHAT_MODEL: "m" })).chat();
    const r = await llm.complete({ system: "", user: "γεια" });
    assert.ok(r.text.length > 0);
    assert.equal(api.count("chat/completions"), 2, "the cut answer, then the whole one");
  } finally {
    await api.close();
  }
});

test("one set of providers builds each chat model and embedder once, and a run's caps are its own", () => {
  const config = readConfig({ GBR_CHAT_BASE_URL: "http://127.0.0.1:9/v1", GBR_CHAT_RPM: "5" });
  const providers = createProviders(config);
  assert.equal(providers.chat(), providers.chat(), "built once");
  assert.notEqual(providers.chat("gpt-oss:20b"), providers.chat());
  assert.equal(providers.chatId("gemini-2.5-flash"), "gemini:gemini-2.5-flash");
  assert.notEqual(createProviders(config).chat(), providers.chat(), "another run, other objects");
});
