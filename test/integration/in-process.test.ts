/**
 * In-process models end to end (issue 31): a tiny embedder and a tiny cross-encoder that the test builds
 * (test/helpers/tiny-onnx.py), served as model repositories by a local Hub double, named in a presets file
 * with "provider": "local". `gbr search` must give the top 10 that transformers.js itself computes with the
 * same settings, and the same again with the Hub stopped.
 */
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { startHubDouble, type HubDouble } from "../fakes/hub-server";
import { buildTinyModels } from "../helpers/tiny-models";
import { spawn } from "node:child_process";
import { CLEARED, runGbr } from "../helpers/gbr";
import { REPO, requireShared } from "../helpers/shared";

type TJS = typeof import("@huggingface/transformers");
const SAMPLE = path.join(REPO, "data", "sample");

interface Line {
  _id: string;
  text: string;
}
const readJsonl = async (file: string): Promise<Line[]> =>
  (await fs.readFile(file, "utf8")).split("\n").filter(Boolean).map((l) => JSON.parse(l) as Line);

/** Top `k` ids by score, ties in the order given (corpus order, or the first stage's). */
function top(ids: readonly string[], scores: readonly number[], k: number): string[] {
  return ids.map((_, i) => i).sort((a, b) => scores[b] - scores[a] || a - b).slice(0, k).map((i) => ids[i]);
}

describe("in-process models: gbr search against transformers.js itself", () => {
  let T: TJS;
  let tmp: string;
  let embedHub: HubDouble | undefined;
  let ceHub: HubDouble | undefined;
  let presets: string;
  let dataDir: string;
  let queries: Line[];
  let corpus: Line[];

  before(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-local-"));
    dataDir = path.join(tmp, "data");
    const files = await buildTinyModels(path.join(tmp, "models"));
    embedHub = await startHubDouble({ kind: "models", repo: "org/tiny-embed", revision: "main", readme: "# tiny", files: files.embed });
    ceHub = await startHubDouble({ kind: "models", repo: "org/tiny-ce", revision: "main", readme: "# tiny", files: files.crossEncoder });
    presets = path.join(tmp, "gbr-presets.json");
    await fs.writeFile(presets, JSON.stringify({
      presets: [{ name: "tiny", provider: "local", model: "org/tiny-embed", revision: "main", dims: 32, pooling: "mean", normalize: true, dtype: "fp32", queryTemplate: "query: {text}", documentTemplate: "passage: {text}" }],
      rerankers: [{ name: "tiny-ce", provider: "local", model: "org/tiny-ce", revision: "main", dtype: "fp32", maxDocumentChars: 1000000 }],
    }));
    queries = await readJsonl(path.join(SAMPLE, "queries.jsonl"));
    corpus = await readJsonl(path.join(SAMPLE, "corpus.jsonl"));
    T = await import("@huggingface/transformers");
    T.env.allowLocalModels = false;
    T.env.cacheDir = path.join(tmp, "tjs-cache");
  });
  after(async () => {
    await embedHub?.close();
    await ceHub?.close();
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  const search = async (retriever: string, hub: HubDouble | undefined, k = 10) => {
    const out = path.join(tmp, `${retriever.replace(/[^a-z0-9-]/gi, "_")}-${Date.now()}.json`);
    const env = { GBR_PRESETS: presets, HF_ENDPOINT: hub?.url ?? "http://unreachable.invalid" };
    const r = await runGbr(["search", "--data", "sample", "--retriever", retriever, "--k", String(k), "--format", "json", "--out", out], { dataDir, env });
    assert.equal(r.code, 0, r.stderr);
    lastStderr = r.stderr;
    return JSON.parse(await fs.readFile(out, "utf8")) as Record<string, string[]>;
  };
  let lastStderr = "";

  test("dense:tiny equals the feature-extraction pipeline's top 10; again with the Hub stopped, from the cache", async () => {
    const got = await search("dense:tiny", embedHub);
    T.env.remoteHost = `${embedHub!.url}/`;
    const fe = await T.pipeline("feature-extraction", "org/tiny-embed", { dtype: "fp32", revision: "main" });
    const embed = async (texts: string[]) => (await fe(texts, { pooling: "mean", normalize: true })).tolist() as number[][];
    const docs = await embed(corpus.map((d) => `passage: ${d.text}`));
    const qs = await embed(queries.map((q) => `query: ${q.text}`));
    const ids = corpus.map((d) => d._id);
    queries.forEach((q, i) => {
      const scores = docs.map((d) => d.reduce((s, x, j) => s + x * qs[i][j], 0));
      assert.deepEqual(got[q._id], top(ids, scores, 10), `query ${q._id}`);
    });

    const requests = embedHub!.fileRequests();
    const hub = embedHub!;
    embedHub = undefined;
    await hub.close();
    assert.deepEqual(await search("dense:tiny", undefined), got);
    assert.equal(hub.fileRequests(), requests);
    assert.doesNotMatch(lastStderr, /embedding \d+ in \d+ requests/, "the second run embeds nothing");
  });

  test("rerank:tiny-ce:bm25-greekstemmer equals the raw logits of the model on each text pair", async () => {
    const first = await search("bm25-greekstemmer", undefined, 100);
    const got = await search("rerank:tiny-ce:bm25-greekstemmer", ceHub);
    T.env.remoteHost = `${ceHub!.url}/`;
    const tok = await T.AutoTokenizer.from_pretrained("org/tiny-ce", { revision: "main" });
    const model = await T.AutoModelForSequenceClassification.from_pretrained("org/tiny-ce", { revision: "main", dtype: "fp32" });
    const text = new Map(corpus.map((d) => [d._id, d.text]));
    for (const q of queries) {
      const head = first[q._id].slice(0, 100);
      const enc = tok(head.map(() => q.text), { text_pair: head.map((id) => text.get(id)!), padding: true, truncation: true });
      const logits = Array.from((await model(enc)).logits.data as Float32Array);
      assert.deepEqual(got[q._id], top(head, logits, 10), `query ${q._id}`);
    }

    const hub = ceHub!;
    ceHub = undefined;
    await hub.close();
    assert.deepEqual(await search("rerank:tiny-ce:bm25-greekstemmer", undefined), got);
  });
});

describe("in-process models on the real corpus: kill -9 and resume, two processes on one data folder", () => {
  let tmp: string;
  let hub: HubDouble;
  let env: Record<string, string>;
  let corpusDir: string;

  before(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-local-kill-"));
    // greeklaws-2021's articles cut to 200 characters (the tiny model reads 32 tokens; whole articles only cost
    // tokenising time), its sample questions and their judgments, as a BEIR folder.
    const shared = requireShared("data", "greeklaws-2021");
    corpusDir = path.join(tmp, "greeklaws-2021-short");
    await fs.mkdir(path.join(corpusDir, "qrels"), { recursive: true });
    const articles = (await readJsonl(path.join(shared, "corpus.jsonl"))).map((d) => JSON.stringify({ ...d, text: d.text.slice(0, 200) }));
    await fs.writeFile(path.join(corpusDir, "corpus.jsonl"), articles.join("\n") + "\n");
    await fs.copyFile(path.join(shared, "queries-sample.jsonl"), path.join(corpusDir, "queries.jsonl"));
    await fs.copyFile(path.join(shared, "qrels", "sample.tsv"), path.join(corpusDir, "qrels", "test.tsv"));
    const files = await buildTinyModels(path.join(tmp, "models"));
    hub = await startHubDouble({ kind: "models", repo: "org/tiny-embed", revision: "main", readme: "# tiny", files: files.embed });
    const presets = path.join(tmp, "gbr-presets.json");
    await fs.writeFile(presets, JSON.stringify({ presets: [{ name: "tiny", provider: "local", model: "org/tiny-embed", revision: "main", pooling: "mean", normalize: true }] }));
    env = { GBR_PRESETS: presets, HF_ENDPOINT: hub.url };
  });
  after(async () => {
    await hub?.close();
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  const args = (out: string) => ["search", "--data", corpusDir, "--retriever", "dense:tiny", "--k", "10", "--format", "json", "--out", out];
  const plan = /(\d+) of (\d+) document vectors cached; embedding (\d+)/;

  test("a run killed with SIGKILL during the corpus embedding resumes with only the rest, and ranks as an uninterrupted run", { timeout: 240_000 }, async () => {
    const dataDir = path.join(tmp, "killed");
    const child = spawn(process.execPath, [path.join(REPO, "bin", "gbr.js"), ...args(path.join(tmp, "never.json"))], {
      env: { ...process.env, ...Object.fromEntries(CLEARED.map((k) => [k, ""])), CI: "true", GBR_DATA_DIR: dataDir, ...env },
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
    const deadline = Date.now() + 120_000;
    // Killed once the vector store holds some batches (three data files: two are committed), long before the last.
    const stored = async () => {
      const files = await fs.readdir(path.join(dataDir, "lancedb"), { recursive: true }).catch(() => [] as string[]);
      return files.filter((f) => /\.lance[\\/]data[\\/].+\.lance$/.test(f)).length >= 3;
    };
    while (!(await stored())) {
      if (Date.now() > deadline || child.exitCode !== null) assert.fail(`the child stored no vectors: ${stderr}`);
      await new Promise((r) => setTimeout(r, 5));
    }
    child.kill("SIGKILL");
    await exited;

    const out = path.join(tmp, "resumed.json");
    const resumed = await runGbr(args(out), { dataDir, env });
    assert.equal(resumed.code, 0, resumed.stderr);
    const m = plan.exec(resumed.stderr);
    assert.ok(m, `the rerun embedded nothing: ${resumed.stderr}`);
    const [cached, total, embedded] = [Number(m[1]), Number(m[2]), Number(m[3])];
    assert.ok(cached > 0 && cached < total, `${cached} of ${total} cached after the kill`);

    const whole = path.join(tmp, "whole.json");
    const fresh = await runGbr(args(whole), { dataDir: path.join(tmp, "fresh"), env });
    assert.equal(fresh.code, 0, fresh.stderr);
    // Counts of distinct texts (the corpus repeats a few articles): the rerun embeds what the kill left, no more.
    const all = Number(plan.exec(fresh.stderr)![3]);
    assert.ok(embedded < all && embedded >= all - cached, `embedded ${embedded} after the kill, ${all} in a fresh run, ${cached} cached`);
    assert.deepEqual(JSON.parse(await fs.readFile(out, "utf8")), JSON.parse(await fs.readFile(whole, "utf8")));
  });

  test("two processes on one data folder both finish with the same ranking", { timeout: 240_000 }, async () => {
    const dataDir = path.join(tmp, "shared");
    const [a, b] = await Promise.all([runGbr(args(path.join(tmp, "a.json")), { dataDir, env }), runGbr(args(path.join(tmp, "b.json")), { dataDir, env })]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    assert.deepEqual(JSON.parse(await fs.readFile(path.join(tmp, "a.json"), "utf8")), JSON.parse(await fs.readFile(path.join(tmp, "b.json"), "utf8")));
    const third = await runGbr(args(path.join(tmp, "c.json")), { dataDir, env });
    assert.doesNotMatch(third.stderr, plan, "everything was stored by the two");
  });
});

describe("in-process models in --plan and in a skipped row's reason", () => {
  let tmp: string;
  let hub: HubDouble;
  let ceHub: HubDouble;

  before(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-local-plan-"));
    const files = await buildTinyModels(path.join(tmp, "models"));
    hub = await startHubDouble({ kind: "models", repo: "org/tiny-embed", revision: "main", readme: "# tiny", files: files.embed });
    ceHub = await startHubDouble({ kind: "models", repo: "org/tiny-ce", revision: "main", readme: "# tiny", files: files.crossEncoder });
  });
  after(async () => {
    await hub?.close();
    await ceHub?.close();
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  test("without a server, a built-in with an in-process form says that --local would run it, and roughly how long", async () => {
    const r = await runGbr(["search", "--data", "sample", "--retriever", "dense:embgemma-300m", "--k", "5"], { dataDir: path.join(tmp, "skip") });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /no OpenAI-compatible embedding server configured/);
    assert.match(r.stderr, /--local runs onnx-community\/embeddinggemma-300m-ONNX in-process instead \((under a minute|~[\d.]+ min) for the 114 articles on \d+ threads, a rough estimate\)/);
    const none = await runGbr(["search", "--data", "sample", "--retriever", "dense:qwen3-8b", "--local", "--k", "5"], { dataDir: path.join(tmp, "skip") });
    assert.match(none.stderr, /--local does not apply: qwen3-8b has no in-process form \(those with one: .*embgemma-300m.*\)/);
  });

  test("--plan measures an in-process preset's rate here and notes the time the articles left will take", async () => {
    // The built-in name, run by the tiny model: a user preset replaces the built-in of its name.
    const presets = path.join(tmp, "plan-presets.json");
    await fs.writeFile(presets, JSON.stringify({ presets: [{ name: "embgemma-300m", provider: "local", model: "org/tiny-embed", revision: "main", pooling: "mean", normalize: true }] }));
    const dataDir = path.join(tmp, "plan");
    const r = await runGbr(["reproduce", "--data", "sample", "--only", "dense:embgemma-300m", "--plan", "--out", path.join(tmp, "out")], { dataDir, env: { GBR_PRESETS: presets, HF_ENDPOINT: hub.url } });
    assert.equal(r.code, 0, r.stderr);
    const plan = JSON.parse(await fs.readFile(path.join(tmp, "out", "sample", "plan.json"), "utf8")) as { notes: string[] };
    assert.ok(plan.notes.some((n) => /^embgemma-300m in-process: [\d.]+\/s measured here on 8; the 114 articles to embed take about \d+ s, once$/.test(n)), plan.notes.join("\n"));
  });

  test("--plan of an in-process cross-encoder measures its rate on pairs and notes the time of the pairs to score", async () => {
    const presets = path.join(tmp, "plan-rerankers.json");
    await fs.writeFile(presets, JSON.stringify({ rerankers: [{ name: "bge-reranker-v2-m3", provider: "local", model: "org/tiny-ce", revision: "main" }] }));
    const out = path.join(tmp, "out-rerank");
    const r = await runGbr(["reproduce", "--data", "sample", "--only", "rerank:bge-reranker-v2-m3:bm25-greekstemmer", "--plan", "--out", out], { dataDir: path.join(tmp, "plan-rerank"), env: { GBR_PRESETS: presets, HF_ENDPOINT: ceHub.url } });
    assert.equal(r.code, 0, r.stderr);
    const plan = JSON.parse(await fs.readFile(path.join(out, "sample", "plan.json"), "utf8")) as { notes: string[] };
    assert.ok(plan.notes.some((n) => /^bge-reranker-v2-m3 in-process: [\d.]+\/s measured here on 8; the \d+ pairs to score take about \d+ s, once$/.test(n)), plan.notes.join("\n"));
  });
});
