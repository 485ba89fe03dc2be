/**
 * The composites as values (`compose`): built from retrievers at hand, each is named as its string form and retrieves
 * exactly what the name built by `createRetriever` does, with the same requests to the model servers (a second build
 * by name is answered from the store). A composite whose re-ranker cannot run here builds no first stage.
 */
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { readConfig } from "../../lib/config";
import { loadBenchmark } from "../../lib/data/source";
import { compose } from "../../lib/index";
import { createProviders } from "../../lib/providers";
import { BuildCache, createRetriever, registerRetriever } from "../../lib/retrievers";
import type { Benchmark, Retriever, Run } from "../../lib/types";
import { isUnavailable } from "../../lib/util/errors";
import { startOpenAIDouble, type OpenAIDouble } from "../fakes/openai-server";
import { startRerankDouble, type RerankDouble } from "../fakes/rerank-server";

let tmp = "";
let bench: Benchmark;
let chat: OpenAIDouble;
let rerank: RerankDouble;
const savedDataDir = process.env.GBR_DATA_DIR;

before(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-compose-"));
  process.env.GBR_DATA_DIR = path.join(tmp, "data");
  bench = (await loadBenchmark("sample")).benchmark;
  chat = await startOpenAIDouble();
  rerank = await startRerankDouble();
});

after(async () => {
  await chat.close();
  await rerank.close();
  if (savedDataDir === undefined) delete process.env.GBR_DATA_DIR;
  else process.env.GBR_DATA_DIR = savedDataDir;
  await fs.rm(tmp, { recursive: true, force: true });
});

/** The run context of a test: model servers from explicit settings, the store in the test's data folder. */
function context(env: Record<string, string>) {
  return { providers: createProviders(readConfig({ GBR_DATA_DIR: path.join(tmp, "data"), ...env })), workDir: path.join(tmp, "work") };
}

async function assertSameRun(composed: Retriever, name: string, built: Retriever): Promise<void> {
  assert.equal(composed.name, name);
  const [a, b]: Run[] = [await composed.retrieve(bench.queries, 100), await built.retrieve(bench.queries, 100)];
  assert.ok(a.rankings.size > 0 && [...a.rankings.values()].some((r) => r.length > 0), `${name} ranks something`);
  assert.deepEqual(a.rankings, b.rankings, name);
  assert.deepEqual(a.scores, b.scores, name);
}

test("compose.rrf, fuse and prf: retrievers at hand give the string form's name and run, nested too", async () => {
  const bm25 = await createRetriever("bm25-greekstemmer", bench);
  const grnlp = await createRetriever("bm25-grnlp", bench);
  const cases: [Retriever, string][] = [
    [compose.rrf([bm25, grnlp]), "rrf:bm25-greekstemmer+bm25-grnlp"],
    [compose.fuse([bm25, grnlp], { kind: "wrrf", weights: [0.7, 0.3] }), "fuse:wrrf:0.7,0.3:bm25-greekstemmer+bm25-grnlp"],
    [compose.fuse([grnlp, bm25], { kind: "comb", method: "combmnz", norm: "zscore" }), "fuse:combmnz-zscore:bm25-grnlp+bm25-greekstemmer"],
    [compose.prf(bm25), "prf:bm25-greekstemmer"],
    [compose.rrf([compose.prf(bm25), grnlp, bm25]), "rrf:prf:bm25-greekstemmer+bm25-grnlp+bm25-greekstemmer"],
  ];
  for (const [composed, name] of cases) await assertSameRun(composed, name, await createRetriever(name, bench));
});

test("compose.rerank: the string form's run, with the same rerank requests (the name's build asks nothing new)", async () => {
  const ctx = context({ GBR_RERANK_BASE_URL: rerank.url });
  const bm25 = await createRetriever("bm25-greekstemmer", bench);
  const composed = await compose.rerank(bm25, "bge-reranker-v2-m3", bench, { rerankDepth: 20 }, ctx);
  await composed.retrieve(bench.queries, 100);
  const sent = rerank.count();
  assert.ok(sent > 0, "the composed re-ranker asked the server");
  const name = "rerank:bge-reranker-v2-m3:bm25-greekstemmer";
  await assertSameRun(composed, name, await createRetriever(name, bench, { rerankDepth: 20 }, ctx));
  assert.equal(rerank.count(), sent, "the pairs scored for the composed value are the name's, kept in the store");
});

test("compose.reform: the string form's run, with the same chat requests (the name's build asks nothing new)", async () => {
  const ctx = context({ GBR_CHAT_BASE_URL: `${chat.url}/v1`, GBR_CHAT_MODEL: "m" });
  const grnlp = await createRetriever("bm25-grnlp", bench);
  const composed = await compose.reform(grnlp, bench, {}, ctx);
  await composed.retrieve(bench.queries, 100);
  const asked = chat.count("chat/completions");
  assert.equal(asked, bench.queries.length, "one rewrite per question");
  const name = "reform:bm25-grnlp";
  await assertSameRun(composed, name, await createRetriever(name, bench, {}, ctx));
  assert.equal(chat.count("chat/completions"), asked, "the rewrites asked for the composed value are the name's, kept in the store");
});

test("a re-ranker that cannot run here is reported before its first stage is built", async () => {
  let built = 0;
  registerRetriever("compose-probe", async (name) => {
    built++;
    return { name, retrieve: () => ({ rankings: new Map() }) };
  });
  const ctx = context({});
  for (const name of ["rerank:llm:compose-probe", "rerank:bge-reranker-v2-m3:compose-probe"]) {
    await assert.rejects(createRetriever(name, bench, {}, ctx), (err: unknown) => isUnavailable(err), name);
  }
  assert.equal(built, 0, "no first stage was built for a re-ranker that cannot run");
});

test("with a job's BuildCache a part shared by composites retrieves once per query set and k, a failure once too", async () => {
  const calls: number[] = [];
  registerRetriever("compose-counter", async (name) => ({
    name,
    retrieve: async (queries, k) => {
      calls.push(k);
      if (k === 7) throw new Error("seven");
      return { rankings: new Map(queries.map((q) => [q.id, [bench.docs[0].id]])), scores: new Map(queries.map((q) => [q.id, [1]])) };
    },
  }));
  const ctx = { cache: new BuildCache() };
  const alone = await createRetriever("compose-counter", bench, {}, ctx);
  const fused = await createRetriever("rrf:compose-counter+bm25-greekstemmer", bench, {}, ctx);
  const other = await createRetriever("fuse:combsum-max:bm25-greekstemmer+compose-counter", bench, {}, ctx);
  await alone.retrieve(bench.queries, 100);
  await fused.retrieve(bench.queries, 10);
  await other.retrieve(bench.queries, 10);
  assert.deepEqual(calls, [100], "the fusions' parts retrieve their top 100: the very run already made");
  await alone.retrieve(bench.queries.slice(0, 2), 100);
  assert.deepEqual(calls, [100, 100], "another query set is another run");
  await assert.rejects(Promise.resolve(alone.retrieve(bench.queries, 7)), /seven/);
  await assert.rejects(Promise.resolve(alone.retrieve(bench.queries, 7)), /seven/);
  assert.deepEqual(calls, [100, 100, 7], "a failed run is reported again, not retried");
});
