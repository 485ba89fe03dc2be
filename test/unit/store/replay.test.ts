import { after, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  CHAT,
  exportReplay,
  mergeReplay,
  openReplayCache,
  replayKey,
  ReplayMissError,
  withReplay,
  type ReplayCache,
  type ReplayRecord,
} from "../../../lib/store";
import type { ChatError, ChatModel, ChatRequest } from "../../../lib/models/chat";
import { runContext } from "../../../lib/retrievers";
import { createProviders } from "../../../lib/providers";
import { chatForMethod } from "../../../lib/llm/chat-for-method";
import { readConfig } from "../../../lib/config";

const made: string[] = [];
after(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});
function tmpData(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gbr-replay-"));
  made.push(dir);
  return dir;
}
function tmpFile(name = "calls.jsonl"): string {
  return path.join(tmpData(), "nested", name);
}
const open = (data: string, log?: (m: string) => void) => openReplayCache({ dataDir: data, log: log ?? (() => {}) });
/** The chat record files of a data folder's store. */
function recordFiles(data: string): string[] {
  const root = path.join(data, "store", "chat");
  if (!fs.existsSync(root)) return [];
  return fs.readdirSync(root).flatMap((d) => fs.readdirSync(path.join(root, d)).map((f) => path.join(root, d, f)));
}
async function count(cache: ReplayCache): Promise<number> {
  let n = 0;
  for await (const _ of cache.records()) n++;
  return n;
}

/** A scripted chat model: answers depend on the request and on the call number. */
function fakeModel(id = "openai:openai/gpt-oss-120b") {
  const calls: ChatRequest[] = [];
  const model: ChatModel = {
    id,
    async complete(req) {
      calls.push(req);
      const n = calls.length;
      return {
        text: `απάντηση ${n}: ${req.user}`,
        raw: `<think>σκέψη</think>απάντηση ${n}: ${req.user}`,
        usage: { input: 100 + n, output: 10 + n },
        seconds: 0.5 + n / 1000,
      };
    },
  };
  return { model, calls };
}

const REQ: ChatRequest = {
  system: "Είσαι νομικός βοηθός.",
  user: "Μισθωτής δεν πληρώνει το μίσθωμα.",
  maxTokens: 42000,
  temperature: 0.2,
  topP: 1,
  reasoningEffort: "low",
};

const lines = (file: string) => fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "");
const keyOf = (req: ChatRequest, id = "openai:openai/gpt-oss-120b", sample = 0) => replayKey(id, req, sample);

test("the same request calls the model once; the second is replayed with identical text and usage", async () => {
  const data = tmpData();
  const cache = await open(data);
  const { model, calls } = fakeModel();
  const llm = withReplay(model, cache);
  const a = await llm.complete(REQ);
  const b = await llm.complete({ ...REQ });
  assert.equal(calls.length, 1);
  assert.equal(a.replayed, false);
  assert.equal(b.replayed, true);
  assert.deepEqual({ ...b, replayed: false }, a);
  assert.equal(await count(cache), 1);
  assert.equal(llm.id, model.id);

  // A fresh process (a new open of the same folder) replays too, without any call.
  const again = withReplay(fakeModel().model, await open(data));
  const c = await again.complete(REQ);
  assert.equal(c.replayed, true);
  assert.equal(c.text, a.text);
  assert.deepEqual(c.usage, a.usage);
  assert.equal(c.seconds, a.seconds);
  assert.equal(c.raw, a.raw);

  // One file per record, named by its key, with the documented shape.
  const files = recordFiles(data);
  const key = keyOf(REQ);
  assert.deepEqual(files, [path.join(data, "store", "chat", key.slice(0, 2), `${key}.json`)]);
  const rec = JSON.parse(fs.readFileSync(files[0], "utf8"));
  assert.deepEqual(Object.keys(rec), ["key", "provider", "model", "request", "sample", "response", "at"]);
  assert.equal(rec.provider, "openai");
  assert.equal(rec.model, "openai/gpt-oss-120b");
  assert.deepEqual(rec.request, REQ);
  assert.equal(rec.sample, 0);
  assert.ok(!Number.isNaN(Date.parse(rec.at)));
});

test("the key is documented canonical JSON; any parameter change is a new call", async () => {
  const { createHash } = await import("node:crypto");
  const expected = createHash("sha256")
    .update(JSON.stringify(["openai:openai/gpt-oss-120b", REQ.system, REQ.user, 42000, 0.2, 1, "low", null, 0]))
    .digest("hex");
  assert.equal(replayKey("openai:openai/gpt-oss-120b", REQ), expected);
  // Property order of the request object does not matter.
  const shuffled: ChatRequest = { topP: 1, reasoningEffort: "low", user: REQ.user, temperature: 0.2, maxTokens: 42000, system: REQ.system };
  assert.equal(replayKey("openai:openai/gpt-oss-120b", shuffled), expected);
  assert.throws(() => replayKey("m", { ...REQ, temperature: NaN }), /temperature/);

  const cache = await open(tmpData());
  const { model, calls } = fakeModel();
  const llm = withReplay(model, cache);
  await llm.complete(REQ);
  const variants: ChatRequest[] = [
    { ...REQ, system: REQ.system + " " },
    { ...REQ, user: REQ.user + "?" },
    { ...REQ, maxTokens: 44096 },
    { ...REQ, maxTokens: undefined },
    { ...REQ, temperature: 0.3 },
    { ...REQ, topP: 0.9 },
    { ...REQ, reasoningEffort: "high" },
    { ...REQ, seed: 42 },
  ];
  for (const v of variants) {
    const r = await llm.complete(v);
    assert.equal(r.replayed, false, JSON.stringify(v));
  }
  assert.equal(calls.length, 1 + variants.length);
  // Another model id with the same request is another call too.
  const other = fakeModel("gemini:gemini-2.5-flash");
  assert.equal((await withReplay(other.model, cache).complete(REQ)).replayed, false);
  assert.equal(await count(cache), 2 + variants.length);
});

test("the sample index separates otherwise identical calls (--repeat N --seed S)", async () => {
  const cache = await open(tmpData());
  const { model, calls } = fakeModel();
  const texts: string[] = [];
  for (let i = 0; i < 3; i++) texts.push((await withReplay(model, cache, { sample: i }).complete(REQ)).text);
  assert.equal(calls.length, 3);
  assert.equal(new Set(texts).size, 3);
  for (let i = 0; i < 3; i++) {
    const r = await withReplay(model, cache, { sample: i }).complete(REQ);
    assert.equal(r.replayed, true);
    assert.equal(r.text, texts[i]);
  }
  assert.equal(calls.length, 3);
  assert.notEqual(replayKey("m", REQ, 0), replayKey("m", REQ, 1));
  assert.throws(() => withReplay(model, cache, { sample: -1 }), /sample/);
});

test('"refresh" calls again and the newest record replaces the old, also after reopening', async () => {
  const data = tmpData();
  const cache = await open(data);
  const { model, calls } = fakeModel();
  const first = await withReplay(model, cache).complete(REQ);
  const fresh = await withReplay(model, cache, { mode: "refresh" }).complete(REQ);
  assert.equal(calls.length, 2);
  assert.equal(fresh.replayed, false);
  assert.notEqual(fresh.text, first.text);
  assert.equal(recordFiles(data).length, 1, "one record per key");
  assert.equal((await withReplay(model, cache).complete(REQ)).text, fresh.text);
  const reopened = await open(data);
  assert.equal((await reopened.get(replayKey(model.id, REQ)))!.response.text, fresh.text);
  const all: ReplayRecord[] = [];
  for await (const r of reopened.records()) all.push(r);
  assert.deepEqual(all.map((r) => r.response.text), [fresh.text]);
});

test('"off" never touches the store', async () => {
  const data = tmpData();
  const cache = await open(data);
  const { model, calls } = fakeModel();
  const llm = withReplay(model, cache, { mode: "off" });
  const a = await llm.complete(REQ);
  await llm.complete(REQ);
  assert.equal(calls.length, 2);
  assert.equal(a.replayed, undefined);
  assert.equal(fs.existsSync(path.join(data, "store")), false);
  assert.equal(await count(cache), 0);
});

test("a damaged record (torn, not UTF-8, not JSON, another key) is discarded with a warning naming it, and asked again", async () => {
  const data = tmpData();
  const cache = await open(data);
  const { model } = fakeModel();
  const llm = withReplay(model, cache);
  const users = ["α", "β", "γ", "δ"];
  const first = [];
  for (const u of users) first.push(await llm.complete({ ...REQ, user: u }));
  const fileOf = (u: string) => cache.store.fileOf(CHAT, keyOf({ ...REQ, user: u }));
  const bytes = fs.readFileSync(fileOf("α"));
  // α: cut short; β: one byte that is not UTF-8 inside the answer (a lenient decoder would read U+FFFD);
  // γ: not JSON; δ: a valid record of another call under δ's name.
  fs.writeFileSync(fileOf("α"), bytes.subarray(0, bytes.length >> 1));
  const b = fs.readFileSync(fileOf("β"));
  const at = b.indexOf(Buffer.from("απάντηση"));
  b[at + 1] = 0xff;
  fs.writeFileSync(fileOf("β"), b);
  fs.writeFileSync(fileOf("γ"), "not json\n");
  fs.writeFileSync(fileOf("δ"), fs.readFileSync(fileOf("δ")).toString("utf8").replace(/"user":"δ"/, '"user":"ε"'));

  const logs: string[] = [];
  const { model: m2, calls } = fakeModel();
  const again = withReplay(m2, await open(data, (m) => logs.push(m)));
  for (const [i, u] of users.entries()) {
    const r = await again.complete({ ...REQ, user: u });
    assert.equal(r.replayed, false, u);
    assert.equal(r.text, first[i].text, u);
  }
  assert.equal(calls.length, 4);
  assert.equal(logs.length, 4, logs.join("\n"));
  for (const u of users) assert.ok(logs.some((m) => m.includes(fileOf(u)) && m.includes(keyOf({ ...REQ, user: u }))), `${u}: ${logs.join("\n")}`);
  assert.match(logs.join("\n"), /not valid UTF-8/);
  assert.match(logs.join("\n"), /not valid JSON/);
  assert.match(logs.join("\n"), /does not match its content/);
  // Set aside for a look, and the new records are whole.
  assert.ok(fs.existsSync(`${fileOf("β")}.bad`));
  for (const u of users) JSON.parse(fs.readFileSync(fileOf(u), "utf8"));
});

test("a v0.8 replay file is migrated once: damaged lines skipped and reported, a record glued to a torn line recovered, the newest line of a key kept", async () => {
  const data = tmpData();
  const old = path.join(data, "v08");
  const { model } = fakeModel();
  // Records as v0.8 wrote them: the same fields, one line each.
  const made: ReplayRecord[] = [];
  const cache0 = await open(old);
  const llm = withReplay(model, cache0);
  for (const u of ["α", "β", "γ"]) await llm.complete({ ...REQ, user: u });
  for await (const r of cache0.records()) made.push(r);
  const [a, b, c] = made.map((r) => JSON.stringify(r));
  const newer = JSON.stringify({ ...made[2], response: { ...made[2].response, text: "νεότερη" } });
  const forged = JSON.stringify({ ...made[0], request: { ...made[0].request, user: "πλαστό" } });
  const file = path.join(data, "replay", "llm-calls.jsonl");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${a}\nnot json\n${b.slice(0, 40)}${b}\n${c}\n${forged}\n${newer}\n${a.slice(0, 30)}`);
  fs.writeFileSync(`${file}.order-gen`, "x");

  const logs: string[] = [];
  const cache = await open(data, (m) => logs.push(m));
  assert.equal(await count(cache), 3);
  assert.equal((await cache.get(made[1].key))!.request.user, made[1].request.user);
  assert.equal((await cache.get(made[2].key))!.response.text, "νεότερη");
  const text = logs.join("\n");
  assert.match(text, /line 2 \(not valid JSON\)/);
  assert.match(text, /line 5 \(its key .* does not match its content/);
  assert.match(text, /incomplete last line/);
  assert.match(text, /migrated .*llm-calls\.jsonl \(v0\.8\) into .*: 3 chat records added/);
  assert.ok(fs.existsSync(`${file}.migrated`) && !fs.existsSync(file) && !fs.existsSync(`${file}.order-gen`));
  // Once: the next open says nothing.
  const quiet: string[] = [];
  await open(data, (m) => quiet.push(m));
  assert.deepEqual(quiet, []);
});

test("50 concurrent puts give 50 whole, valid records", async () => {
  const data = tmpData();
  const cache = await open(data);
  const records: ReplayRecord[] = Array.from({ length: 50 }, (_, i) => {
    const request: ChatRequest = { system: "σ", user: `ερώτηση ${i} ${"λ".repeat(i * 400)}`, temperature: 0.2 };
    return {
      key: replayKey("openai:m", request, 0),
      provider: "openai",
      model: "m",
      request,
      sample: 0,
      response: { text: `τ${i}`, raw: `τ${i}`, usage: { input: i, output: i }, seconds: i },
      at: new Date().toISOString(),
    };
  });
  await Promise.all(records.map((r) => cache.put(r)));
  const ls = recordFiles(data);
  assert.equal(ls.length, 50);
  assert.deepEqual(new Set(ls.map((f) => JSON.parse(fs.readFileSync(f, "utf8")).key)), new Set(records.map((r) => r.key)));
  for (const r of records) assert.equal((await cache.get(r.key))!.response.text, r.response.text);
  assert.equal(await count(await open(data)), 50);

  // Identical calls in flight at once share one provider call.
  const { model, calls } = fakeModel();
  const llm = withReplay(model, cache);
  const rs = await Promise.all(Array.from({ length: 5 }, () => llm.complete(REQ)));
  assert.equal(calls.length, 1);
  assert.equal(rs.filter((r) => !r.replayed).length, 1);
  assert.equal(new Set(rs.map((r) => r.text)).size, 1);
});

test("put refuses invalid records and keys that do not match the call", async () => {
  const cache = await open(tmpData());
  const request: ChatRequest = { system: "s", user: "u" };
  const good: ReplayRecord = {
    key: replayKey("p:m", request, 0),
    provider: "p",
    model: "m",
    request,
    sample: 0,
    response: { text: "t", raw: "t", usage: { input: 1, output: 1 }, seconds: 1 },
    at: "2026-01-01T00:00:00.000Z",
  };
  await assert.rejects(cache.put({ ...good, sample: 1 }), /does not match/);
  await assert.rejects(cache.put({ ...good, response: { ...good.response, usage: undefined as never } }), /usage/);
  await cache.put(good);
  assert.equal(await count(cache), 1);
});

test("offline: a miss throws naming the key and the store; hits are served; the model is never called", async () => {
  const data = tmpData();
  const cache = await open(data);
  const { model, calls } = fakeModel();
  await withReplay(model, cache).complete(REQ);
  const off = withReplay(model, cache, { offline: true });
  assert.equal((await off.complete(REQ)).replayed, true);
  const key = replayKey(model.id, { ...REQ, user: "άλλο" });
  await assert.rejects(off.complete({ ...REQ, user: "άλλο" }), (err: unknown) => {
    assert.ok(err instanceof ReplayMissError);
    // The cache does not know lib/llm's ChatError, but raises the code ChatError uses for "no
    // provider", so callers that switch on the code skip alike (the type checks it is one of them).
    const code: ChatError["code"] = err.code;
    assert.equal(code, "NOT_CONFIGURED");
    assert.equal(err.key, key);
    assert.ok(err.message.includes(key));
    assert.ok(err.message.includes(path.join(data, "store")));
    return true;
  });
  await assert.rejects(withReplay(model, cache, { offline: true, mode: "refresh" }).complete(REQ), ReplayMissError);
  // GBR_OFFLINE reaches a method's model through the run's configuration.
  const ctx = runContext({ providers: createProviders(readConfig({ GBR_OFFLINE: "1", GBR_CHAT_BASE_URL: "http://127.0.0.1:9/v1", GBR_DATA_DIR: data })), store: cache.store });
  await assert.rejects((await chatForMethod({}, ctx)).complete({ ...REQ, user: "τρίτο" }), ReplayMissError);
  assert.equal(calls.length, 1);
});

test("GBR_REPLAY_FILE: its answers are imported into the store when a run opens it, once per version of the file", async () => {
  const { model } = fakeModel();
  const theirs = await open(tmpData());
  const answer = await withReplay(model, theirs).complete(REQ);
  const file = tmpFile("shared.jsonl");
  await exportReplay(theirs, file);
  const data = tmpData();
  // GBR_REPLAY_FILE, through the configuration a run opens its store with.
  const { dataDir, replayFile } = readConfig({ GBR_REPLAY_FILE: file, GBR_DATA_DIR: data });
  const logs: string[] = [];
  const cache = await openReplayCache({ dataDir, replayFile, log: (m) => logs.push(m) });
  assert.match(logs.join("\n"), /imported 1 chat answers from .*shared\.jsonl/);
  const r = await withReplay({ id: model.id, complete: async () => assert.fail("no call") }, cache, { offline: true }).complete(REQ);
  assert.equal(r.text, answer.text);
  const again: string[] = [];
  await openReplayCache({ dataDir, replayFile, log: (m) => again.push(m) });
  assert.deepEqual(again, [], "the same file is not imported twice");
  assert.ok(fs.existsSync(file), "the shared file is only read");
});

test("export of one run, then merge elsewhere: the other side replays it offline, bit for bit", async () => {
  const cache = await open(tmpData());
  const { model } = fakeModel();
  const runA = withReplay(model, cache);
  const runB = withReplay(model, cache);
  const answersA = [];
  for (const u of ["α", "β"]) answersA.push(await runA.complete({ ...REQ, user: u }));
  await runB.complete({ ...REQ, user: "άσχετο" });

  const out = tmpFile("run-a.jsonl");
  const exp = await exportReplay(cache, out, (r) => r.request.user !== "άσχετο");
  assert.equal(exp.records, 2);
  assert.equal(lines(out).length, 2);
  const exported = lines(out).map((l) => JSON.parse(l).key);
  assert.deepEqual(exported, [...exported].sort(), "key-sorted");
  const byModel = await exportReplay(cache, tmpFile("all.jsonl"), (r) => r.model === "openai/gpt-oss-120b");
  assert.equal(byModel.records, 3);

  // The exported file alone reproduces the run, offline.
  const shared = await open(tmpData());
  await mergeReplay(shared, out);
  const nobody: ChatModel = { id: model.id, complete: async () => assert.fail("no call expected") };
  const replay = withReplay(nobody, shared, { offline: true });
  for (const [i, u] of ["α", "β"].entries()) {
    const r = await replay.complete({ ...REQ, user: u });
    assert.deepEqual({ ...r, replayed: false }, answersA[i]);
  }

  // Merge into another researcher's cache: new keys added, present ones kept as they were.
  const theirs = await open(tmpData());
  const other = fakeModel();
  const own = await withReplay(other.model, theirs).complete({ ...REQ, user: "α" });
  const m = await mergeReplay(theirs, out);
  assert.deepEqual(m, { added: 1, skipped: 1 });
  assert.equal(await count(theirs), 2);
  assert.equal((await theirs.get(replayKey(model.id, { ...REQ, user: "α" })))!.response.text, own.text);
  assert.equal((await theirs.get(replayKey(model.id, { ...REQ, user: "β" })))!.response.text, answersA[1].text);
  assert.deepEqual(await mergeReplay(theirs, out), { added: 0, skipped: 2 });
  await assert.rejects(mergeReplay(theirs, path.join(path.dirname(out), "nope.jsonl")), /ENOENT/);
});

test("no secret reaches the file: only the listed request and response fields are recorded", async () => {
  const secret = "sk-test-" + "9f3c".repeat(8);
  const saved = process.env.GBR_TEST_FAKE_API_KEY;
  process.env.GBR_TEST_FAKE_API_KEY = secret;
  try {
    const data = tmpData();
    const cache = await open(data);
    // A provider that reads its key from the environment (as real ones do), and a caller that
    // carelessly attaches credentials to the request and gets extra fields in the response.
    const leaky: ChatModel = {
      id: "openai:m",
      async complete(req) {
        const headers = { authorization: `Bearer ${process.env.GBR_TEST_FAKE_API_KEY}` };
        return { text: "ok", raw: "ok", usage: { input: 1, output: 1 }, seconds: 0.1, headers } as never;
      },
    };
    const req = { ...REQ, apiKey: process.env.GBR_TEST_FAKE_API_KEY, headers: { "x-api-key": secret } } as ChatRequest;
    const r = await withReplay(leaky, cache).complete(req);
    assert.equal(r.text, "ok");
    assert.equal((r as unknown as Record<string, unknown>).headers, undefined);
    const exported = await exportReplay(cache, tmpFile("export.jsonl"));
    const text = recordFiles(data).map((f) => fs.readFileSync(f, "utf8")).join("") + fs.readFileSync(exported.file, "utf8");
    assert.ok(text.length > 0);
    assert.equal(text.includes(secret), false);
    assert.equal(text.includes("apiKey"), false);
    assert.equal(text.includes("Bearer"), false);
  } finally {
    if (saved === undefined) delete process.env.GBR_TEST_FAKE_API_KEY;
    else process.env.GBR_TEST_FAKE_API_KEY = saved;
  }
});

test("a writer process killed at a random moment leaves a store whose every record reads back whole", async () => {
  const { spawn } = await import("node:child_process");
  const data = tmpData();
  const script = path.join(data, "writer.ts");
  const lib = path.resolve(__dirname, "..", "../../lib/store").replace(/\\/g, "/");
  fs.writeFileSync(
    script,
    `import { openReplayCache, replayKey } from ${JSON.stringify(lib)};
(async () => {
  const cache = await openReplayCache({ dataDir: ${JSON.stringify(data)} });
  const big = "Ω".repeat(400_000);
  for (let i = 0; ; i++) {
    const request = { system: "s", user: "u" + i };
    await cache.put({ key: replayKey("p:m", request, 0), provider: "p", model: "m", request, sample: 0,
      response: { text: big, raw: big, usage: { input: i, output: i }, seconds: i }, at: new Date().toISOString() });
  }
})();
`,
  );
  const child = spawn(process.execPath, ["--import", "tsx", script], { stdio: "ignore" });
  const deadline = Date.now() + 20_000;
  while (recordFiles(data).filter((f) => f.endsWith(".json")).length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  child.kill("SIGKILL");
  await new Promise((r) => child.once("exit", r));
  const logs: string[] = [];
  const cache = await open(data, (m) => logs.push(m));
  const n = await count(cache);
  assert.ok(n >= 3, `only ${n} records`);
  // A write cut short is a temporary file, never a record: nothing is discarded.
  assert.deepEqual(logs, []);
  assert.equal(recordFiles(data).filter((f) => f.endsWith(".json")).length, n);
  const { model } = fakeModel();
  assert.equal((await withReplay(model, cache).complete(REQ)).replayed, false);
  assert.equal(await count(cache), n + 1);
});
