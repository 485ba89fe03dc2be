/**
 * A data folder written by v0.8 (test/fixtures/v0.8-data: its replay file, rerank score cache,
 * per-item result files and REACT traces) keeps working: opened by today's code offline, every
 * old answer is found, no request reaches the doubles, and the numbers are v0.8's.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, existsSync, promises as fs, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startOpenAIDouble, type OpenAIDouble } from "../fakes/openai-server";
import { startRerankDouble, type RerankDouble } from "../fakes/rerank-server";
import { scriptedModel } from "../fakes/scripted-model";
import { runGbr } from "../helpers/gbr";
import { parseCsvRecords } from "../../lib/util/csv";

const FIXTURE = path.join(__dirname, "..", "fixtures", "v0.8-data");
const METRICS = ["nDCG@10", "nDCG@100", "Recall@10", "Recall@100", "MAP@100"];
let tmp = "";
let chat: OpenAIDouble;
let rerank: RerankDouble;

before(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-legacy-"));
  // A copy: the run migrates the folder, and the repository must stay as it is.
  cpSync(path.join(FIXTURE, "data"), path.join(tmp, "data"), { recursive: true });
  cpSync(path.join(FIXTURE, "bench"), path.join(tmp, "bench"), { recursive: true });
  chat = await startOpenAIDouble();
  chat.chat(scriptedModel);
  rerank = await startRerankDouble();
});

after(async () => {
  await Promise.allSettled([chat?.close(), rerank?.close()]);
  await fs.rm(tmp, { recursive: true, force: true });
});

test("a v0.8 data folder: every chat answer, rerank score, rewrite, translation and trace is found offline, with v0.8's numbers", async () => {
  const env = { GBR_CHAT_BASE_URL: `${chat.url}/v1`, GBR_CHAT_MODEL: "openai/gpt-oss-120b", GBR_RERANK_BASE_URL: rerank.url, GBR_OFFLINE: "1" };
  const ids = ["reform:bm25-greekstemmer", "react-bm25", "rerank:bge-reranker-v2-m3:bm25-greekstemmer"];
  const out = path.join(tmp, "out");
  const r = await runGbr(["reproduce", "--data", path.join(tmp, "bench"), "--out", out, "--rounds", "2", "--only", ids.join(",")], {
    dataDir: path.join(tmp, "data"),
    env,
    timeoutMs: 300_000,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /migrated .*llm-calls\.jsonl \(v0\.8\) into .*: 18 chat records added/);
  assert.match(r.stderr, /migrated .*scores\.jsonl \(v0\.8\) into .*: 1 rerank records added/);
  const t = await runGbr(["search", "--data", path.join(tmp, "bench"), "--retriever", "translate:bm25-greekstemmer", "--out", path.join(tmp, "translate.trec")], {
    dataDir: path.join(tmp, "data"),
    env,
    timeoutMs: 300_000,
  });
  assert.equal(t.code, 0, t.stderr);
  assert.equal(chat.chatRequests().length, 0, "no chat request");
  assert.equal(rerank.count(), 0, "no rerank request");

  const now = parseCsvRecords(readFileSync(path.join(out, "bench", "summary.csv"), "utf8"));
  const then = parseCsvRecords(readFileSync(path.join(FIXTURE, "expected", "summary.csv"), "utf8"));
  for (const id of ids) {
    const a = now.find((x) => x.experiment === id);
    const b = then.find((x) => x.experiment === id)!;
    assert.equal(a?.status, "ok", `${id}: ${a?.reason}`);
    for (const m of METRICS) assert.equal(a![m], b[m], `${id} ${m}`);
  }
  assert.equal(readFileSync(path.join(tmp, "translate.trec"), "utf8"), readFileSync(path.join(FIXTURE, "expected", "translate.trec"), "utf8"));
  // Migrated once: the old files renamed, and a second run says nothing about them.
  assert.ok(existsSync(path.join(tmp, "data", "replay", "llm-calls.jsonl.migrated")));
  assert.ok(!existsSync(path.join(tmp, "data", "replay", "llm-calls.jsonl")));
  const again = await runGbr(["reproduce", "--data", path.join(tmp, "bench"), "--out", out, "--rounds", "2", "--only", ids[0]], { dataDir: path.join(tmp, "data"), env });
  assert.equal(again.code, 0, again.stderr);
  assert.doesNotMatch(again.stderr, /migrated/);
});
