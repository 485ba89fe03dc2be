/**
 * Issue 28, item 2: Ctrl-C in a first `gbr reproduce` exited 130 in silence, and the same command then refused the
 * folder ("judgments it did not record … add --replace"); the same after kill -9. Now the judgments are recorded before
 * the first experiment, an interrupt says what was kept and how to go on, and the rerun continues: the experiments
 * that finished are not run again, the answers already asked are not asked again, and the summary equals an
 * uninterrupted run's.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs, { existsSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startOpenAIDouble, type OpenAIDouble } from "../fakes/openai-server";
import { scriptedModel } from "../fakes/scripted-model";
import { CLEARED, runGbr } from "../helpers/gbr";
import { REPO, requireShared } from "../helpers/shared";
import { parseCsvRecords } from "../../lib/util/csv";

const ONLY = "bm25-greekstemmer,lsi,reform:bm25-greekstemmer,reform:bm25-grnlp";
const COLUMNS = ["experiment", "status", "nDCG@10", "nDCG@100", "Recall@10", "Recall@100", "MAP@100"];
let tmp = "";
let chat: OpenAIDouble;

before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "gbr-interrupt-"));
  chat = await startOpenAIDouble();
  // One answer at a time, each 150 ms late: reform:bm25-greekstemmer's 26 questions take about 4 s.
  chat.chat((body) => ({ ...scriptedModel(body), delayMs: 150 }));
});

after(async () => {
  await chat?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const envOf = (data: string) => ({
  ...process.env,
  GBR_DATA_DIR: data,
  GBR_SPACY_BASE_URL: "http://unreachable.invalid",
  HF_ENDPOINT: "http://unreachable.invalid",
  ...Object.fromEntries(CLEARED.map((k) => [k, ""])),
  CI: "true",
  GBR_CHAT_BASE_URL: `${chat.url}/v1`,
  GBR_CHAT_MODEL: "openai/gpt-oss-120b",
  GBR_CHAT_CONCURRENCY: "1",
});

const args = (out: string) => ["reproduce", "--data", "sample", "--out", out, "--only", ONLY];

/** Starts `gbr reproduce` and sends `signal` once the first two experiments are written and reform is asking. */
function interrupted(data: string, out: string, signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; asked: number }> {
  const child = spawn(process.execPath, [path.join(REPO, "bin", "gbr.js"), ...args(out)], { env: envOf(data) });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  child.stdout.resume();
  const records = path.join(out, "sample", "experiments");
  const start = chat.chatRequests().length;
  let asked = 0;
  const poll = setInterval(() => {
    asked = chat.chatRequests().length - start;
    if (asked >= 3 && existsSync(path.join(records, "lsi.json"))) {
      clearInterval(poll);
      child.kill(signal);
    }
  }, 20);
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, sig) => {
      clearInterval(poll);
      resolve({ code, signal: sig, stderr, asked });
    });
  });
}

const summaryOf = (out: string) =>
  parseCsvRecords(readFileSync(path.join(out, "sample", "summary.csv"), "utf8")).map((r) => COLUMNS.map((c) => r[c]));
const ranAt = (out: string, id: string) => JSON.parse(readFileSync(path.join(out, "sample", "experiments", `${id}.json`), "utf8")).ranAt as string;

let reference: string[][];

/** The uninterrupted run's summary (once, as the subtests compare with it). */
async function referenceSummary(): Promise<string[][]> {
  if (reference) return reference;
  const out = path.join(tmp, "out-whole");
  const whole = await runGbr(args(out), { dataDir: path.join(tmp, "data-whole"), env: envOf(path.join(tmp, "data-whole")) });
  assert.equal(whole.code, 0, whole.stderr);
  reference = summaryOf(out);
  assert.deepEqual(reference.map((r) => r[1]), ["ok", "ok", "ok", "ok"], "the uninterrupted run runs all four");
  return reference;
}

for (const signal of ["SIGINT", "SIGTERM", "SIGKILL"] as const) {
  test(`${signal} in a first run mid-way: the same command continues without --replace and gives the uninterrupted summary`, async () => {
    const data = path.join(tmp, `data-${signal}`);
    const out = path.join(tmp, `out-${signal}`);
    const whole = await referenceSummary();
    const sent = chat.chatRequests().length;
    const first = await interrupted(data, out, signal);
    if (signal !== "SIGKILL") {
      assert.equal(first.code, signal === "SIGINT" ? 130 : 143, first.stderr);
      const said = `gbr reproduce: interrupted (${signal}): 2 finished experiments are kept in ${path.join(out, "sample")} (bm25-greekstemmer, lsi); rerun the same command to continue\n`;
      assert.ok(first.stderr.endsWith(said), first.stderr);
    } else {
      assert.equal(first.signal, "SIGKILL");
    }
    const dir = path.join(out, "sample");
    assert.ok(!existsSync(path.join(dir, "summary.csv")), "interrupted before the tables");
    assert.ok(existsSync(path.join(dir, "qrels.txt")), "the judgments were recorded before the first experiment");
    const kept = { bm25: ranAt(out, "bm25-greekstemmer"), lsi: ranAt(out, "lsi") };

    const again = await runGbr(args(out), { dataDir: data, env: envOf(data) });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /continuing the run started \S+ \(interrupted\): 2 experiments it finished kept \(bm25-greekstemmer, lsi\)/);
    assert.doesNotMatch(again.stdout, /\[earlier\]/, "the interrupted run's experiments are this run's own");
    assert.deepEqual(summaryOf(out), whole);
    assert.deepEqual({ bm25: ranAt(out, "bm25-greekstemmer"), lsi: ranAt(out, "lsi") }, kept, "finished experiments are not run again");
    assert.ok(!existsSync(path.join(dir, "unfinished.json")), "a finished run leaves no mark");
    // The answers stored before the interrupt are not asked again: at most the one in flight is lost.
    const calls = chat.chatRequests().length - sent;
    assert.ok(calls <= 27, `${calls} chat requests over both runs (26 questions)`);
    console.log(`# ${signal} after ${first.asked} answers: the rerun continued, ${calls} chat requests over both runs`);
  });
}

test("a plan stopped by Ctrl-C says that nothing was called or written, and exits 130", async () => {
  const data = requireShared("data", "greeklaws-2021");
  const out = path.join(tmp, "out-plan");
  const before = chat.chatRequests().length + chat.embeddingRequests().length;
  const child = spawn(
    process.execPath,
    [path.join(REPO, "bin", "gbr.js"), "reproduce", "--plan", "--data", data, "--queries", path.join(data, "queries-sample.jsonl"), "--out", out],
    { env: { ...envOf(path.join(tmp, "data-plan")), GBR_EMBED_BASE_URL: `${chat.url}/v1` } },
  );
  let stderr = "";
  let sent = false;
  // The plan's first skip line (spaCy is unreachable) comes once it is under way: the signal lands inside it.
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
    if (!sent && stderr.includes("skipped")) {
      sent = true;
      child.kill("SIGINT");
    }
  });
  child.stdout.resume();
  const code = await new Promise<number | null>((resolve, reject) => child.on("error", reject).on("close", (c) => resolve(c)));
  assert.equal(code, 130, stderr);
  assert.match(stderr, /gbr reproduce --plan: interrupted \(SIGINT\); nothing was called or written/);
  assert.equal(existsSync(path.join(out, "greeklaws-2021--queries-sample", "plan.json")), false);
  assert.equal(chat.chatRequests().length + chat.embeddingRequests().length, before, "no model was called");
});
