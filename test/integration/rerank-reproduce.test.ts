/**
 * `gbr reproduce` with re-rankers configured (the OpenAI-compatible double with the scripted
 * model for chat, the rerank double for the cross-encoder): the rows run over BM25, Reform-BM25
 * and REACT-BM25, each is tested against its own first stage apart from the paper's 20, their
 * cost rows count rerank requests and pairs, and a second run sends nothing.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startOpenAIDouble, type OpenAIDouble } from "../fakes/openai-server";
import { startRerankDouble, type RerankDouble } from "../fakes/rerank-server";
import { scriptedModel } from "../fakes/scripted-model";
import { runGbr } from "../helpers/gbr";
import { parseCsvRecords } from "../../lib/util/csv";

let tmp = "";
let chat: OpenAIDouble;
let rerank: RerankDouble;
const FIRST = ["bm25-greekstemmer", "reform:bm25-greekstemmer", "react-bm25"];
// In the registry's order: the cross-encoder over each first stage, then the LLM over each.
const RERANKED = [...FIRST.map((f) => `rerank:bge-reranker-v2-m3:${f}`), ...FIRST.map((f) => `rerank:llm:${f}`)];

function reproduce(out: string, extra: Record<string, string> = {}) {
  return runGbr(["reproduce", "--data", "sample", "--out", out, "--rounds", "2", "--only", [...FIRST, ...RERANKED].join(",")], {
    dataDir: path.join(tmp, "data"),
    env: { GBR_CHAT_BASE_URL: `${chat.url}/v1`, GBR_CHAT_MODEL: "openai/gpt-oss-120b", GBR_RERANK_BASE_URL: rerank.url, ...extra },
    timeoutMs: 300_000,
  });
}

before(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-rerank-reproduce-"));
  chat = await startOpenAIDouble();
  chat.chat(scriptedModel);
  rerank = await startRerankDouble();
});

after(async () => {
  await Promise.allSettled([chat?.close(), rerank?.close()]);
  await fs.rm(tmp, { recursive: true, force: true });
});

test("reproduce writes the re-ranked rows, their own significance family and their cost; a rerun sends nothing", async () => {
  const r = await reproduce(path.join(tmp, "out"));
  assert.equal(r.code, 0, r.stderr);
  const dir = path.join(tmp, "out", "sample");
  const summary = parseCsvRecords(await fs.readFile(path.join(dir, "summary.csv"), "utf8"));
  for (const id of RERANKED) {
    const row = summary.find((x) => x.experiment === id);
    assert.equal(row?.status, "ok", `${id}: ${row?.reason}`);
    assert.equal(row?.section, "rerank");
    assert.equal(row?.standIn, "stand-in", `${id} came through the doubles`);
  }
  assert.match(summary.find((x) => x.experiment === RERANKED[0])!.provenance, /rerank rerank at http:\/\/127\.0\.0\.1:\d+: BAAI\/bge-reranker-v2-m3 \[test double\]/);
  // What produced it, in the setup column: the re-ranker, its depth and pairs, and the first stage.
  assert.match(summary.find((x) => x.experiment === RERANKED[0])!.setup, /rerank bge-reranker-v2-m3: cross-encoder BAAI\/bge-reranker-v2-m3 at http:\/\/127\.0\.0\.1:\d+, depth 100, 2600 pairs \(0 cached, 0 articles cut\); BM25 bm25-greekstemmer k1 1\.5 b 0\.75/);
  assert.match(summary.find((x) => x.experiment === "rerank:llm:bm25-greekstemmer")!.setup, /rerank llm: listwise LLM, window 20 step 10, depth 100/);

  // Each re-ranked run against its own first stage, on the paper's four metrics, Holm over 24.
  const sig = JSON.parse(await fs.readFile(path.join(dir, "significance.json"), "utf8"));
  assert.equal(sig.paper.of, 20);
  assert.equal(sig.rerank.of, 24);
  assert.deepEqual(
    [...new Set(sig.rerank.tests.map((t: { a: string; b: string }) => `${t.a} | ${t.b}`))],
    RERANKED.map((id) => `${id} | ${id.replace(/^rerank:[^:]+:/, "")}`),
  );

  // Cost: BM25's top 100 of the sample is 100 pairs a query, 4 requests of 32; the LLM's 9 windows a query.
  const cost = parseCsvRecords(await fs.readFile(path.join(dir, "cost.csv"), "utf8"));
  const row = (id: string) => cost.find((c) => c.method === id)!;
  assert.equal(Number(row("rerank:bge-reranker-v2-m3:bm25-greekstemmer").rerankPairsPerQuery), 100);
  assert.equal(Number(row("rerank:bge-reranker-v2-m3:bm25-greekstemmer").callsPerQuery), 4);
  assert.equal(Number(row("rerank:llm:bm25-greekstemmer").callsPerQuery), 9);
  assert.equal(Number(row("bm25-greekstemmer").rerankPairsPerQuery), 0);
  assert.ok(rerank.count() > 0 && rerank.pairs() >= 26 * 100);

  // A second run: every pair from the score cache, every chat call from the replay cache.
  const [chats, reranks] = [chat.count("chat/completions"), rerank.count()];
  const again = await reproduce(path.join(tmp, "out2"));
  assert.equal(again.code, 0, again.stderr);
  assert.equal(rerank.count(), reranks, "no rerank request on the second run");
  assert.equal(chat.count("chat/completions"), chats, "no chat call on the second run");
  const summary2 = parseCsvRecords(await fs.readFile(path.join(tmp, "out2", "sample", "summary.csv"), "utf8"));
  for (const id of RERANKED) assert.equal(summary2.find((x) => x.experiment === id)!["nDCG@10"], summary.find((x) => x.experiment === id)!["nDCG@10"], id);
});

test("without a rerank server or chat model the re-ranked rows are skipped with the reason, not failed", async () => {
  const r = await runGbr(["reproduce", "--data", "sample", "--out", path.join(tmp, "out3"), "--only", "bm25-greekstemmer,rerank:bge-reranker-v2-m3:bm25-greekstemmer,rerank:llm:bm25-greekstemmer"], {
    dataDir: path.join(tmp, "data3"),
  });
  // Named with --only and not run: exit 1 (issue 22, item 7), the rows still "skipped" with their reason.
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /gbr reproduce: rerank:bge-reranker-v2-m3:bm25-greekstemmer(, rerank:llm:bm25-greekstemmer)? skipped/);
  const summary = parseCsvRecords(await fs.readFile(path.join(tmp, "out3", "sample", "summary.csv"), "utf8"));
  const ce = summary.find((x) => x.experiment === "rerank:bge-reranker-v2-m3:bm25-greekstemmer")!;
  assert.equal(ce.status, "skipped");
  assert.match(ce.reason, /GBR_RERANK_BASE_URL/);
  assert.equal(summary.find((x) => x.experiment === "rerank:llm:bm25-greekstemmer")!.status, "skipped");
});
