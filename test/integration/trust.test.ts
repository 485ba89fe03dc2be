/**
 * Issue 10, items 1, 2 and 5 end to end through the real `gbr`: exit codes, credentials in a
 * base URL, and provenance with stand-in marks read back from every output that shows them.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { promises as fs, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { startOpenAIDouble, type OpenAIDouble } from "../fakes/openai-server";
import { runGbr } from "../helpers/gbr";
import { filesUnder } from "../helpers/assertions";

const KEY = "trust-test-key-0123456789";
const CANARY = "CANARY-c4n4ry-9f3e1d";
let tmp = "";
let api: OpenAIDouble;

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    GBR_CHAT_BASE_URL: `${api.url}/v1`,
    GBR_CHAT_API_KEY: KEY,
    GBR_CHAT_MODEL: "openai/gpt-oss-120b",
    GBR_EMBED_BASE_URL: `${api.url}/v1`,
    GBR_EMBED_API_KEY: KEY,
    GBR_PRESETS: path.join(tmp, "presets.json"),
    ...extra,
  };
}

function csvRows(file: string): Record<string, string>[] {
  return parse(readFileSync(file, "utf8"), { columns: true }) as Record<string, string>[];
}

before(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-trust-test-"));
  api = await startOpenAIDouble({ dims: 16, apiKey: KEY });
  api.chat(() => ({ content: "KEYWORDS: αδικοπραξία, αποζημίωση, κλοπή", usage: { prompt_tokens: 100, completion_tokens: 10 } }));
  await fs.writeFile(
    path.join(tmp, "presets.json"),
    JSON.stringify({ presets: [{ name: "qwen3-8b", provider: "openai", model: "Qwen/Qwen3-Embedding-8B", dims: 16, queryTemplate: "Query:{text}", documentTemplate: "{text}" }] }),
  );
});

after(async () => {
  await api?.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

test("results made through the test doubles say so, with their provenance, in summary.csv, reproduction.csv, metadata.json, the report and stdout; a replayed rerun keeps the marks", async () => {
  const ids = ["bm25-greekstemmer", "reform:bm25-greekstemmer", "dense:qwen3-8b"];
  const dataDir = path.join(tmp, "data-marks");
  const run = (out: string) => runGbr(["reproduce", "--data", "sample", "--out", out, "--only", ids.join(",")], { dataDir, env: env() });

  for (const [round, out] of [["first", path.join(tmp, "marks1")], ["replayed", path.join(tmp, "marks2")]] as const) {
    const before = api.count();
    const r = await run(out);
    assert.equal(r.code, 0, r.stderr);
    if (round === "replayed") assert.equal(api.count(), before, "the rerun is served from the caches");
    const dir = path.join(out, "sample");

    const summary = new Map(csvRows(path.join(dir, "summary.csv")).map((row) => [row.experiment, row]));
    assert.equal(summary.get("bm25-greekstemmer")!.standIn, "", `${round}: BM25 calls no provider`);
    assert.equal(summary.get("bm25-greekstemmer")!.provenance, "");
    for (const id of ["reform:bm25-greekstemmer", "dense:qwen3-8b"]) {
      const row = summary.get(id)!;
      assert.equal(row.status, "ok", row.reason);
      assert.equal(row.standIn, "stand-in", `${round}: ${id} is marked`);
      const host = new URL(api.url).host;
      assert.ok(row.provenance.includes(host), `${round}: ${id} names the endpoint: ${row.provenance}`);
      assert.match(row.provenance, /\[test double\]/);
    }
    assert.match(summary.get("reform:bm25-greekstemmer")!.provenance, /^chat openai at http:\/\/127\.0\.0\.1:\d+: openai\/gpt-oss-120b/);
    assert.match(summary.get("dense:qwen3-8b")!.provenance, /embedding openai at http:\/\/127\.0\.0\.1:\d+: Qwen\/Qwen3-Embedding-8B/);

    const reproduction = csvRows(path.join(dir, "reproduction.csv"));
    assert.ok(reproduction.some((row) => row.standIn === "stand-in"), `${round}: reproduction.csv marks the stand-in rows`);
    assert.ok(reproduction.every((row) => row.standIn === "" || row.standIn === "stand-in"));

    const meta = JSON.parse(readFileSync(path.join(dir, "metadata.json"), "utf8"));
    assert.equal(meta.standIn, true);
    assert.match(meta.standInNote, /test doubles/);
    const dense = meta.experiments.find((e: { id: string }) => e.id === "dense:qwen3-8b");
    assert.deepEqual(
      dense.provenance.map((p: Record<string, unknown>) => [p.kind, p.requestedModel, p.standIn]),
      [["embedding", "Qwen/Qwen3-Embedding-8B", true]],
    );

    const made = await runGbr(["report", "--out", out], { dataDir });
    assert.equal(made.code, 0, made.stderr);
    const report = readFileSync(path.join(dir, "report.html"), "utf8");
    assert.match(report, /These numbers come from the project&#39;s test doubles|These numbers come from the project's test doubles/);
    assert.match(report, /STAND-IN|stand-in/);
    assert.match(r.stdout, /\[stand-in\]/, `${round}: the terminal summary marks the rows`);
  }
});

test("a failing provider makes reproduce exit 1 after writing what succeeded; the last line counts ran, skipped and failed", async () => {
  const out = path.join(tmp, "failing");
  const broken = await startOpenAIDouble({ dims: 16, apiKey: KEY });
  try {
    // A 400 is not retried: the provider refuses every request.
    broken.fault("status", 1000, { status: 400, message: "model not loaded" });
    const r = await runGbr(["reproduce", "--data", "sample", "--out", out, "--only", "bm25-greekstemmer,reform:bm25-greekstemmer"], {
      dataDir: path.join(tmp, "data-failing"),
      env: env({ GBR_CHAT_BASE_URL: `${broken.url}/v1` }),
    });
    assert.equal(r.code, 1, `exit code ${r.code}\n${r.stderr}`);
    const rows = new Map(csvRows(path.join(out, "sample", "summary.csv")).map((row) => [row.experiment, row]));
    assert.equal(rows.get("bm25-greekstemmer")!.status, "ok", "what succeeded is written");
    assert.equal(rows.get("reform:bm25-greekstemmer")!.status, "failed");
    assert.match(rows.get("reform:bm25-greekstemmer")!.reason, /400|model not loaded/);
    const last = (r.stdout + r.stderr).trim().split("\n").filter((l) => /ran.*skipped.*failed/.test(l)).pop();
    assert.match(last ?? "", /1 ran, 0 skipped, 1 failed/);
  } finally {
    await broken.close();
  }
});

test("usage errors exit 2: an unknown --only id with a suggestion, an unknown option, an unknown command", async () => {
  const dataDir = path.join(tmp, "data-usage");
  const only = await runGbr(["reproduce", "--data", "sample", "--out", path.join(tmp, "usage"), "--only", "bm25-greekstemer"], { dataDir });
  assert.equal(only.code, 2, only.stderr);
  assert.match(only.stderr, /did you mean 'bm25-greekstemmer'/);
  const option = await runGbr(["reproduce", "--onyl", "bm25-greekstemmer"], { dataDir });
  assert.equal(option.code, 2, option.stderr);
  assert.match(option.stderr, /^gbr reproduce: .*--onyl.*did you mean '--only'/m);
  assert.doesNotMatch(option.stderr, /ERR_PARSE_ARGS|TypeError/);
  const command = await runGbr(["reproduse"], { dataDir });
  assert.equal(command.code, 2, command.stderr);
  assert.match(command.stderr, /did you mean 'reproduce'/);
});

test("a credential in a base URL is refused at once and appears in no message, file, CSV, metadata or report", async () => {
  const dataDir = path.join(tmp, "data-canary");
  const out = path.join(tmp, "canary");
  const withCredentials = `http://user:${CANARY}@${new URL(api.url).host}/v1`;
  const before = api.count();
  for (const variable of ["GBR_CHAT_BASE_URL", "OPENAI_BASE_URL", "GBR_EMBED_BASE_URL"]) {
    const only = variable === "GBR_EMBED_BASE_URL" ? "bm25-greekstemmer,dense:qwen3-8b" : "bm25-greekstemmer,reform:bm25-greekstemmer";
    const r = await runGbr(["reproduce", "--data", "sample", "--out", out, "--only", only], {
      dataDir,
      env: env({ GBR_CHAT_BASE_URL: "", [variable]: withCredentials }),
    });
    assert.equal(r.code, 1, `${variable}: exit ${r.code}\n${r.stderr}`);
    assert.ok(!r.stdout.includes(CANARY) && !r.stderr.includes(CANARY), `${variable}: the credential reached the terminal`);
    assert.match(r.stdout + r.stderr, new RegExp(`${variable} carries credentials \\(http://\\*\\*\\*:\\*\\*\\*@`));
    await runGbr(["report", "--out", out], { dataDir });
    for (const f of [...filesUnder(out), ...filesUnder(dataDir)]) {
      assert.ok(!readFileSync(f).includes(CANARY), `${variable}: the credential leaked into ${f}`);
    }
  }
  assert.equal(api.count(), before, "no request was even attempted");
  // The same for the Hub's endpoint, whose download comes before any experiment.
  const hub = await runGbr(["reproduce", "--data", "hf", "--out", out, "--only", "bm25-greekstemmer"], {
    dataDir,
    env: { HF_ENDPOINT: `http://user:${CANARY}@127.0.0.1:9` },
  });
  assert.notEqual(hub.code, 0);
  assert.ok(!hub.stdout.includes(CANARY) && !hub.stderr.includes(CANARY), hub.stderr);
  assert.match(hub.stderr, /HF_ENDPOINT carries credentials/);
});
