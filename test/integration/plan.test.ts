/**
 * `gbr reproduce --plan` against the real run that follows it: for reformulation, translation and
 * embeddings the plan's calls and input tokens equal what the run's cost table then counts. The
 * doubles report what a server with the o200k tokenizer would (chat usage: o200k tokens of the
 * two messages; embeddings: no usage, so the run counts its o200k estimates). The plan calls no
 * model and writes no cache; after the run, a second plan finds everything cached at no cost.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startOpenAIDouble, type OpenAIDouble } from "../fakes/openai-server";
import { scriptedModel } from "../fakes/scripted-model";
import { runGbr } from "../helpers/gbr";
import { parseCsvRecords } from "../../lib/util/csv";
import { countTokens } from "../../lib/util/tokens";
import { builtinPresets } from "../../lib/dense/presets";
import type { Plan } from "../../lib/experiments/plan";

let tmp = "";
let api: OpenAIDouble;
let presets = "";
const EXACT = ["reform:bm25-greekstemmer", "reform:dense:qwen3-0.6b", "translate:dense:qwen3-0.6b", "dense:qwen3-0.6b"];
const ONLY = [...EXACT, "bm25-greekstemmer", "react-bm25"];

before(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-plan-"));
  api = await startOpenAIDouble({ dims: 16, usage: false });
  api.chat((body) => {
    const answer = scriptedModel(body);
    const system = String(body.messages.find((m) => m.role === "system")?.content ?? "");
    const user = String(body.messages.filter((m) => m.role === "user").pop()?.content ?? "");
    return { ...answer, usage: { prompt_tokens: countTokens(system) + countTokens(user), completion_tokens: 50 } };
  });
  const p = builtinPresets().find((x) => x.name === "qwen3-0.6b")!;
  presets = path.join(tmp, "presets.json");
  await fs.writeFile(presets, JSON.stringify({ presets: [{ name: p.name, provider: p.provider, model: p.model, dims: 16, queryTemplate: p.queryTemplate, documentTemplate: p.documentTemplate }] }));
});

after(async () => {
  await api?.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

function gbr(args: string[]) {
  return runGbr(["reproduce", "--data", "sample", "--out", path.join(tmp, "out"), "--rounds", "2", "--only", ONLY.join(","), "-q", ...args], {
    dataDir: path.join(tmp, "data"),
    env: { GBR_CHAT_BASE_URL: `${api.url}/v1`, GBR_CHAT_MODEL: "openai/gpt-oss-120b", GBR_EMBED_BASE_URL: `${api.url}/v1`, GBR_PRESETS: presets },
    timeoutMs: 300_000,
  });
}

async function readPlan(): Promise<Plan> {
  return JSON.parse(await fs.readFile(path.join(tmp, "out", "sample", "plan.json"), "utf8")) as Plan;
}

test("the plan's calls and input tokens equal the real run's for reformulation, translation and embeddings", async () => {
  const planned = await gbr(["--plan"]);
  assert.equal(planned.code, 0, planned.stderr);
  assert.equal(api.requests.length, 0, "the plan called no model");
  assert.ok(!existsSync(path.join(tmp, "data", "replay")), "the plan wrote no replay cache");
  assert.ok(!existsSync(path.join(tmp, "data", "llm")), "the plan wrote no work files");
  assert.match(planned.stdout, /No model was called/);
  const plan = await readPlan();
  assert.deepEqual(plan.experiments.map((e) => e.id).sort(), [...ONLY].sort());
  for (const e of plan.experiments) assert.equal(e.status, "ok", `${e.id}: ${e.reason}`);
  const row = (id: string) => plan.experiments.find((e) => e.id === id)!;
  assert.equal(row("bm25-greekstemmer").calls, 0);
  assert.equal(row("react-bm25").exact, false);
  assert.match(row("react-bm25").basis, /round 1/);
  for (const id of ["reform:bm25-greekstemmer", "dense:qwen3-0.6b"]) assert.equal(row(id).exact, true, id);
  // Rewritten or translated texts are embedded after the model wrote them: their tokens are estimates.
  for (const id of ["reform:dense:qwen3-0.6b", "translate:dense:qwen3-0.6b"]) {
    assert.equal(row(id).exact, false, id);
    assert.match(row(id).basis, /estimated from the texts it is given/);
  }
  assert.equal(row("reform:bm25-greekstemmer").chatCalls, 26, "one rewrite per sample query");

  const ran = await gbr([]);
  assert.equal(ran.code, 0, ran.stderr);
  const cost = parseCsvRecords(await fs.readFile(path.join(tmp, "out", "sample", "cost.csv"), "utf8"));
  const queries = plan.queries;
  const meta = JSON.parse(await fs.readFile(path.join(tmp, "out", "sample", "metadata.json"), "utf8"));
  for (const id of EXACT) {
    const c = cost.find((x) => x.method === id)!;
    const p = row(id);
    // cost.csv: calls per query online, and the one-time corpus work apart.
    const calls = Math.round(Number(c.callsPerQuery) * queries) + Number(c.oneTimeCalls);
    assert.equal(p.calls, calls, `${id}: calls planned ${p.calls}, made ${calls}`);
    // The run's chat input tokens, from the run's own record of its work.
    const work = meta.experiments.find((e: { id: string }) => e.id === id)?.work;
    if (work) {
      const input = work.online.llmInput + work.corpus.llmInput;
      assert.equal(p.chatInputTokens, input, `${id}: chat input tokens planned ${p.chatInputTokens}, made ${input}`);
      if (p.exact) {
        const emb = work.online.embeddingTokens + work.corpus.embeddingTokens;
        assert.equal(p.embeddingTokens, emb, `${id}: embedding tokens planned ${p.embeddingTokens}, made ${emb}`);
      }
    } else assert.fail(`metadata.json has no cost for ${id}: ${JSON.stringify(Object.keys(meta))}`);
  }

  // The run's long steps, with their calls, tokens and cost at the price table, are in metadata.json (-q or not).
  const react = meta.progress.find((x: { label: string }) => /react/i.test(x.label));
  assert.ok(react, `no REACT step in ${JSON.stringify(meta.progress.map((x: { label: string }) => x.label))}`);
  assert.equal(react.done, react.total);
  assert.ok(react.work.chatCalls > 0 && react.work.chatTokens > 0 && react.work.cost > 0, JSON.stringify(react));
  assert.ok(meta.progress.some((x: { work: { embedCalls: number } }) => x.work.embedCalls > 0), "an embedding step");

  // Planned again after the run: everything is cached, nothing left to pay.
  const again = await gbr(["--plan"]);
  assert.equal(again.code, 0, again.stderr);
  const after = await readPlan();
  for (const e of after.experiments) {
    assert.equal(e.cached, e.calls, `${e.id}: ${e.cached} of ${e.calls} cached`);
    assert.equal(e.inputTokens, 0, e.id);
    assert.equal(e.cost, 0, e.id);
  }
  assert.equal(after.total.calls, 0);
  assert.match(after.outputGuesses[0].basis, /mean of the \d+ answers/);
});
