/**
 * `--prompts official` end to end, against local doubles only: a raw-file host serving a
 * synthetic notebook with the authors' cell structure (every prompt text in it is a placeholder
 * written for this test: the authors' texts never enter the repository), `gbr prompts pull`,
 * then `gbr reproduce --prompts official` against a scripted OpenAI-compatible chat and
 * embedding double. It checks what the issue asks of official mode:
 * - the REACT requests carry exactly the authors' rendering (golden comparison of whole user
 *   messages, built here from the templates and the benchmark's texts);
 * - observer answers are read exactly as the authors read them;
 * - the parameters recorded in metadata.json are those of the request bodies the double received.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { promises as fs, readFileSync, readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadBenchmark } from "../../lib/data/source";
import { OFFICIAL_COMMIT } from "../../lib/llm/official-prompts";
import type { ReactTrace } from "../../lib/llm/react-traces";
import { startOpenAIDouble, type ChatCompletionBody, type OpenAIDouble } from "../fakes/openai-server";
import { OFFICIAL_NOTEBOOK_URL_PATH, SYNTHETIC_NOTEBOOK, SYNTHETIC_PROMPTS } from "../fakes/official-notebook";
import { startStaticServer, type StaticServer } from "../fakes/static-server";
import { runGbr } from "../helpers/gbr";

// The synthetic notebook (test/fakes/official-notebook.ts): the authors' cell structure, placeholder texts.
const P = SYNTHETIC_PROMPTS;

// ---------------------------------------------------------------------------------------------
// The scripted model, by role (each placeholder system prompt carries a marker).

const roleOf = (b: ChatCompletionBody) => {
  const system = String(b.messages.find((m) => m.role === "system")?.content ?? "");
  return /\[(PLANNER|OBSERVER|REWRITER|TRANSLATOR)\]/.exec(system)?.[1] ?? "?";
};
const userOf = (b: ChatCompletionBody) => String(b.messages.find((m) => m.role === "user")?.content ?? "");
const batchIdsOf = (user: string) => [...user.matchAll(/^doc_id: (.*)$/gm)].map((m) => m[1]);

/**
 * The observer's answer for a batch, in the formats the authors' parser treats differently:
 * a numbered line and a bold id keep nothing, a bulleted line and a bare line keep their id,
 * a repeated id counts once, an id of no batch is ignored, and everything after NOT_RELEVANT: is
 * cut. So of the batch's first five ids exactly [1] and [3] are kept.
 */
function observerAnswer(ids: string[]): string {
  const [a, b, c, d, e] = ids;
  const lines = ["<think>RELEVANT:\n" + (a ?? "") + " | σκέψη</think>RELEVANT:"];
  if (a) lines.push(`1. ${a} | αριθμημένο`);
  if (b) lines.push(`- ${b} | με κουκκίδα`);
  if (c) lines.push(`**${c}** | έντονο`);
  if (d) lines.push(`${d} | απλό`, `${d} | ξανά`);
  lines.push("ΑΚ::999999 | εκτός δέσμης");
  if (e) lines.push("", "NOT_RELEVANT:", `${e} | απορρίπτεται`);
  return lines.join("\n");
}
const officiallyKept = (ids: string[]) => [ids[1], ids[3]].filter((x): x is string => x !== undefined);

function scripted(body: ChatCompletionBody) {
  const usage = { prompt_tokens: 1000, completion_tokens: 50 };
  const user = userOf(body);
  switch (roleOf(body)) {
    case "PLANNER":
      // A different query each round, so no two observer requests are the same.
      return { content: user.startsWith("[FIRST]") ? "REASON:\nα\n\n**QUERY**: σύμβαση, αποζημίωση" : "REASON: β\nQUERY:\nαδικοπραξία, ζημία, μίσθωση", usage };
    case "OBSERVER":
      return { content: observerAnswer(batchIdsOf(user)), usage };
    case "REWRITER":
      return { content: user.startsWith("[SPARSE-REWRITE]") ? "KEYWORDS: αδικοπραξία, αποζημίωση" : "REWRITTEN_QUERY: Ευθύνη από αδικοπραξία.", usage };
    case "TRANSLATOR":
      return { content: "<think>translating</think>\nThe English text.", usage };
    default:
      return { content: "?", usage };
  }
}

// ---------------------------------------------------------------------------------------------

let tmp = "";
let api: OpenAIDouble;
let raw: StaticServer;
const SECRET = "test-official-mode-key-0000";

function gbr(args: string[]) {
  // No chat model is named: the default one must be the one recorded.
  return runGbr(args, {
    dataDir: path.join(tmp, "data"),
    env: {
      GBR_GITHUB_RAW_URL: raw.url,
      GBR_CHAT_BASE_URL: `${api.url}/v1`,
      GBR_CHAT_API_KEY: SECRET,
      GBR_EMBED_BASE_URL: `${api.url}/v1`,
      GBR_EMBED_API_KEY: SECRET,
      GBR_PRESETS: path.join(tmp, "presets.json"),
    },
  });
}

const IDS = ["reform:bm25-greekstemmer", "reform:dense:qwen3-8b", "translate:dense:qwen3-8b", "react-bm25"];

before(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-official-"));
  raw = await startStaticServer({ [OFFICIAL_NOTEBOOK_URL_PATH]: SYNTHETIC_NOTEBOOK });
  api = await startOpenAIDouble({ dims: 16, apiKey: SECRET });
  api.chat(scripted);
  await fs.writeFile(
    path.join(tmp, "presets.json"),
    JSON.stringify({ presets: [{ name: "qwen3-8b", provider: "openai", model: "Qwen/Qwen3-Embedding-8B", dims: 16, queryTemplate: "Query:{text}", documentTemplate: "{text}" }] }),
  );
});

after(async () => {
  await api?.close();
  await raw?.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

test("official mode: the authors' requests, parsing and a record that matches what was sent", async () => {
  const pull = await gbr(["prompts", "pull"]);
  assert.equal(pull.code, 0, pull.stderr);

  const out = path.join(tmp, "out");
  const r = await gbr(["reproduce", "--data", "sample", "--out", out, "--only", IDS.join(","), "--rounds", "2", "--prompts", "official"]);
  assert.equal(r.code, 0, r.stderr);
  const dir = path.join(out, "sample");
  const summary = readFileSync(path.join(dir, "summary.csv"), "utf8");
  for (const id of IDS) assert.match(summary, new RegExp(`^${id.replace(/[.:+]/g, "\\$&")},[^,]*,ok,`, "m"), `${id} ran: ${r.stderr}`);

  const bench = (await loadBenchmark("sample")).benchmark;
  const textOf = new Map(bench.docs.map((d) => [d.id, d.text]));
  const queryText = new Map(bench.queries.map((q) => [q.id, q.text]));
  const bodies = api.chatRequests();

  // --- REACT requests, golden: the whole user message, from the templates and the benchmark.
  const traceRoot = path.join(tmp, "data", "llm", "sample");
  const traceDir = path.join(traceRoot, readdirSync(traceRoot).find((d) => d.startsWith("react-") && d.endsWith("-official"))!, "traces");
  const traces = readdirSync(traceDir).map((f) => JSON.parse(readFileSync(path.join(traceDir, f), "utf8")) as ReactTrace);
  assert.equal(traces.length, bench.queries.length);
  const sentUsers = new Set(bodies.map(userOf));
  let withKept = 0;
  let withoutKept = 0;
  for (const t of traces) {
    const q = queryText.get(t.query.id)!;
    assert.equal(t.config.parser, "official");
    assert.ok(sentUsers.has(P.PLANNER_FIRST.replace("{original_query}", q)), `round 1 planner message of ${t.query.id}`);
    const [r1, r2] = t.rounds;
    for (const batch of r1.observer) {
      const block = batch.ids.map((id) => `[DOC]\ndoc_id: ${id}\ntext: ${textOf.get(id)}\n[/DOC]`).join("\n\n");
      const expected = P.OBSERVER_USER.replace("{original_query}", q).replace("{retrieved_docs_block}", block);
      assert.ok(sentUsers.has(expected), `round 1 observer message of ${t.query.id}`);
      // The authors' parser kept exactly the bulleted and the bare line's ids.
      assert.deepEqual(batch.kept.map((k) => k.id), officiallyKept(batch.ids), `kept from ${t.query.id}'s batch`);
    }
    const kept = r1.ranking.slice(0, 27).map((id) => `[ΣΧΕΤΙΚΟ_ΚΕΙΜΕΝΟ]\n${textOf.get(id)}\n[/ΣΧΕΤΙΚΟ_ΚΕΙΜΕΝΟ]`).join("\n\n");
    const summaryBlock = kept || "Δεν έχουν σημειωθεί ακόμη σχετικά έγγραφα.";
    if (kept) withKept++;
    else withoutKept++;
    const next = P.PLANNER_NEXT.replace("{original_query}", q)
      .replace("{round_idx}", "2")
      .replace("{max_rounds}", "2")
      .replace("{query_history}", `- Γύρος 1: ${r1.planner.query}`)
      .replace("{kept_docs_summary}", summaryBlock);
    assert.ok(sentUsers.has(next), `round 2 planner message of ${t.query.id}`);
    assert.equal(r1.planner.query, "σύμβαση, αποζημίωση");
    assert.equal(r2.planner.query, "αδικοπραξία, ζημία, μίσθωση");
  }
  assert.ok(withKept > 0, "some query kept articles in round 1");

  // --- The recorded parameters are the sent ones, per experiment and role.
  const meta = JSON.parse(readFileSync(path.join(dir, "metadata.json"), "utf8"));
  const sentByRole = new Map<string, Map<string, number>>();
  for (const b of bodies) {
    const role = roleOf(b) === "REWRITER" ? (userOf(b).startsWith("[SPARSE") ? "rewrite-sparse" : "rewrite-dense") : roleOf(b) === "TRANSLATOR" ? (/^Type: article/.test(userOf(b)) ? "translate-article" : "translate-query") : roleOf(b).toLowerCase();
    const params = JSON.stringify({ max_tokens: b.max_tokens, reasoning_effort: b.reasoning_effort, temperature: b.temperature, top_p: b.top_p });
    const m = sentByRole.get(role) ?? new Map<string, number>();
    m.set(params, (m.get(params) ?? 0) + 1);
    sentByRole.set(role, m);
  }
  const recordedByRole = new Map<string, Map<string, number>>();
  const llmInfos = (info: { llm?: { requests: Record<string, Record<string, number | string>[]>; parser: string; model: string; endpoint: string }; parts?: unknown[] }): NonNullable<typeof info.llm>[] => [
    ...(info.llm ? [info.llm] : []),
    ...((info.parts ?? []) as (typeof info)[]).flatMap(llmInfos),
  ];
  for (const id of IDS) {
    const e = meta.experiments.find((x: { id: string }) => x.id === id);
    const infos = llmInfos(e.info);
    assert.equal(infos.length, 1, id);
    const llm = infos[0];
    assert.equal(llm.parser, "official", id);
    assert.equal(llm.model, "openai/gpt-oss-120b", `${id}: the default model is recorded by name`);
    assert.equal(llm.endpoint, api.url, `${id}: the endpoint's origin, no path, no key`);
    for (const [role, sets] of Object.entries(llm.requests)) {
      const m = recordedByRole.get(role) ?? new Map<string, number>();
      for (const { calls, ...params } of sets) {
        const key = JSON.stringify({ max_tokens: params.max_tokens, reasoning_effort: params.reasoning_effort, temperature: params.temperature, top_p: params.top_p });
        m.set(key, (m.get(key) ?? 0) + (calls as number));
      }
      recordedByRole.set(role, m);
    }
  }
  // reform:dense and translate:dense share nothing; every request was made once, so the counts match too.
  assert.deepEqual(
    new Map([...recordedByRole].sort(([a], [b]) => a.localeCompare(b))),
    new Map([...sentByRole].sort(([a], [b]) => a.localeCompare(b))),
  );
  assert.deepEqual([...sentByRole.get("planner")!.keys()], [JSON.stringify({ max_tokens: 42000, reasoning_effort: "low", temperature: 0.2, top_p: 1 })]);
  assert.deepEqual([...sentByRole.get("observer")!.keys()], [JSON.stringify({ max_tokens: 44096, reasoning_effort: "low", temperature: 0.2, top_p: 1 })]);
  assert.deepEqual([...sentByRole.get("translate-article")!.keys()], [JSON.stringify({ max_tokens: 32768, reasoning_effort: "low", temperature: 0, top_p: 1 })]);
  assert.equal(meta.llm.model, "openai/gpt-oss-120b");
  assert.equal(meta.llm.parser, "official");
  assert.equal(meta.llm.prompts.name, "official");
  assert.equal(meta.llm.prompts.commit, OFFICIAL_COMMIT);
  assert.equal(meta.llm.rounds, 2);
  // The setup column says the same in one line.
  assert.match(summary, /react-bm25,.*prompts official@992f5224; parser official; planner: max_tokens 42000, reasoning_effort low, temperature 0.2, top_p 1 \(\d+ requests\); observer: max_tokens 44096/);

  // --- A rerun sends nothing and records the same requests, now as reused.
  const before = api.chatRequests().length;
  const again = await gbr(["reproduce", "--data", "sample", "--out", path.join(tmp, "out2"), "--only", IDS.join(","), "--rounds", "2", "--prompts", "official"]);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(api.chatRequests().length, before);
  const meta2 = JSON.parse(readFileSync(path.join(tmp, "out2", "sample", "metadata.json"), "utf8"));
  for (const id of IDS) {
    const [a] = llmInfos(meta.experiments.find((x: { id: string }) => x.id === id).info);
    const [b] = llmInfos(meta2.experiments.find((x: { id: string }) => x.id === id).info);
    assert.deepEqual(b.requests, a.requests, id);
    const total = Object.values(b.requests).flat().reduce((n, p) => n + (p.calls as number), 0);
    assert.equal((b as unknown as { reused: number }).reused, total, `${id}: every answer reused`);
  }
  void withoutKept;
});

test("--official: the authors' prompts, serving and experiment list in one switch; rows beyond them marked otherwise", async () => {
  const lmstudio = await startOpenAIDouble({ dims: 4096 });
  const noPresets = path.join(tmp, "no-presets.json");
  await fs.writeFile(noPresets, JSON.stringify({ presets: [] }));
  const env = {
    GBR_GITHUB_RAW_URL: raw.url,
    GBR_CHAT_BASE_URL: `${api.url}/v1`,
    GBR_CHAT_API_KEY: SECRET,
    GBR_EMBED_BASE_URL: `${api.url}/v1`,
    GBR_EMBED_API_KEY: SECRET,
    GBR_LMSTUDIO_BASE_URL: `${lmstudio.url}/v1`,
    GBR_LMSTUDIO_API_KEY: "lm-studio",
    GBR_PRESETS: noPresets,
  };
  // A data folder of its own: the first test's answers would be replayed, with no request to look at.
  const run = (args: string[]) => runGbr(args, { dataDir: path.join(tmp, "data-official"), env });
  try {
    assert.equal((await run(["prompts", "pull"])).code, 0);
    // The list: a row beyond it is refused by name; --prompts project contradicts the switch.
    const beyond = await run(["reproduce", "--data", "sample", "--official", "--plan", "--only", "bm25-greekstemmer,lsi", "--out", path.join(tmp, "o0")]);
    assert.equal(beyond.code, 2);
    assert.match(beyond.stderr, /--official runs the authors' experiment list; 'lsi' \(LSI is the project's addition\) is beyond it/);
    const contra = await run(["reproduce", "--data", "sample", "--official", "--prompts", "project", "--plan", "--out", path.join(tmp, "o0")]);
    assert.equal(contra.code, 2);
    assert.match(contra.stderr, /--official uses the authors' prompts/);
    // A plan of the whole selection holds the authors' rows only.
    const plan = await run(["reproduce", "--data", "sample", "--official", "--plan", "--out", path.join(tmp, "o1")]);
    assert.equal(plan.code, 0, plan.stderr);
    const planned = JSON.parse(readFileSync(path.join(tmp, "o1", "sample", "plan.json"), "utf8")) as { experiments: { id: string }[] };
    const ids = planned.experiments.map((e) => e.id);
    assert.ok(ids.includes("react-bm25") && ids.includes("prf:dense:qwen3-8b") && ids.includes("oracle:bm25-greekstemmer"));
    for (const id of ["lsi", "prf:lsi", "tuned:bm25-greekstemmer", "prf:dense:qwen3-4b", "reform:dense:gemini-001", "dense:embgemma-300m-raw"]) assert.ok(!ids.includes(id), id);
    assert.ok(!ids.some((id) => id.startsWith("rerank:")));
    assert.equal(lmstudio.count(), 0, "a plan sends nothing");

    // A run: their served name, one plain-string text per request, their prompts; the record says so.
    api.reset();
    const out = path.join(tmp, "o2");
    const r = await run(["reproduce", "--data", "sample", "--official", "--only", "dense:qwen3-8b,reform:bm25-greekstemmer", "--out", out]);
    assert.equal(r.code, 0, r.stderr);
    const sent = lmstudio.requests.filter((q) => q.route === "embeddings");
    assert.ok(sent.length > 0);
    for (const q of sent) {
      assert.deepEqual(Object.keys(q.body!).sort(), ["input", "model"]);
      assert.equal(q.body!.model, "text-embedding-qwen3-embedding-8b");
      assert.equal(typeof q.body!.input, "string");
    }
    assert.ok(api.chatRequests().some((b) => userOf(b).startsWith("[SPARSE-REWRITE]")), "the authors' rewrite prompt");
    const meta = JSON.parse(readFileSync(path.join(out, "sample", "metadata.json"), "utf8"));
    assert.deepEqual(meta.authorsSetup, { official: true, prompts: true, serving: true, significance: false, experiments: true });
    const summary = readFileSync(path.join(out, "sample", "summary.csv"), "utf8").trim().split("\n");
    assert.match(summary[0], /,list,runFile$/);
    for (const line of summary.slice(1)) assert.match(line, /,authors,[^,]*$/);

    // Without the switch a row beyond the list runs, marked in summary.csv and in the report.
    const out3 = path.join(tmp, "o3");
    const plain = await run(["reproduce", "--data", "sample", "--only", "bm25-greekstemmer,lsi", "--out", out3]);
    assert.equal(plain.code, 0, plain.stderr);
    const rows = readFileSync(path.join(out3, "sample", "summary.csv"), "utf8");
    assert.match(rows, /^lsi,.*,beyond the authors: LSI is the project's addition,lsi$/m);
    assert.match(rows, /^bm25-greekstemmer,.*,authors,bm25-greekstemmer$/m);
    const meta3 = JSON.parse(readFileSync(path.join(out3, "sample", "metadata.json"), "utf8"));
    assert.deepEqual(meta3.authorsSetup, { official: false, prompts: false, serving: false, significance: false, experiments: false });
    const report = await run(["report", "--out", out3]);
    assert.equal(report.code, 0, report.stderr);
    const html = readFileSync(path.join(out3, "sample", "report.html"), "utf8");
    assert.match(html, /<span class="badge beyond" title="LSI is the project&#39;s addition">beyond the authors<\/span>/);
  } finally {
    await lmstudio.close();
  }
});
