import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { promises as fs, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { readBeir } from "../../lib/data/beir";
import { createRetriever } from "../../lib/retrievers";
import { QWEN_TASK } from "../../lib/dense/presets";
import { EmbeddingError } from "../../lib/dense/types";
import type { VectorRetriever } from "../../lib/dense/register";
import type { Benchmark } from "../../lib/types";
import { startOpenAIDouble, type OpenAIDouble } from "../fakes/openai-server";
import { startGeminiDouble, type GeminiDouble } from "../fakes/gemini-server";
import { REPO } from "../helpers/shared";

let tmp = "";
let bench: Benchmark;
let openai: OpenAIDouble;
let gemini: GeminiDouble;
const saved: Record<string, string | undefined> = {};
const ENV = ["GBR_DATA_DIR", "GBR_EMBED_BASE_URL", "GBR_EMBED_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "GBR_GEMINI_BASE_URL", "GBR_PRESETS"];

before(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-dense-test-"));
  for (const k of ENV) (saved[k] = process.env[k]), delete process.env[k];
  bench = await readBeir(path.join(REPO, "data", "sample"));
  openai = await startOpenAIDouble({ dims: 16 });
  gemini = await startGeminiDouble({ apiKey: "test-gemini-key" });
  // The built-in qwen3-8b has 4,096 dimensions; a user preset of the same name adapts it to the
  // double, which also proves user presets replace built-ins.
  const presets = path.join(tmp, "presets.json");
  await fs.writeFile(
    presets,
    JSON.stringify({ presets: [{ name: "qwen3-8b", provider: "openai", model: "Qwen/Qwen3-Embedding-8B", dims: 16, queryTemplate: `Instruct: ${QWEN_TASK}\nQuery:{text}`, documentTemplate: "{text}" }] }),
  );
  Object.assign(process.env, {
    GBR_DATA_DIR: path.join(tmp, "data"),
    GBR_EMBED_BASE_URL: `${openai.url}/v1`,
    GEMINI_API_KEY: "test-gemini-key",
    GBR_GEMINI_BASE_URL: gemini.url,
    GBR_PRESETS: presets,
  });
});

after(async () => {
  await openai?.close();
  await gemini?.close();
  for (const k of ENV) if (saved[k] === undefined) delete process.env[k]; else process.env[k] = saved[k];
  await fs.rm(tmp, { recursive: true, force: true });
});

test("dense:qwen3-8b embeds through the OpenAI-compatible API with the paper's templates; a second retriever sends nothing", async () => {
  const before = openai.embeddingRequests().length;
  const r = (await createRetriever("dense:qwen3-8b", bench)) as VectorRetriever;
  const run = await r.retrieve(bench.queries, 100);
  const sent = openai.requests.filter((q) => q.path.endsWith("/embeddings")).slice(before);
  const inputs = sent.flatMap((q) => (q.body as { input: string[] }).input);
  assert.equal(inputs.length, bench.docs.length + bench.queries.length);
  assert.ok(inputs.includes(bench.docs[0].text), "documents are sent as they are");
  assert.ok(inputs.includes(`Instruct: ${QWEN_TASK}\nQuery:${bench.queries[0].text}`), "queries carry the instruction");
  assert.equal(sent.length, Math.ceil(bench.docs.length / 32) + 1);
  assert.equal(run.rankings.size, bench.queries.length);
  assert.equal(run.rankings.get(bench.queries[0].id)!.length, 100);
  assert.equal(r.usage.requests, sent.length);

  const n = openai.embeddingRequests().length;
  const again = (await createRetriever("dense:qwen3-8b", bench)) as VectorRetriever;
  const run2 = await again.retrieve(bench.queries, 100);
  assert.equal(openai.embeddingRequests().length, n, "everything came from the LanceDB cache");
  assert.deepEqual(run2.rankings, run.rankings);
  assert.equal(again.usage.cachedVectors, bench.docs.length + bench.queries.length);
});

test("gemini-001 sends RETRIEVAL_DOCUMENT / RETRIEVAL_QUERY task types with 3,072 dimensions", async () => {
  const r = await createRetriever("dense:gemini-001", bench);
  await r.retrieve(bench.queries.slice(0, 3), 10);
  const bodies = gemini.requests.map((q) => q.body as { requests: { taskType: string; outputDimensionality: number }[] });
  const types = new Set(bodies.flatMap((b) => b.requests.map((x) => x.taskType)));
  assert.deepEqual([...types].sort(), ["RETRIEVAL_DOCUMENT", "RETRIEVAL_QUERY"]);
  assert.ok(bodies.every((b) => b.requests.every((x) => x.outputDimensionality === 3072)));
  assert.ok(gemini.requests.every((q) => q.keyMatches));
});

test("a failure half-way names the articles; the rerun embeds only what is missing", async () => {
  const presets = process.env.GBR_PRESETS!;
  const file = path.join(tmp, "resume-presets.json");
  // A fresh preset (a new fingerprint, so an empty table) that batches 20 articles per request.
  await fs.writeFile(file, JSON.stringify({ presets: [{ name: "resume", provider: "openai", model: "resume-model", batchSize: 20, queryTemplate: "{text}", documentTemplate: "{text}" }] }));
  process.env.GBR_PRESETS = file;
  try {
    const start = openai.embeddingRequests().length;
    let armed = false;
    await assert.rejects(
      createRetriever("dense:resume", bench, {
        onProgress: (_label, done) => {
          if (!armed && done >= 40) {
            armed = true;
            openai.fault("status", 1000, { status: 500, retryAfter: "0" });
          }
        },
      }),
      (err: unknown) => {
        assert.ok(err instanceof EmbeddingError);
        assert.match(err.message, /embedding articles .* with resume \(batch \d of 6\) failed: .*500/);
        return true;
      },
    );
    assert.ok(openai.embeddingRequests().length > start);
    openai.reset();
    await createRetriever("dense:resume", bench);
    const resent = openai.embeddingRequests().flatMap((b) => b.input).length;
    assert.ok(resent <= bench.docs.length - 40, `only the missing articles are sent again (${resent})`);
  } finally {
    process.env.GBR_PRESETS = presets;
  }
});

test("a server returning vectors of the wrong size is refused with the article named", async () => {
  const presets = process.env.GBR_PRESETS!;
  const file = path.join(tmp, "dims-presets.json");
  await fs.writeFile(file, JSON.stringify({ presets: [{ name: "fixed", provider: "openai", model: "fixed-model", dims: 12, queryTemplate: "{text}", documentTemplate: "{text}" }] }));
  process.env.GBR_PRESETS = file;
  try {
    await assert.rejects(createRetriever("dense:fixed", bench), /vector for '[^']+' has 16 dimensions, expected 12/);
  } finally {
    process.env.GBR_PRESETS = presets;
  }
});

test("lsi, prf and rrf retrievers run offline on the sample", async () => {
  const lsi = await createRetriever("lsi:64", bench);
  const run = await lsi.retrieve(bench.queries, 100);
  assert.equal(run.rankings.get(bench.queries[0].id)!.length, 100);
  const prf = await createRetriever("prf:lsi:64", bench);
  const prfRun = await prf.retrieve(bench.queries, 100);
  assert.notDeepEqual(prfRun.rankings.get(bench.queries[0].id), run.rankings.get(bench.queries[0].id));
  const fused = await (await createRetriever("rrf:bm25-greekstemmer+lsi:64", bench)).retrieve(bench.queries, 100);
  assert.equal(fused.rankings.size, bench.queries.length);
  await assert.rejects(createRetriever("rrf:lsi", bench), /at least two retrievers/);
  await assert.rejects(createRetriever("prf:nope", bench), /unknown retriever 'nope'/);
});

test("gbr reproduce runs the dense experiments against the doubles and skips none of them", async () => {
  const out = path.join(tmp, "out");
  const ids = ["dense:qwen3-8b", "prf:dense:qwen3-8b", "rrf:bm25-greekstemmer+dense:qwen3-8b", "dense:gemini-001"];
  const child = spawn(process.execPath, [path.join(REPO, "bin", "gbr.js"), "reproduce", "--data", "sample", "--out", out, "--only", ids.join(",")], {
    env: { ...process.env, CI: "true" },
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  assert.equal(code, 0, stderr);
  const rows = readFileSync(path.join(out, "sample", "summary.csv"), "utf8").trim().split("\n").slice(1).map((l) => l.split(","));
  assert.deepEqual(rows.map((c) => [c[0], c[2]]).sort(), ids.map((id) => [id, "ok"]).sort());
});

test("--ann: the IVF_PQ index is built once and its recall against exact search is reported", async () => {
  const docs = Array.from({ length: 300 }, (_, i) => ({ id: `Χ::${i}`, text: `άρθρο ${i} για θέμα ${i % 17} και ${i % 5}` }));
  const queries = Array.from({ length: 5 }, (_, i) => ({ id: `q${i}`, text: `θέμα ${i}` }));
  const big: Benchmark = { name: "ann", docs, queries, qrels: new Map(queries.map((q) => [q.id, new Set([`Χ::${q.id.slice(1)}`])])), meta: new Map() };
  const logs: string[] = [];
  const r = await createRetriever("dense:qwen3-8b", big, { ann: { nprobes: 64, refineFactor: 10 }, log: (m) => logs.push(m) });
  const run = await r.retrieve(queries, 100);
  assert.equal(run.rankings.get("q0")!.length, 100);
  const line = logs.find((l) => l.includes("ANN recall@100"));
  assert.ok(line, logs.join("\n"));
  const recall = Number(line!.split(" ").pop());
  assert.ok(recall > 0.5 && recall <= 1, line);
  assert.ok(logs.some((l) => l.includes("building the IVF_PQ index")));
  const logs2: string[] = [];
  await createRetriever("dense:qwen3-8b", big, { ann: {}, log: (m) => logs2.push(m) });
  assert.ok(!logs2.some((l) => l.includes("building")), "the index is reused");
});
