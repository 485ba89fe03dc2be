/**
 * Two `gbr reproduce` runs started together on one data folder, against one call-counting double:
 * every embedding (dense) and every chat call (reformulation) reaches the provider exactly once,
 * and both runs finish with the same numbers.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { startOpenAIDouble, type OpenAIDouble } from "../fakes/openai-server";
import { runGbr } from "../helpers/gbr";

let tmp = "";
let api: OpenAIDouble;

before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "gbr-shared-folder-"));
  // Slow answers keep the two runs' calls in flight together.
  api = await startOpenAIDouble({ dims: 16, delayMs: 40 });
  api.chat(() => ({ content: "KEYWORDS: αδικοπραξία, αποζημίωση, μίσθωση", delayMs: 80 }));
  fs.writeFileSync(
    path.join(tmp, "presets.json"),
    JSON.stringify({ presets: [{ name: "qwen3-8b", provider: "openai", model: "Qwen/Qwen3-Embedding-8B", dims: 16, queryTemplate: "Query:{text}", documentTemplate: "{text}" }] }),
  );
});

after(async () => {
  await api?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Two runs of the same experiments at once, sharing `data/`, each with its own output folder. */
async function twoRuns(name: string, only: string) {
  const env = {
    GBR_CHAT_BASE_URL: `${api.url}/v1`,
    GBR_CHAT_MODEL: "openai/gpt-oss-120b",
    GBR_EMBED_BASE_URL: `${api.url}/v1`,
    GBR_PRESETS: path.join(tmp, "presets.json"),
  };
  const data = path.join(tmp, `data-${name}`);
  const runs = await Promise.all([1, 2].map((i) => runGbr(["reproduce", "--data", "sample", "--out", path.join(tmp, `${name}-${i}`), "--only", only], { dataDir: data, env })));
  for (const r of runs) assert.equal(r.code, 0, r.stderr);
  const summaries = [1, 2].map((i) => fs.readFileSync(path.join(tmp, `${name}-${i}`, "sample", "summary.csv"), "utf8").split("\n").map((l) => l.split(",").slice(0, 8).join(",")));
  assert.deepEqual(summaries[0], summaries[1], "both runs report the same numbers");
  return runs;
}

test("two gbr reproduce runs of a dense experiment on one data folder embed each article and query once", async () => {
  api.reset();
  const runs = await twoRuns("dense", "dense:qwen3-8b");
  const inputs = api.embeddingRequests().flatMap((q) => q.input);
  // The sample: 114 articles and 26 queries, all distinct texts.
  assert.equal(inputs.length, 114 + 26, `${inputs.length} texts sent in ${api.count("embeddings")} requests`);
  assert.equal(new Set(inputs).size, 114 + 26);
  console.log(`two dense runs: ${api.count("embeddings")} embedding requests, ${inputs.length} texts; ${runs.map((r) => r.stderr.match(/\d+ of 114 document vectors cached/)?.[0] ?? "all 114 cached").join(" / ")}`);
});

test("two gbr reproduce runs of reformulation on one data folder make each chat call once", async () => {
  api.reset();
  api.chat(() => ({ content: "KEYWORDS: αδικοπραξία, αποζημίωση, μίσθωση", delayMs: 80 }));
  const runs = await twoRuns("reform", "reform:bm25-greekstemmer");
  const calls = api.chatRequests().map((b) => JSON.stringify(b.messages));
  assert.equal(calls.length, 26, `chat calls: ${calls.length}`);
  assert.equal(new Set(calls).size, 26);
  console.log(`two reformulation runs: ${calls.length} chat calls for 26 queries; ${runs.map((r) => r.stderr.match(/\d+ cached, \d+ to ask/)?.[0]).join(" / ")}`);
});
