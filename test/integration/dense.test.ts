import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { promises as fs, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { readBeir } from "../../lib/data/beir";
import { createRetriever } from "../../lib/retrievers";
import { QWEN_TASK } from "../../lib/dense/presets";
import { EmbeddingError } from "../../lib/models/embed";
import type { DenseRetriever, VectorRetriever } from "../../lib/dense/retriever";
import type { Benchmark } from "../../lib/types";
import { fakeTokens, startOpenAIDouble, type OpenAIDouble } from "../fakes/openai-server";
import { startGeminiDouble, type GeminiDouble } from "../fakes/gemini-server";
import { REPO } from "../helpers/shared";

let tmp = "";
let bench: Benchmark;
let openai: OpenAIDouble;
let gemini: GeminiDouble;
const saved: Record<string, string | undefined> = {};
const ENV = [
  "GBR_DATA_DIR",
  "GBR_EMBED_BASE_URL",
  "GBR_EMBED_API_KEY",
  "OPENAI_BASE_URL",
  "OPENAI_API_KEY",
  "GEMINI_API_KEY",
  "GOOGLE_API_KEY",
  "GBR_GEMINI_BASE_URL",
  "GBR_PRESETS",
  "GBR_EMBED_NAMES",
  "GBR_LMSTUDIO_BASE_URL",
  "GBR_LMSTUDIO_API_KEY",
];

/** Runs `fn` with some variables set (undefined: unset), then restores them. */
async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const before: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(vars)) {
    before[k] = process.env[k];
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(before)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
  }
}

/** A few articles and queries of the sample: enough to see every request, few enough to count them. */
const small = (b: Benchmark, docs = 3, queries = 2): Benchmark => ({ ...b, docs: b.docs.slice(0, docs), queries: b.queries.slice(0, queries) });

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
  assert.equal(r.usage.documentRequests + r.usage.queryRequests, sent.length);

  // The double counts words as tokens; every count below is the provider's, none estimated.
  const docTokens = fakeTokens(bench.docs.map((d) => d.text));
  const queryTokens = fakeTokens(bench.queries.map((q) => `Instruct: ${QWEN_TASK}\nQuery:${q.text}`));
  assert.deepEqual(
    { documentTokens: r.usage.documentTokens, documentTokensEstimated: r.usage.documentTokensEstimated, queryTokens: r.usage.queryTokens, queryTokensEstimated: r.usage.queryTokensEstimated },
    { documentTokens: docTokens, documentTokensEstimated: 0, queryTokens, queryTokensEstimated: 0 },
  );
  assert.equal(r.usage.queryTexts, bench.queries.length);
  assert.equal(r.usage.queryRequests, 1);
  assert.ok(r.usage.documentSeconds > 0);

  const n = openai.embeddingRequests().length;
  const again = (await createRetriever("dense:qwen3-8b", bench)) as VectorRetriever;
  const run2 = await again.retrieve(bench.queries, 100);
  assert.equal(openai.embeddingRequests().length, n, "everything came from the LanceDB cache");
  assert.deepEqual(run2.rankings, run.rankings);
  assert.equal(again.usage.cachedVectors, bench.docs.length + bench.queries.length);
  // Served from the cache, yet the same tokens as the run that paid for them.
  const pick = (u: VectorRetriever["usage"]) => ({ documentTokens: u.documentTokens, documentTokensEstimated: u.documentTokensEstimated, queryTokens: u.queryTokens, queryTokensEstimated: u.queryTokensEstimated, queryTexts: u.queryTexts });
  assert.deepEqual(pick(again.usage), pick(r.usage));
  assert.deepEqual({ documentRequests: again.usage.documentRequests, queryRequests: again.usage.queryRequests }, { documentRequests: 0, queryRequests: 0 });
});

test("info says what a dense retriever runs: preset, provider, model as sent, endpoint host, templates, batch, naming", async () => {
  const r = (await createRetriever("dense:qwen3-8b", bench)) as DenseRetriever;
  assert.deepEqual(r.info, {
    preset: "qwen3-8b",
    provider: "openai",
    model: "Qwen/Qwen3-Embedding-8B",
    endpoint: openai.url,
    queryTemplate: `Instruct: ${QWEN_TASK}\nQuery:{text}`,
    documentTemplate: "{text}",
    batchSize: 32,
    input: "array",
    naming: "hf",
  });
  const g = (await createRetriever("dense:gemini-001", small(bench))) as DenseRetriever;
  assert.deepEqual({ provider: g.info.provider, model: g.info.model, endpoint: g.info.endpoint, batchSize: g.info.batchSize, input: g.info.input }, { provider: "gemini", model: "gemini-embedding-001", endpoint: gemini.url, batchSize: 100, input: undefined });
});

test("an answer without usage gives estimated tokens, marked as such, and the cached rerun reports the same", async () => {
  const quiet = await startOpenAIDouble({ dims: 16, usage: false });
  const file = path.join(tmp, "quiet-presets.json");
  await fs.writeFile(file, JSON.stringify({ presets: [{ name: "quiet", provider: "openai", model: "quiet-model", queryTemplate: "q: {text}", documentTemplate: "{text}" }] }));
  try {
    await withEnv({ GBR_EMBED_BASE_URL: `${quiet.url}/v1`, GBR_PRESETS: file }, async () => {
      const b = small(bench, 5, 3);
      const r = (await createRetriever("dense:quiet", b)) as DenseRetriever;
      await r.retrieve(b.queries, 10);
      assert.ok(quiet.count("embeddings") > 0);
      assert.ok(r.usage.documentTokens > 0);
      assert.equal(r.usage.documentTokensEstimated, r.usage.documentTokens);
      assert.ok(r.usage.queryTokens > 0);
      assert.equal(r.usage.queryTokensEstimated, r.usage.queryTokens);
      const again = (await createRetriever("dense:quiet", b)) as DenseRetriever;
      await again.retrieve(b.queries, 10);
      assert.equal(again.usage.documentRequests + again.usage.queryRequests, 0);
      assert.deepEqual(
        [again.usage.documentTokens, again.usage.documentTokensEstimated, again.usage.queryTokens, again.usage.queryTokensEstimated],
        [r.usage.documentTokens, r.usage.documentTokensEstimated, r.usage.queryTokens, r.usage.queryTokensEstimated],
      );
    });
  } finally {
    await quiet.close();
  }
});

test("GBR_EMBED_NAMES=authors: the authors' served names, one text per request as a plain string; LM Studio presets go to GBR_LMSTUDIO_BASE_URL", async () => {
  // A second double plays LM Studio; 768 dimensions fit the EmbeddingGemma and Nomic presets.
  const lmstudio = await startOpenAIDouble({ dims: 768 });
  const none = path.join(tmp, "no-presets.json");
  await fs.writeFile(none, JSON.stringify({ presets: [] }));
  const b = small(bench);
  try {
    await withEnv(
      { GBR_EMBED_NAMES: "authors", GBR_PRESETS: none, GBR_LMSTUDIO_BASE_URL: `${lmstudio.url}/v1`, GBR_LMSTUDIO_API_KEY: "lm-studio", GBR_EMBED_API_KEY: "embed-server-key" },
      async () => {
        openai.reset();
        const euler = (await createRetriever("dense:euler-legal-v1", b)) as DenseRetriever;
        await euler.retrieve(b.queries, 10);
        const sent = openai.requests.filter((q) => q.route === "embeddings");
        assert.equal(sent.length, b.docs.length + b.queries.length, "one request per text");
        for (const q of sent) {
          assert.deepEqual(Object.keys(q.body!).sort(), ["input", "model"], "nothing but model and input");
          assert.equal(q.body!.model, "Mira190/Euler-Legal-Embedding-V1");
          assert.equal(typeof q.body!.input, "string");
          assert.equal(q.authorization, "Bearer embed-server-key");
        }
        assert.deepEqual(sent.map((q) => q.body!.input), [...b.docs.map((d) => d.text), ...b.queries.map((q) => q.text)]);
        assert.equal(lmstudio.count(), 0, "Euler is not an LM Studio model");
        assert.deepEqual(
          { model: euler.info.model, endpoint: euler.info.endpoint, batchSize: euler.info.batchSize, input: euler.info.input, naming: euler.info.naming },
          { model: "Mira190/Euler-Legal-Embedding-V1", endpoint: openai.url, batchSize: 1, input: "string", naming: "authors" },
        );
        assert.equal(euler.usage.queryRequests, b.queries.length);
        assert.equal(euler.usage.queryTexts, b.queries.length);

        openai.reset();
        const nomic = (await createRetriever("dense:nomic-v1.5", b)) as DenseRetriever;
        await nomic.retrieve(b.queries, 10);
        assert.equal(openai.count(), 0, "LM Studio presets do not go to GBR_EMBED_BASE_URL");
        const lm = lmstudio.requests.filter((q) => q.route === "embeddings");
        assert.equal(lm.length, b.docs.length + b.queries.length);
        assert.ok(lm.every((q) => q.body!.model === "text-embedding-nomic-embed-text-v1.5" && typeof q.body!.input === "string"));
        assert.ok(lm.every((q) => q.authorization === "Bearer lm-studio"), "LM Studio gets its own key, never the embedding server's");
        assert.ok(lm.some((q) => q.body!.input === `search_document: ${b.docs[0].text}`));
        assert.equal(nomic.info.endpoint, lmstudio.url);

        // EmbeddingGemma without prompts: the texts go out exactly as they are.
        lmstudio.reset();
        await (await createRetriever("dense:embgemma-300m-raw", b)).retrieve(b.queries, 10);
        assert.deepEqual(
          lmstudio.requests.map((q) => [q.body!.model, q.body!.input]),
          [...b.docs.map((d) => d.text), ...b.queries.map((q) => q.text)].map((t) => ["text-embedding-embeddinggemma-300m-qat", t]),
        );

        // Every LM Studio preset asks for its LM Studio name (Qwen's 4,096-dimensional vectors do
        // not fit this double, so the run stops after the first request, which is all we need).
        lmstudio.reset();
        await assert.rejects(createRetriever("dense:qwen3-8b", b), /dimensions/);
        assert.equal(lmstudio.requests[0].body!.model, "text-embedding-qwen3-embedding-8b");

        // Without GBR_LMSTUDIO_BASE_URL they go to GBR_EMBED_BASE_URL like any other.
        openai.reset();
        await withEnv({ GBR_LMSTUDIO_BASE_URL: undefined }, async () => {
          await assert.rejects(createRetriever("dense:qwen3-0.6b", b), /dimensions/);
        });
        assert.equal(openai.requests[0].body!.model, "text-embedding-qwen3-embedding-0.6b");
      },
    );
  } finally {
    await lmstudio.close();
    openai.reset();
  }
});

test("a bad GBR_EMBED_NAMES is an error naming the variable and the allowed values", async () => {
  await withEnv({ GBR_EMBED_NAMES: "huggingface" }, async () => {
    await assert.rejects(createRetriever("dense:qwen3-8b", small(bench)), /GBR_EMBED_NAMES must be "hf" or "authors", got 'huggingface'/);
  });
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
      createRetriever("dense:resume", bench, {}, {
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
