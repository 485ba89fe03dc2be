/**
 * The listwise re-ranker end to end through the real chain: `chatForMethod` (the environment's
 * OpenAI-compatible provider behind the replay cache) against the local double, over a BM25 run
 * of the bundled sample. A rerun is answered by the replay cache, and the double's stand-in mark
 * reaches the run's record.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadBenchmark } from "../../lib/data/source";
import { chatForMethod } from "../../lib/llm/chat-for-method";
import { runContext } from "../../lib/retrievers";
import { listwiseRerankRun, slidingWindows } from "../../lib/llm/rerank-listwise";
import { bm25Search, indexCorpus } from "../../lib/sparse/bm25-retriever";
import { greekStemmerTokenizer } from "../../lib/text/tokenizers";
import type { Benchmark } from "../../lib/types";
import { startOpenAIDouble, type ChatCompletionBody, type OpenAIDouble } from "../fakes/openai-server";

const ENV = ["GBR_CHAT_BASE_URL", "GBR_CHAT_API_KEY", "GBR_CHAT_MODEL", "GBR_DATA_DIR", "GBR_REPLAY_FILE", "GBR_OFFLINE", "OPENAI_BASE_URL", "OPENAI_API_KEY"];
const saved = new Map(ENV.map((k) => [k, process.env[k]]));
let tmp = "";
let api: OpenAIDouble;
let bench: Benchmark;

/** The double reverses every window: "[n] > … > [1]", with a think block to strip. */
function reverse(body: ChatCompletionBody) {
  const user = String(body.messages.find((m) => m.role === "user")?.content ?? "");
  const n = [...user.matchAll(/^\[(\d+)\] /gm)].length;
  return { content: `<think>αντιστρέφω</think>${Array.from({ length: n }, (_, i) => `[${n - i}]`).join(" > ")}`, usage: { prompt_tokens: 500, completion_tokens: 20 } };
}

before(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-rerank-llm-"));
  api = await startOpenAIDouble();
  api.chat(reverse);
  for (const k of ENV) delete process.env[k];
  process.env.GBR_CHAT_BASE_URL = `${api.url}/v1`;
  process.env.GBR_CHAT_API_KEY = "test-rerank-key";
  process.env.GBR_CHAT_MODEL = "openai/gpt-oss-120b";
  process.env.GBR_DATA_DIR = path.join(tmp, "data");
  bench = (await loadBenchmark("sample")).benchmark;
});

after(async () => {
  await api?.close();
  for (const [k, v] of saved) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await fs.rm(tmp, { recursive: true, force: true });
});

test("rerank:llm over BM25 through chatForMethod: calls once, replays on a rerun, marked as a stand-in", async () => {
  const queries = bench.queries.slice(0, 4);
  const corpus = indexCorpus(bench.docs, greekStemmerTokenizer());
  const first = bm25Search(corpus, corpus.index.withParams(), queries, 100);
  first.info = { retriever: "bm25-greekstemmer" };
  const docText = new Map(bench.docs.map((d) => [d.id, d.text]));
  const opts = { depth: 40, window: 20, step: 10, k: 50 };
  const expectedCalls = queries.reduce((n, q) => n + slidingWindows(Math.min(40, first.rankings.get(q.id)!.length), 20, 10).length, 0);
  assert.ok(expectedCalls >= queries.length, "the sample gives every query a window");

  const run1 = await listwiseRerankRun(await chatForMethod({}, runContext()), queries, first, docText, opts);
  const sent = api.chatRequests();
  assert.equal(sent.length, expectedCalls);
  for (const b of sent) {
    assert.equal(b.model, "openai/gpt-oss-120b");
    assert.equal(b.temperature, 0);
    assert.equal(b.top_p, 1);
    assert.equal(b.reasoning_effort, "low");
    assert.match(String(b.messages.find((m) => m.role === "user")?.content), /\(απόσπασμα/);
  }
  assert.equal(run1.info?.rerank?.calls, expectedCalls);
  assert.equal(run1.info?.rerank?.standIn, true, "the double's mark reaches info.rerank.standIn");
  assert.equal(run1.info?.llm?.standIn, true);
  assert.equal(run1.info?.rerank?.unparsed, 0);
  assert.equal(run1.info?.rerank?.endpoint, api.url);
  assert.equal(run1.info?.llm?.reused, 0);
  assert.equal(run1.cost?.online.llmCalls, expectedCalls);
  assert.equal(run1.cost?.online.llmInput, 500 * expectedCalls);

  const run2 = await listwiseRerankRun(await chatForMethod({}, runContext()), queries, first, docText, opts);
  assert.equal(api.chatRequests().length, expectedCalls, "the rerun made no chat call");
  assert.deepEqual(run2.rankings, run1.rankings);
  assert.equal(run2.info?.rerank?.calls, 0);
  assert.equal(run2.info?.llm?.reused, expectedCalls);
  assert.equal(run2.info?.rerank?.standIn, true, "a replayed stand-in is still a stand-in");
  assert.equal(run2.cost?.online.llmCalls, run1.cost?.online.llmCalls, "a rerun reports the same cost");
  assert.equal(run2.cost?.online.llmInput, run1.cost?.online.llmInput);
  assert.equal(run2.cost?.online.seconds, run1.cost?.online.seconds);

  // The re-ranking did something: the reversal changed the order within depth.
  const q = queries[0].id;
  assert.notDeepEqual(run1.rankings.get(q)!.slice(0, 20), first.rankings.get(q)!.slice(0, 20));
});
