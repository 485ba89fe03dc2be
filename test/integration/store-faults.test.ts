/**
 * Faults of the store and the disk, end to end:
 * - a stored chat answer whose bytes are not valid UTF-8 is discarded with a warning naming it and
 *   asked again, so the numbers stay the clean run's (v0.8 replayed it with U+FFFD, silently);
 * - a full disk under the store fails only the experiments that need it (naming the folder, and
 *   sending no call whose answer it could not keep); the others finish and every table is written;
 * - a full disk under a download (the Hub's and spaCy's caches) is an error naming the folder, not
 *   a crash of the process (an unhandled 'error' event) nor a network fault retried.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import fs, { existsSync, readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startOpenAIDouble, type OpenAIDouble } from "../fakes/openai-server";
import { scriptedModel } from "../fakes/scripted-model";
import { runGbr } from "../helpers/gbr";
import { parseCsvRecords } from "../../lib/util/csv";
import { loadBenchmark } from "../../lib/data/source";
import { reproduce } from "../../lib/experiments/reproduce";
import { openStore } from "../../lib/store";
import { downloadFile } from "../../lib/util/download";
import { GbrError } from "../../lib/util/errors";
import { startStaticServer } from "../fakes/static-server";

const METRICS = ["nDCG@10", "nDCG@100", "Recall@10", "Recall@100", "MAP@100"];
const ENV = ["GBR_CHAT_BASE_URL", "GBR_CHAT_MODEL", "GBR_DATA_DIR", "GBR_OFFLINE"];
const saved: Record<string, string | undefined> = {};
let tmp = "";
let chat: OpenAIDouble;

before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "gbr-store-faults-"));
  chat = await startOpenAIDouble();
  chat.chat(scriptedModel);
  for (const k of ENV) saved[k] = process.env[k];
});

after(async () => {
  for (const k of ENV) (saved[k] === undefined ? delete process.env[k] : (process.env[k] = saved[k]));
  await chat?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function chatRecords(data: string): string[] {
  const root = path.join(data, "store", "chat");
  return readdirSync(root).flatMap((d) => readdirSync(path.join(root, d)).filter((f) => f.endsWith(".json")).map((f) => path.join(root, d, f)));
}

test("defect 2: a stored answer that is not valid UTF-8 is discarded, named, asked again, and the numbers equal the clean run's", async () => {
  const data = path.join(tmp, "data-utf8");
  const env = { GBR_CHAT_BASE_URL: `${chat.url}/v1`, GBR_CHAT_MODEL: "openai/gpt-oss-120b" };
  const run = (out: string) => runGbr(["reproduce", "--data", "sample", "--out", out, "--only", "reform:bm25-greekstemmer"], { dataDir: data, env });
  const clean = await run(path.join(tmp, "out-clean"));
  assert.equal(clean.code, 0, clean.stderr);
  const calls = chat.chatRequests().length;
  assert.equal(calls, 26);

  // One record's answer gets a byte that is not UTF-8, inside a Greek letter (as a bad disk
  // sector or a careless copy would leave it): it still parses as JSON with a lenient decoder.
  const victim = chatRecords(data)[0];
  const key = path.basename(victim, ".json");
  const bytes = readFileSync(victim);
  const at = bytes.indexOf(Buffer.from('"text":"', "utf8")) + 8;
  const greek = bytes.indexOf(0xce, at);
  assert.ok(greek > at, "the answer holds Greek letters");
  bytes[greek + 1] = 0xff;
  fs.writeFileSync(victim, bytes);
  assert.doesNotThrow(() => JSON.parse(bytes.toString("utf8")), "a lenient reader sees valid JSON (with U+FFFD)");

  const again = await run(path.join(tmp, "out-again"));
  assert.equal(again.code, 0, again.stderr);
  assert.ok(again.stderr.includes(victim) && again.stderr.includes(key), `the warning names the record: ${again.stderr}`);
  assert.match(again.stderr, /not valid UTF-8/);
  assert.equal(chat.chatRequests().length - calls, 1, "the damaged answer is asked again, nothing else");
  const a = parseCsvRecords(readFileSync(path.join(tmp, "out-clean", "sample", "summary.csv"), "utf8"))[0];
  const b = parseCsvRecords(readFileSync(path.join(tmp, "out-again", "sample", "summary.csv"), "utf8"))[0];
  for (const m of METRICS) assert.equal(b[m], a[m], m);
  console.log(`# a record with a byte that is not UTF-8: discarded and asked again, nDCG@10 ${b["nDCG@10"]} (clean ${a["nDCG@10"]})`);
});

test("issue 28 item 7: a full store disk fails only the experiments that need the store; the others' results and every table are written", async () => {
  const data = path.join(tmp, "data-full");
  const outRoot = path.join(tmp, "out-full");
  process.env.GBR_CHAT_BASE_URL = `${chat.url}/v1`;
  process.env.GBR_CHAT_MODEL = "openai/gpt-oss-120b";
  process.env.GBR_DATA_DIR = data;
  const store = await openStore(path.join(data, "store"), { log: () => {} });
  // The disk holding the store fills up: every record write fails as write(2) does then.
  const open = fs.promises.open;
  fs.promises.open = (async (file: fs.PathLike, ...rest: unknown[]) => {
    if (String(file).startsWith(store.dir) && String(file).endsWith(".tmp")) {
      throw Object.assign(new Error(`ENOSPC: no space left on device, open '${String(file)}'`), { code: "ENOSPC", errno: -28 });
    }
    return (open as (...a: unknown[]) => Promise<fs.promises.FileHandle>)(file, ...rest);
  }) as typeof fs.promises.open;
  const sent = chat.chatRequests().length;
  const ids = ["bm25-greekstemmer", "reform:bm25-greekstemmer", "lsi", "react-bm25"];
  let result;
  try {
    const loaded = await loadBenchmark("sample");
    result = await reproduce(loaded, { outRoot, only: ids, context: { store } });
  } finally {
    fs.promises.open = open;
  }
  const full = new RegExp(`no space left on the disk holding ${store.dir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\(ENOSPC\\).*free some space there \\(or give GBR_DATA_DIR another folder\\)`);
  const status = Object.fromEntries(result.outcomes.map((o) => [o.id, o.status]));
  assert.deepEqual(status, { "bm25-greekstemmer": "ok", "reform:bm25-greekstemmer": "failed", lsi: "ok", "react-bm25": "failed" });
  for (const id of ["reform:bm25-greekstemmer", "react-bm25"]) assert.match(result.outcomes.find((o) => o.id === id)!.reason ?? "", full, id);
  // Once the store refused a record, no later call is paid for an answer it could not keep.
  const calls = chat.chatRequests().length - sent;
  assert.ok(calls < 26, `${calls} chat requests: fewer than reform's 26, none for react-bm25`);
  const dir = path.join(outRoot, "sample");
  for (const id of ["bm25-greekstemmer", "lsi"]) {
    assert.ok(existsSync(path.join(dir, "runs", `${id}.trec`)), id);
    assert.equal(JSON.parse(readFileSync(path.join(dir, "experiments", `${id}.json`), "utf8")).status, "ok");
  }
  const summary = parseCsvRecords(readFileSync(path.join(dir, "summary.csv"), "utf8"));
  assert.deepEqual(Object.fromEntries(summary.map((r) => [r.experiment, r.status])), status);
  for (const f of ["per-query.csv", "metadata.json", "tables.md", "qrels.txt"]) assert.ok(existsSync(path.join(dir, f)), f);
  console.log(`# a full store disk: bm25 and lsi written, reform and react-bm25 failed naming it, ${calls} chat requests sent`);
});

test("gbr replay export / import (and v0.8's replay merge): another data folder replays the run offline, with no request", async () => {
  const env = { GBR_CHAT_BASE_URL: `${chat.url}/v1`, GBR_CHAT_MODEL: "openai/gpt-oss-120b" };
  const mine = path.join(tmp, "data-mine");
  const theirs = path.join(tmp, "data-theirs");
  const run = (data: string, out: string, extra: Record<string, string> = {}) =>
    runGbr(["reproduce", "--data", "sample", "--out", out, "--only", "reform:bm25-greekstemmer"], { dataDir: data, env: { ...env, ...extra } });
  assert.equal((await run(mine, path.join(tmp, "out-mine"))).code, 0);
  const file = path.join(tmp, "shared.replay.jsonl");
  const exported = await runGbr(["replay", "export", "--file", file], { dataDir: mine });
  assert.equal(exported.code, 0, exported.stderr);
  assert.match(exported.stdout, /^26 chat answers -> /);
  const keys = readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l).key as string);
  assert.deepEqual(keys, [...keys].sort(), "key-sorted");

  const imported = await runGbr(["replay", "import", "--file", file], { dataDir: theirs });
  assert.equal(imported.code, 0, imported.stderr);
  assert.match(imported.stdout, /^26 chat answers added to .* \(0 already there\)/);
  assert.match((await runGbr(["replay", "merge", "--file", file], { dataDir: theirs })).stdout, /^0 chat answers added .* \(26 already there\)/);
  const before = chat.chatRequests().length;
  const replayed = await run(theirs, path.join(tmp, "out-theirs"), { GBR_OFFLINE: "1" });
  assert.equal(replayed.code, 0, replayed.stderr);
  assert.equal(chat.chatRequests().length, before, "no request");
  const a = parseCsvRecords(readFileSync(path.join(tmp, "out-mine", "sample", "summary.csv"), "utf8"))[0];
  const b = parseCsvRecords(readFileSync(path.join(tmp, "out-theirs", "sample", "summary.csv"), "utf8"))[0];
  assert.equal(b.status, "ok", b.reason);
  for (const m of METRICS) assert.equal(b[m], a[m], m);
  assert.equal((await runGbr(["replay", "export"], { dataDir: theirs })).code, 2);
});

test("issue 28: a download onto a full disk fails naming the folder, once, instead of ending the process", async () => {
  const body = Buffer.alloc(1 << 20, 7);
  const server = await startStaticServer({ "/tables.bin": body });
  const dest = path.join(tmp, "cache-full", "tables.bin");
  // The cache's disk is full: every write of the file fails as write(2) does then (/dev/full answers ENOSPC).
  const create = fs.createWriteStream;
  fs.createWriteStream = ((file: fs.PathLike, ...rest: unknown[]) =>
    String(file).startsWith(dest) ? create("/dev/full") : (create as (...a: unknown[]) => fs.WriteStream)(file, ...rest)) as typeof fs.createWriteStream;
  try {
    await assert.rejects(downloadFile(`${server.url}/tables.bin`, dest, { backoffMs: 1 }), (e: unknown) => {
      assert.ok(e instanceof GbrError && e.code === "DISK_FULL", String(e));
      assert.equal(e.message, `no space left on the disk holding ${path.dirname(dest)} (ENOSPC)`);
      return true;
    });
  } finally {
    fs.createWriteStream = create;
    await server.close();
  }
  assert.equal(server.total(), 1, "not retried as a network fault");
  assert.ok(!existsSync(dest));
});
