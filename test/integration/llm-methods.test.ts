import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { promises as fs, readFileSync, readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startOpenAIDouble, type ChatCompletionBody, type OpenAIDouble } from "../fakes/openai-server";
import { runGbr } from "../helpers/gbr";
import { filesUnder } from "../helpers/assertions";

const SECRET = "test-SECRET-chat-key-123456789";
let tmp = "";
let api: OpenAIDouble;

/**
 * A scripted model: keyword rewrites for sparse prompts, prose for dense ones, a planner query
 * taken from the question, and an observer that keeps the first article of every batch.
 */
function scripted(body: ChatCompletionBody): { content: string; usage: { prompt_tokens: number; completion_tokens: number } } {
  const user = String(body.messages.find((m) => m.role === "user")?.content ?? "");
  const usage = { prompt_tokens: 1000, completion_tokens: 50 };
  const ids = [...user.matchAll(/\[doc_id: ([^\]]+)\]/g)].map((m) => m[1]);
  if (user.includes("Άρθρα που επέστρεψε η αναζήτηση BM25")) {
    return { content: ids.length ? `<think>κρίνω</think>RELEVANT:\n${ids[0]} | χρήσιμο` : "RELEVANT: NONE", usage };
  }
  if (user.includes("Γύρος") || user.includes("πρώτος γύρος")) return { content: "REASON:\nδοκιμή\n\nQUERY:\nσύμβαση, μίσθωση, αποζημίωση, αδικοπραξία", usage };
  if (/KEYWORDS|λέξεις-κλειδιά/i.test(user)) return { content: "KEYWORDS: αδικοπραξία, αποζημίωση, ηθική βλάβη, κλοπή, υπεξαίρεση", usage };
  return { content: "QUERY: Ζήτημα αποζημίωσης από αδικοπραξία και ποινικής ευθύνης.", usage };
}

function gbr(args: string[], env: Record<string, string>) {
  return runGbr(args, {
    dataDir: path.join(tmp, "data"),
    env: {
      GBR_CHAT_BASE_URL: `${api.url}/v1`,
      GBR_CHAT_API_KEY: SECRET,
      GBR_CHAT_MODEL: "openai/gpt-oss-120b",
      GBR_EMBED_BASE_URL: `${api.url}/v1`,
      GBR_EMBED_API_KEY: SECRET,
      GBR_PRESETS: path.join(tmp, "presets.json"),
      ...env,
    },
  });
}

before(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-llm-test-"));
  api = await startOpenAIDouble({ dims: 16, apiKey: SECRET });
  api.chat(scripted);
  await fs.writeFile(
    path.join(tmp, "presets.json"),
    JSON.stringify({ presets: [{ name: "qwen3-8b", provider: "openai", model: "Qwen/Qwen3-Embedding-8B", dims: 16, queryTemplate: "Query:{text}", documentTemplate: "{text}" }] }),
  );
});

after(async () => {
  await api?.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

const IDS = ["reform:bm25-greekstemmer", "reform:dense:qwen3-8b", "react-bm25"];

test("gbr reproduce runs reformulation and REACT-BM25 end to end against the double; a rerun replays with zero calls", async () => {
  const out = path.join(tmp, "out");
  const r = await gbr(["reproduce", "--data", "sample", "--out", out, "--only", IDS.join(","), "--rounds", "2"], {});
  assert.equal(r.code, 0, r.stderr);
  const dir = path.join(out, "sample");
  const rows = readFileSync(path.join(dir, "summary.csv"), "utf8").trim().split("\n").slice(1).map((l) => l.split(","));
  assert.deepEqual(rows.map((c) => [c[0], c[2]]).sort(), IDS.map((id) => [id, "ok"]).sort(), r.stderr);

  const chats = api.chatRequests();
  assert.ok(chats.length > 26 * 2, `chat calls made: ${chats.length}`);
  // The paper's generation settings go to the server with every call.
  for (const b of chats) {
    assert.equal(b.temperature, 0.2);
    assert.equal(b.top_p, 1);
    assert.equal(b.reasoning_effort, "low");
  }
  // REACT wrote one trace per query, and the round table and the cost table exist.
  const traces = readdirSync(path.join(tmp, "data", "llm", "sample")).find((d) => d.startsWith("react-"));
  assert.ok(traces);
  assert.equal(readdirSync(path.join(tmp, "data", "llm", "sample", traces!, "traces")).length, 26);
  const rounds = readFileSync(path.join(dir, "react-rounds.csv"), "utf8").trim().split("\n");
  assert.equal(rounds.length, 1 + 2, "rounds 1 and 2 of a 2-round run");
  // The appendix C.4 diagnostic rides along: gold retrieved in some round but never kept.
  assert.match(rounds[0], /,missedGoldPairs,missedGoldQueries$/);
  assert.match(readFileSync(path.join(dir, "react-missed.csv"), "utf8"), /^query,article,firstRetrievedRound,bestRank,roundsRetrieved\n/);
  const cost = readFileSync(path.join(dir, "cost.csv"), "utf8");
  assert.match(cost, /react-bm25/);
  // Table 17 as the paper counts it: Reform-Qwen3-8B makes 2 online calls per query (the rewrite
  // and the query embedding), with provider-reported embedding tokens; the corpus embedding is one-time.
  const [costHeader, ...costRows] = cost.trim().split("\n").map((l) => l.split(","));
  const col = (row: string[], name: string) => row[costHeader.indexOf(name)];
  const reformDense = costRows.find((r) => r[0] === "reform:dense:qwen3-8b")!;
  assert.equal(Number(col(reformDense, "callsPerQuery")), 2);
  assert.ok(Number(col(reformDense, "embeddingTokensPerQuery")) > 0);
  assert.equal(col(reformDense, "embeddingTokensSource"), "provider");
  assert.equal(Number(col(reformDense, "oneTimeCalls")), 114, "one embedding per article, once");
  assert.ok(Number(col(reformDense, "oneTimeTokens")) > 0);
  // The paper's 20 significance tests are always listed, with how many could be computed.
  const significance = JSON.parse(readFileSync(path.join(dir, "significance.json"), "utf8"));
  assert.equal(significance.paper.of, 20);
  assert.equal(significance.paper.tests.length, 20);
  assert.equal(significance.paper.computed, significance.paper.tests.filter((t: { status: string }) => t.status === "computed").length);

  const before = api.chatRequests().length;
  const again = await gbr(["reproduce", "--data", "sample", "--out", path.join(tmp, "out2"), "--only", IDS.join(","), "--rounds", "2"], {});
  assert.equal(again.code, 0, again.stderr);
  assert.equal(api.chatRequests().length, before, "the rerun made no chat call");
  assert.deepEqual(readFileSync(path.join(tmp, "out2", "sample", "summary.csv"), "utf8").split("\n").map((l) => l.split(",").slice(0, 8).join(",")), readFileSync(path.join(dir, "summary.csv"), "utf8").split("\n").map((l) => l.split(",").slice(0, 8).join(",")));

  // Offline replay: no network at all, same numbers.
  const offline = await gbr(["reproduce", "--data", "sample", "--out", path.join(tmp, "out3"), "--only", "reform:bm25-greekstemmer"], { GBR_OFFLINE: "1", GBR_CHAT_BASE_URL: "http://unreachable.invalid/v1" });
  assert.equal(offline.code, 0, offline.stderr);
  assert.equal(api.chatRequests().length, before);

  // No API key anywhere the project writes.
  for (const f of [...filesUnder(path.join(tmp, "data")), ...filesUnder(out)]) {
    if (f.includes("lancedb")) continue; // binary vector files, no request data
    assert.ok(!readFileSync(f, "utf8").includes(SECRET), `the key leaked into ${f}`);
  }
});

test("--repeat 2 runs an LLM experiment twice with different seeds and reports mean and sd", async () => {
  const out = path.join(tmp, "rep");
  const r = await gbr(["reproduce", "--data", "sample", "--out", out, "--only", "reform:bm25-greekstemmer", "--repeat", "2", "--seed", "7"], {});
  assert.equal(r.code, 0, r.stderr);
  const [header, row] = readFileSync(path.join(out, "sample", "summary.csv"), "utf8").trim().split("\n");
  assert.match(header, /samples,sd nDCG@10/);
  assert.equal(row.split(",")[8], "2");
  const seeds = new Set(api.chatRequests().map((b) => b.seed));
  assert.ok(seeds.has(7) && seeds.has(8), `seeds sent: ${[...seeds].join(", ")}`);
  // A file name every file system accepts (":" becomes "__"), the id itself in the TREC tag and summary.csv's runFile.
  const trec = path.join(out, "sample", "runs", "reform__bm25-greekstemmer.s1.trec");
  assert.match(readFileSync(trec, "utf8").split("\n")[0], / reform:bm25-greekstemmer$/);
  assert.equal(row.split(",").at(-1), "reform__bm25-greekstemmer");
});

test("metadata.json records the model and the prompt set (with hashes) behind the LLM rows", () => {
  const meta = JSON.parse(readFileSync(path.join(tmp, "out", "sample", "metadata.json"), "utf8"));
  assert.equal(meta.llm.prompts.name, "project");
  assert.equal(Object.keys(meta.llm.prompts.sha256).length >= 9, true);
  assert.equal(meta.llm.model, "openai/gpt-oss-120b");
  assert.deepEqual(meta.llm.experiments.sort(), [...IDS].sort());
});

test("gbr prompts pull: usage and a clear network error; --prompts official before a pull is skipped with the reason (the pull itself: prompts.test.ts)", async () => {
  const r = await gbr(["reproduce", "--data", "sample", "--out", path.join(tmp, "off"), "--only", "reform:bm25-greekstemmer", "--prompts", "official"], {
    GBR_DATA_DIR: path.join(tmp, "no-prompts"),
  });
  // Asked for by name and not run: exit 1 (issue 22, item 7); the row is skipped, with the command that enables it.
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stdout, /skipped: .*gbr prompts pull/);
  const help = await gbr(["prompts", "pull", "--help"], {});
  assert.match(help.stdout, /Usage: gbr prompts pull/);
  const offline = await gbr(["prompts", "pull"], { GBR_GITHUB_RAW_URL: "http://unreachable.invalid", GBR_DATA_DIR: path.join(tmp, "no-prompts") });
  assert.equal(offline.code, 1);
  assert.match(offline.stderr, /unreachable\.invalid/);
});

test("cost.csv reports the same calls, tokens and cost for a rerun that reused every saved answer and cached vector", () => {
  const first = readFileSync(path.join(tmp, "out", "sample", "cost.csv"), "utf8");
  const second = readFileSync(path.join(tmp, "out2", "sample", "cost.csv"), "utf8");
  // Everything but wall times: those are this process's own.
  const work = (csv: string) => {
    const [header, ...rows] = csv.trim().split("\n").map((l) => l.split(","));
    const keep = header.map((h, i) => (/seconds/i.test(h) ? -1 : i)).filter((i) => i >= 0);
    return rows.map((r) => keep.map((i) => r[i]).join(","));
  };
  assert.deepEqual(work(second), work(first));
  const llmColumns = (csv: string) =>
    csv.trim().split("\n").slice(1).map((l) => l.split(",")).map((c) => [c[0], c[1], c[2]].join(","));
  assert.ok(llmColumns(first).every((row) => !row.endsWith(",0")), first);
});
