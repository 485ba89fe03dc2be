/**
 * `gbr reproduce --plan` against the requests a real run then sends to the doubles: a request two experiments share
 * (the same rewrite for two BM25 variants, the same translations for two dense presets, the question vectors Rocchio
 * embeds again) is sent once by the run, so the plan's total counts it once, and the table names who shares it.
 * Re-rankers over REACT-BM25 are planned too (its stand-in rounds keep nothing), and the plan prints nothing per
 * question.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startOpenAIDouble, type OpenAIDouble } from "../fakes/openai-server";
import { startRerankDouble, type RerankDouble } from "../fakes/rerank-server";
import { startStaticServer, type StaticServer } from "../fakes/static-server";
import { OFFICIAL_NOTEBOOK_URL_PATH, SYNTHETIC_NOTEBOOK } from "../fakes/official-notebook";
import { scriptedModel } from "../fakes/scripted-model";
import { runGbr } from "../helpers/gbr";
import { builtinPresets } from "../../lib/dense/presets";
import type { Plan } from "../../lib/experiments/plan";

let tmp = "";
let api: OpenAIDouble;
let rerank: RerankDouble;
let raw: StaticServer;
let presets = "";

before(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-plan-shared-"));
  api = await startOpenAIDouble({ dims: 16, usage: false });
  api.chat((body) => scriptedModel(body));
  rerank = await startRerankDouble();
  raw = await startStaticServer({ [OFFICIAL_NOTEBOOK_URL_PATH]: SYNTHETIC_NOTEBOOK });
  const two = builtinPresets().filter((x) => x.name === "qwen3-0.6b" || x.name === "qwen3-4b");
  presets = path.join(tmp, "presets.json");
  await fs.writeFile(
    presets,
    JSON.stringify({ presets: two.map((p) => ({ name: p.name, provider: p.provider, model: p.model, dims: 16, queryTemplate: p.queryTemplate, documentTemplate: p.documentTemplate })) }),
  );
});

after(async () => {
  await api?.close();
  await rerank?.close();
  await raw?.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

function gbr(name: string, only: string[], args: string[]) {
  return runGbr(only.length ? ["reproduce", "--data", "sample", "--out", path.join(tmp, name), "--rounds", "2", "--only", only.join(","), ...args] : args, {
    dataDir: path.join(tmp, `data-${name}`),
    env: {
      GBR_CHAT_BASE_URL: `${api.url}/v1`,
      GBR_CHAT_MODEL: "openai/gpt-oss-120b",
      GBR_EMBED_BASE_URL: `${api.url}/v1`,
      GBR_PRESETS: presets,
      GBR_RERANK_BASE_URL: rerank.url,
      GBR_GITHUB_RAW_URL: raw.url,
    },
    timeoutMs: 300_000,
  });
}

async function readPlan(name: string): Promise<Plan> {
  return JSON.parse(await fs.readFile(path.join(tmp, name, "sample", "plan.json"), "utf8")) as Plan;
}

const SHARED = [
  "reform:bm25-greekstemmer",
  "reform:bm25-grnlp",
  "dense:qwen3-0.6b",
  "prf:dense:qwen3-0.6b",
  "translate:dense:qwen3-0.6b",
  "translate:dense:qwen3-4b",
];

test("a request two experiments share is counted once: the plan's total is what the real run sends", async () => {
  api.reset();
  const planned = await gbr("shared", SHARED, ["--plan"]);
  assert.equal(planned.code, 0, planned.stderr);
  assert.equal(api.requests.length, 0, "the plan called no model");
  const plan = await readPlan("shared");
  const row = (id: string) => plan.experiments.find((e) => e.id === id)!;
  // Each row still says what its experiment needs …
  assert.equal(row("reform:bm25-greekstemmer").chatCalls, 26);
  assert.equal(row("reform:bm25-grnlp").chatCalls, 26);
  // … but what an earlier row already counts is not new, and the rows' new calls add up to the total.
  assert.equal(row("reform:bm25-grnlp").newCalls, 0);
  assert.deepEqual(row("reform:bm25-grnlp").sharedWith, ["reform:bm25-greekstemmer"]);
  // The experiment list runs qwen3-4b first: the other translates nothing new, only embeds.
  assert.deepEqual(row("translate:dense:qwen3-0.6b").sharedWith, ["translate:dense:qwen3-4b"]);
  assert.equal(row("translate:dense:qwen3-0.6b").newCalls, row("translate:dense:qwen3-0.6b").embeddedTexts);
  assert.deepEqual(row("prf:dense:qwen3-0.6b").sharedWith, ["dense:qwen3-0.6b"]);
  assert.equal(plan.experiments.reduce((n, e) => n + e.newCalls, 0), plan.total.calls);
  assert.match(planned.stdout, /shared with/);
  assert.match(planned.stdout, /reform:bm25-grnlp +26 +0 +0 .*reform:bm25-greekstemmer/);

  api.reset();
  const ran = await gbr("shared", SHARED, ["-q"]);
  assert.equal(ran.code, 0, ran.stderr);
  const chat = api.chatRequests().length;
  const texts = api.embeddingRequests().reduce((n, r) => n + r.input.length, 0);
  assert.equal(plan.total.chatCalls, chat, `chat calls planned ${plan.total.chatCalls}, sent ${chat}`);
  assert.equal(plan.total.embeddedTexts, texts, `texts to embed planned ${plan.total.embeddedTexts}, sent ${texts}`);
});

test("the two reformulations of the issue: 26 questions plan 26 chat calls, not 52, as the run sends", async () => {
  api.reset();
  const only = ["reform:bm25-greekstemmer", "reform:bm25-grnlp"];
  const planned = await gbr("reform", only, ["--plan"]);
  assert.equal(planned.code, 0, planned.stderr);
  const plan = await readPlan("reform");
  api.reset();
  const ran = await gbr("reform", only, ["-q"]);
  assert.equal(ran.code, 0, ran.stderr);
  assert.equal(api.chatRequests().length, 26);
  assert.equal(plan.total.chatCalls, 26);
});

test("re-rankers over REACT-BM25 are planned: rerank requests and listwise chat calls, never fewer than the run's", async () => {
  api.reset();
  rerank.reset();
  const only = ["react-bm25", "rerank:bge-reranker-v2-m3:react-bm25", "rerank:llm:react-bm25"];
  const planned = await gbr("react", only, ["--plan"]);
  assert.equal(planned.code, 0, planned.stderr);
  assert.equal(rerank.requests().length, 0, "the plan called no re-ranker");
  const plan = await readPlan("react");
  const row = (id: string) => plan.experiments.find((e) => e.id === id)!;
  for (const e of plan.experiments) assert.equal(e.status, "ok", `${e.id}: ${e.reason}`);
  const react = row("react-bm25").chatCalls;
  assert.ok(row("rerank:bge-reranker-v2-m3:react-bm25").rerankRequests > 0, "cross-encoder requests over REACT");
  const listwise = row("rerank:llm:react-bm25").chatCalls - react;
  assert.ok(listwise > 0, "listwise chat calls over REACT");
  // REACT is built once for the three rows: its calls are in the total once.
  assert.equal(plan.total.chatCalls, react + listwise);
  assert.equal(plan.total.rerankRequests, row("rerank:bge-reranker-v2-m3:react-bm25").rerankRequests);

  api.reset();
  rerank.reset();
  const ran = await gbr("react", only, ["-q"]);
  assert.equal(ran.code, 0, ran.stderr);
  // REACT keeps at most its 100 articles a question; the plan assumes all 100, so it never plans too few.
  assert.ok(plan.total.rerankRequests >= rerank.requests().length, `planned ${plan.total.rerankRequests}, sent ${rerank.requests().length}`);
});

test("a plan prints nothing per question or per article", async () => {
  const planned = await gbr("quiet", ["reform:bm25-greekstemmer", "translate:dense:qwen3-0.6b", "react-bm25"], ["--plan"]);
  assert.equal(planned.code, 0, planned.stderr);
  const lines = planned.stderr.split("\n").filter((l) => l.trim() !== "");
  assert.doesNotMatch(planned.stderr, /empty after parsing/);
  assert.ok(lines.length < 10, `${lines.length} lines on stderr:\n${planned.stderr}`);
});

test("texts made from stand-in answers count one each: with the official parsers an empty answer is no shared text", async () => {
  assert.equal((await gbr("official", [], ["prompts", "pull", "-q"])).code, 0);
  const only = ["reform:dense:qwen3-0.6b", "translate:dense:qwen3-0.6b"];
  api.reset();
  const planned = await gbr("official", only, ["--plan", "--prompts", "official"]);
  assert.equal(planned.code, 0, planned.stderr);
  const plan = await readPlan("official");
  for (const e of plan.experiments) assert.equal(e.status, "ok", `${e.id}: ${e.reason}`);
  api.reset();
  const ran = await gbr("official", only, ["-q", "--prompts", "official"]);
  assert.equal(ran.code, 0, ran.stderr);
  const texts = api.embeddingRequests().reduce((n, r) => n + r.input.length, 0);
  // The question and article vectors are shared; the rewrites and translations, one per question and article, are not.
  assert.equal(plan.total.embeddedTexts, texts, `texts to embed planned ${plan.total.embeddedTexts}, sent ${texts}`);
  assert.equal(plan.total.chatCalls, api.chatRequests().length);
});
