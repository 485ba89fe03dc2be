/**
 * Cross-encoder re-ranking of BM25 on the bundled sample against the local rerank double: the
 * order computed here from the double's score function (ties included), the score cache (a
 * rerun sends nothing; a run killed with SIGKILL resumes with only the missing pairs), retries,
 * final errors, the unconfigured case, truncation and the stand-in mark. Each test has its own
 * GBR_DATA_DIR under a temporary folder.
 */
import { readConfig } from "../../lib/config";
import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, promises as fs, readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRetriever } from "../../lib/retrievers";
import { loadBenchmark } from "../../lib/data/source";
import { crossEncoderRerankRun, type CrossEncoderOptions } from "../../lib/rerank/cross-encoder";
import { rerankClientFrom, type RerankClientOptions } from "../../lib/providers/rerank-client";
import { RerankError } from "../../lib/models/rerank";
import { allRerankPresets, rerankPreset, type RerankPreset } from "../../lib/rerank/presets";
import { userPresetsFile } from "../../lib/dense/presets";
import { openDataStore, openScoreCache } from "../../lib/store";
import { DataError, GbrError, isUnavailable } from "../../lib/util/errors";
import type { Benchmark, Run } from "../../lib/types";
import { defaultRerankScore, startRerankDouble, type RerankDouble } from "../fakes/rerank-server";
import { REPO } from "../helpers/shared";

const ENV = ["GBR_DATA_DIR", "GBR_RERANK_BASE_URL", "GBR_RERANK_API_KEY", "GBR_RERANK_API", "GBR_REQUEST_TIMEOUT_S", "GBR_PRESETS"];
const saved: Record<string, string | undefined> = {};
let tmp = "";
let dirs = 0;
let bench: Benchmark;
let first: Run;
let docText: Map<string, string>;
let api: RerankDouble;
const BGE = "bge-reranker-v2-m3";

/** Distinct lower-cased words of the query found in the article, capped at 3: a score full of ties. */
function tiedScore(query: string, document: string): number {
  const words = (s: string) => s.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  const inDoc = new Set(words(document));
  return Math.min(3, [...new Set(words(query))].filter((w) => inDoc.has(w)).length);
}

/**
 * The re-ranked run as this test computes it, by another route than the library: the head's
 * score values from highest to lowest, each taking its articles in the first stage's order,
 * then the remainder, cut to k.
 */
function expected(score: (q: string, d: string) => number, depth = 100, k = 100): { rankings: Map<string, string[]>; scores: Map<string, number[]> } {
  const rankings = new Map<string, string[]>();
  const scores = new Map<string, number[]>();
  for (const q of bench.queries) {
    const list = first.rankings.get(q.id)!;
    const head = list.slice(0, depth);
    const s = new Map(head.map((id) => [id, score(q.text, docText.get(id)!)]));
    const levels = [...new Set(s.values())].sort((a, b) => b - a);
    const ranked = levels.flatMap((v) => head.filter((id) => s.get(id) === v));
    const out = [...ranked, ...list.slice(depth)].slice(0, k);
    rankings.set(q.id, out);
    if (out.length <= head.length) scores.set(q.id, out.map((id) => s.get(id)!));
  }
  return { rankings, scores };
}

/** test/fixtures/rerank-crash-child.ts on a data folder against a rerank server: the process, its output so far, its exit. */
function rerankChild(dataDir: string, url: string) {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(REPO, "test", "fixtures", "rerank-crash-child.ts")], {
    cwd: REPO,
    env: { ...process.env, GBR_DATA_DIR: dataDir, GBR_RERANK_BASE_URL: url },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (output += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** The current data folder (GBR_DATA_DIR, set per test). */
const dataDir = () => readConfig(process.env).dataDir;

/** The pair scores of the current data folder's store. */
async function scoreCache(log: (m: string) => void = () => {}) {
  return openScoreCache(await openDataStore({ dataDir: dataDir(), log }));
}

/** A fresh data folder for the test about to run. */
async function freshDataDir(): Promise<string> {
  const dir = path.join(tmp, `data-${++dirs}`);
  await fs.mkdir(dir, { recursive: true });
  process.env.GBR_DATA_DIR = dir;
  return dir;
}

async function rerun(preset: RerankPreset | string, opts: CrossEncoderOptions & { client?: Partial<RerankClientOptions> } = {}): Promise<Run> {
  const p = typeof preset === "string" ? rerankPreset(preset, allRerankPresets(userPresetsFile(readConfig(process.env)))) : preset;
  const { client, ...rest } = opts;
  return crossEncoderRerankRun(p, rerankClientFrom(readConfig(process.env).rerank, { backoffMs: 1, ...client }), bench.queries, first, docText, { cache: await scoreCache(), ...rest });
}

before(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-rerank-test-"));
  for (const k of ENV) (saved[k] = process.env[k]), delete process.env[k];
  bench = (await loadBenchmark("sample")).benchmark;
  docText = new Map(bench.docs.map((d) => [d.id, d.text]));
  first = await (await createRetriever("bm25-greekstemmer", bench)).retrieve(bench.queries, 100);
  api = await startRerankDouble();
});

beforeEach(async () => {
  await freshDataDir();
  api.reset();
  process.env.GBR_RERANK_BASE_URL = api.url;
  for (const k of ["GBR_RERANK_API_KEY", "GBR_RERANK_API", "GBR_REQUEST_TIMEOUT_S", "GBR_PRESETS"]) delete process.env[k];
});

after(async () => {
  await api?.close();
  for (const k of ENV) if (saved[k] === undefined) delete process.env[k]; else process.env[k] = saved[k];
  await fs.rm(tmp, { recursive: true, force: true });
});

test("the re-ranked run is the order computed from the double's scores, ties in the first stage's order; a rerun sends nothing", async () => {
  const tied = await startRerankDouble({ score: tiedScore, apiKey: "rerank-key" });
  try {
    process.env.GBR_RERANK_BASE_URL = tied.url;
    process.env.GBR_RERANK_API_KEY = "rerank-key";
    const run = await rerun(BGE);
    const want = expected(tiedScore);
    assert.deepEqual(run.rankings, want.rankings);
    assert.deepEqual(run.scores, want.scores);
    // The ties are real: 100 articles in at most four score levels for every query, so the
    // equality above checks the first stage's order inside each level.
    const q0 = bench.queries[0].id;
    for (const s of run.scores!.values()) assert.ok(s.length === 100 && new Set(s).size <= 4);

    // What was sent: the plain texts, 32 documents at most, top_n for all of them, the key as a bearer token.
    const sent = tied.requests();
    assert.equal(sent.length, bench.queries.length * Math.ceil(100 / 32));
    for (const r of sent) {
      assert.equal(r.path, "/rerank");
      assert.equal(r.authorization, "Bearer rerank-key");
      assert.equal(r.body!.model, "BAAI/bge-reranker-v2-m3");
      assert.ok(r.body!.documents!.length <= 32);
      assert.equal(r.body!.top_n, r.body!.documents!.length);
    }
    assert.ok(sent.some((r) => r.body!.query === bench.queries[0].text && r.body!.documents!.includes(docText.get(first.rankings.get(q0)![0])!)));

    const pairs = bench.queries.length * 100;
    assert.deepEqual(run.info, {
      retriever: "rerank:bge-reranker-v2-m3:bm25-greekstemmer",
      rerank: {
        reranker: BGE,
        kind: "cross-encoder",
        model: "BAAI/bge-reranker-v2-m3",
        endpoint: tied.url,
        depth: 100,
        pairs,
        reusedPairs: 0,
        truncated: 0,
        calls: sent.length,
        servedModels: ["BAAI/bge-reranker-v2-m3"],
        standIn: true,
      },
      parts: [first.info],
    });
    assert.equal(run.cost!.online.rerankPairs, pairs);
    assert.equal(run.cost!.online.rerankCalls, sent.length);
    assert.ok(run.cost!.online.seconds > first.cost!.online.seconds);

    // (b) Everything from the score cache: no request, the same run and the same cost.
    const again = await rerun(BGE);
    assert.equal(tied.count(), sent.length, "no request the second time");
    assert.deepEqual(again.rankings, run.rankings);
    assert.deepEqual(again.scores, run.scores);
    assert.deepEqual(again.cost, run.cost);
    assert.deepEqual({ ...again.info!.rerank!, servedModels: [] }, { ...run.info!.rerank!, reusedPairs: pairs, calls: 0, servedModels: [] });
    assert.equal(again.info!.rerank!.standIn, true, "the stand-in mark is kept with the cached scores");

    // A wrong key is refused at once, with the server's message and status, and not retried.
    process.env.GBR_RERANK_API_KEY = "wrong";
    await freshDataDir();
    const before = tied.count();
    await assert.rejects(rerun(BGE, { concurrency: 1 }), (e: unknown) => e instanceof RerankError && e.status === 401 && /HTTP 401: invalid API key/.test(e.message) && !e.message.includes("wrong"));
    assert.equal(tied.count(), before + 1);
  } finally {
    await tied.close();
  }
});

test("depth and k: the head is re-ranked, the rest follows in the first stage's order; scores only where every article was re-scored", async () => {
  // The expectation's copy of the double's default score is the double's.
  for (const d of bench.docs.slice(0, 5)) assert.equal(defaultScore(bench.queries[0].text, d.text), defaultRerankScore(bench.queries[0].text, d.text));
  // A base URL ending in /v1 (vLLM's OpenAI-style prefix, Jina, Cohere) is followed.
  process.env.GBR_RERANK_BASE_URL = `${api.url}/v1`;
  const shallow = await rerun(BGE, { depth: 10, k: 20 });
  assert.ok(api.requests().every((r) => r.path === "/v1/rerank"));
  assert.deepEqual(shallow.rankings, expected(defaultScore, 10, 20).rankings);
  assert.equal(shallow.scores!.size, 0);
  assert.equal(shallow.info!.rerank!.pairs, bench.queries.length * 10);
  assert.equal(api.pairs(), bench.queries.length * 10);

  const cut = await rerun(BGE, { depth: 50, k: 10 });
  const want = expected(defaultScore, 50, 10);
  assert.deepEqual(cut.rankings, want.rankings);
  assert.deepEqual(cut.scores, want.scores);
  // The first ten of each head were scored already, with the same fingerprint.
  assert.equal(cut.info!.rerank!.reusedPairs, bench.queries.length * 10);
});

test("a run killed with SIGKILL resumes: only the missing pairs are asked, and the result is the uninterrupted run's", { timeout: 120_000 }, async () => {
  const dataDir = process.env.GBR_DATA_DIR!;
  const slow = await startRerankDouble({ delayMs: 150 });
  let sentByChild = 0;
  try {
    const { child, output: out, exited } = rerankChild(dataDir, slow.url);
    const output = () => out();
    const deadline = Date.now() + 90_000;
    while (slow.count() < 6) {
      if (Date.now() > deadline || child.exitCode !== null) assert.fail(`the child did not get going (${slow.count()} requests): ${output()}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    child.kill("SIGKILL");
    await exited;
    assert.doesNotMatch(output(), /finished/);
    sentByChild = slow.pairs();
  } finally {
    await slow.close();
  }

  const cache = await scoreCache();
  assert.ok(cache.size >= 5 * 32 - 32 && cache.size <= sentByChild, `cached ${cache.size} of ${sentByChild} pairs sent`);
  assert.ok(sentByChild - cache.size <= 32, "at most the batch in flight was lost");

  const resumed = await rerun(BGE);
  const needed = bench.queries.length * 100;
  assert.equal(api.pairs(), needed - cache.size, "only the missing pairs are asked");
  assert.ok(sentByChild + api.pairs() >= needed && sentByChild + api.pairs() <= needed + 32);
  assert.equal(resumed.info!.rerank!.reusedPairs, cache.size);

  await freshDataDir();
  const whole = await rerun(BGE);
  assert.deepEqual(resumed.rankings, whole.rankings);
  assert.deepEqual(resumed.scores, whole.scores);
  assert.deepEqual(resumed.rankings, expected(defaultScore).rankings);
});

test("two processes re-ranking on one data folder make each request once, and both finish with every score", { timeout: 120_000 }, async () => {
  const dataDir = await freshDataDir();
  const slow = await startRerankDouble({ delayMs: 20 });
  try {
    const child = async () => {
      const c = rerankChild(dataDir, slow.url);
      return { code: await c.exited, output: c.output() };
    };
    const [a, b] = await Promise.all([child(), child()]);
    assert.equal(a.code, 0, a.output);
    assert.equal(b.code, 0, b.output);
    assert.match(a.output, /finished/);
    assert.match(b.output, /finished/);
    const requests = bench.queries.length * 4; // 100 articles a question, 32 a request
    console.log(`# two processes, ${bench.queries.length * 100} pairs: ${slow.count()} rerank requests (${requests} needed), ${slow.pairs()} pairs sent`);
    assert.equal(slow.count(), requests, "each request made once");
    assert.equal(slow.pairs(), bench.queries.length * 100, "each pair sent once");
    const root = path.join(dataDir, "store", "rerank");
    const records = (await fs.readdir(root)).flatMap((d) => readdirSync(path.join(root, d)).filter((f) => f.endsWith(".json")));
    assert.equal(records.length, requests, "one record per request");
    assert.equal((await scoreCache()).size, bench.queries.length * 100);
  } finally {
    await slow.close();
  }
});

test("429 with Retry-After is waited out and retried; a 500 every time fails naming the status, the URL and the attempts", async () => {
  const waits: number[] = [];
  api.fault({ status: 429, retryAfter: "2" });
  const run = await rerun(BGE, { client: { sleep: async (ms) => void waits.push(ms) } });
  assert.deepEqual(waits, [2000], "Retry-After: 2 honoured");
  assert.deepEqual(run.rankings, expected(defaultScore).rankings);
  assert.equal(api.count(), bench.queries.length * 4 + 1);

  await freshDataDir();
  api.reset();
  api.fault({ status: 500, times: 1000, message: "CUDA out of memory" });
  await assert.rejects(rerun(BGE, { concurrency: 1, client: { attempts: 3 } }), (e: unknown) => {
    assert.ok(e instanceof RerankError && e.status === 500 && !e.unavailable, String(e));
    assert.equal(e.message, `rerank at ${api.url}/rerank: HTTP 500: CUDA out of memory (after 3 attempts)`);
    return true;
  });
  assert.equal(api.count(), 3, "the first failure stops the run");
  assert.equal((await scoreCache()).size, 0);

  // A request the server refuses is not retried; a dropped connection is.
  api.reset();
  api.fault({ status: 400, message: "x".repeat(1000) });
  await assert.rejects(rerun(BGE, { concurrency: 1 }), (e: unknown) => e instanceof RerankError && e.status === 400 && e.message.includes("… (1000 characters)") && e.message.length < 500);
  assert.equal(api.count(), 1);
  api.reset();
  api.fault({ drop: true });
  assert.deepEqual((await rerun(BGE)).rankings, expected(defaultScore).rankings);

  // A server slower than the timeout: TIMEOUT, retried, then final.
  const slow = await startRerankDouble({ delayMs: 400 });
  try {
    process.env.GBR_RERANK_BASE_URL = slow.url;
    process.env.GBR_REQUEST_TIMEOUT_S = "0.05";
    await freshDataDir();
    await assert.rejects(rerun(BGE, { concurrency: 1, client: { attempts: 2 } }), (e: unknown) => e instanceof RerankError && e.code === "TIMEOUT" && /timed out after 50 ms \(after 2 attempts\)/.test(e.message));
  } finally {
    await slow.close();
  }
});

test("no GBR_RERANK_BASE_URL: unavailable, saying what to set; credentials in the URL are refused, masked", () => {
  assert.throws(
    () => rerankClientFrom(readConfig({}).rerank),
    (e: unknown) => e instanceof RerankError && isUnavailable(e) && e.code === "NOT_CONFIGURED" && /set GBR_RERANK_BASE_URL/.test(e.message),
  );
  assert.throws(
    () => rerankClientFrom(readConfig({ GBR_RERANK_BASE_URL: "http://user:s3cret-key@127.0.0.1:1" }).rerank),
    (e: unknown) => e instanceof GbrError && e.code === "CREDENTIALS_IN_URL" && e.message.includes("http://***:***@127.0.0.1:1") && !e.message.includes("s3cret-key"),
  );
  assert.throws(() => rerankClientFrom(readConfig({ GBR_RERANK_BASE_URL: "http://x", GBR_RERANK_API: "cohere" }).rerank), /GBR_RERANK_API must be "rerank" or "tei"/);
});

test("articles over the preset's limit are cut before sending and counted; the limit is part of the cache key", async () => {
  const presets = path.join(tmp, "presets.json");
  await fs.writeFile(presets, JSON.stringify({ presets: [], rerankers: [{ name: "tiny-bge", model: "BAAI/bge-reranker-v2-m3", maxDocumentChars: 450 }] }));
  process.env.GBR_PRESETS = presets;
  const run = await rerun("tiny-bge");
  const heads = new Set([...first.rankings.values()].flatMap((r) => r.slice(0, 100)));
  const long = [...heads].filter((id) => docText.get(id)!.length > 450);
  assert.ok(long.length > 0 && long.length < heads.size);
  assert.equal(run.info!.rerank!.truncated, long.length);
  const sent = api.requests().flatMap((r) => r.body!.documents!);
  assert.ok(sent.every((d) => d.length <= 450));
  assert.ok(sent.includes(docText.get(long[0])!.slice(0, 450)));
  // Scored on the cut texts, as the server saw them.
  assert.deepEqual(run.rankings, expected((q, d) => defaultScore(q, d.slice(0, 450))).rankings);

  // The full-length preset shares no score with the cut one.
  const n = api.count();
  const full = await rerun(BGE);
  assert.equal(full.info!.rerank!.reusedPairs, 0);
  assert.ok(api.count() > n);
});

test("the stand-in mark reaches the run, from the server and from the cache; TEI's shape is spoken too", async () => {
  const run = await rerun(BGE);
  assert.equal(run.info!.rerank!.standIn, true);
  // One record per request (four per question: 32, 32, 32 and 4 articles), each pair marked.
  const root = path.join(dataDir(), "store", "rerank");
  const records = (await fs.readdir(root)).flatMap((d) => readdirSync(path.join(root, d)).map((f) => JSON.parse(readFileSync(path.join(root, d, f), "utf8"))));
  assert.equal(records.length, bench.queries.length * 4);
  const pairs = records.flatMap((r) => r.scores);
  assert.equal(pairs.length, bench.queries.length * 100);
  assert.match(JSON.stringify(pairs[0]), /^\{"k":"[0-9a-f]{64}","s":[-0-9.e]+,"t":[0-9.e-]+,"d":true\}$/);
  assert.equal((await rerun(BGE)).info!.rerank!.standIn, true);

  const tei = await startRerankDouble({ tei: true });
  try {
    process.env.GBR_RERANK_BASE_URL = tei.url;
    process.env.GBR_RERANK_API = "tei";
    await freshDataDir();
    const viaTei = await rerun(BGE);
    assert.equal(viaTei.info!.rerank!.standIn, true);
    assert.deepEqual(viaTei.info!.rerank!.servedModels, []);
    assert.deepEqual(viaTei.rankings, run.rankings);
    const body = tei.requests()[0].body!;
    assert.deepEqual(Object.keys(body).sort(), ["query", "raw_scores", "texts"]);
  } finally {
    await tei.close();
  }
});

test("a v0.8 score cache is migrated into the store once: a torn last line and a damaged line are skipped and reported", async () => {
  await freshDataDir();
  const file = path.join(dataDir(), "rerank", "scores.jsonl");
  await fs.mkdir(path.dirname(file), { recursive: true });
  const k = (c: string) => c.repeat(64);
  await fs.writeFile(file, `{"k":"${k("a")}","s":0.5}\n\n{"k":"${k("b")}","s":0.25,"d":true}\n{"k":"${k("d")}","s":"high"}\nnot json\n{"k":"${k("c")}","s":0.`);
  const logs: string[] = [];
  const cache = await scoreCache((m) => logs.push(m));
  assert.equal(cache.size, 2);
  assert.deepEqual(cache.get(k("b")), { score: 0.25, standIn: true });
  assert.equal(cache.get(k("d")), undefined);
  assert.match(logs.join("\n"), /line 5 \(not valid JSON\)/); // valid UTF-8, so only the JSON is named
  assert.match(logs.join("\n"), /migrated .*scores\.jsonl \(v0\.8\) into .*store: 1 rerank records added/);
  assert.ok(existsSync(`${file}.migrated`) && !existsSync(file));
  const quiet: string[] = [];
  assert.equal((await scoreCache((m) => quiet.push(m))).size, 2);
  assert.deepEqual(quiet, []);
});

/** The double's default score (kept beside the test's own expectation so a change to the double shows here). */
function defaultScore(query: string, document: string): number {
  const words = (s: string) => s.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  const docWords = words(document);
  const inDoc = new Set(docWords);
  return [...new Set(words(query))].filter((w) => inDoc.has(w)).length / (docWords.length + 1);
}
