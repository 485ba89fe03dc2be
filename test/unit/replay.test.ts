import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  exportReplay,
  mergeReplay,
  openReplayCache,
  replayKey,
  ReplayMissError,
  withReplay,
  type ReplayRecord,
} from "../../lib/cache/replay";
import type { ChatError, ChatModel, ChatRequest } from "../../lib/llm/types";

function tmpFile(name = "calls.jsonl"): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gbr-replay-"));
  return path.join(dir, "nested", name);
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

test("the same request calls the model once; the second is replayed with identical text and usage", async () => {
  const file = tmpFile();
  const cache = await openReplayCache(file);
  const { model, calls } = fakeModel();
  const llm = withReplay(model, cache);
  const a = await llm.complete(REQ);
  const b = await llm.complete({ ...REQ });
  assert.equal(calls.length, 1);
  assert.equal(a.replayed, false);
  assert.equal(b.replayed, true);
  assert.deepEqual({ ...b, replayed: false }, a);
  assert.equal(cache.size, 1);
  assert.equal(llm.id, model.id);
  assert.deepEqual([...llm.keys], [replayKey(model.id, REQ, 0)]);

  // A fresh process (a new open of the same file) replays too, without any call.
  const again = withReplay(fakeModel().model, await openReplayCache(file));
  const c = await again.complete(REQ);
  assert.equal(c.replayed, true);
  assert.equal(c.text, a.text);
  assert.deepEqual(c.usage, a.usage);
  assert.equal(c.seconds, a.seconds);
  assert.equal(c.raw, a.raw);

  // The line has the documented shape.
  const rec = JSON.parse(lines(file)[0]);
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

  const cache = await openReplayCache(tmpFile());
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
  assert.equal(cache.size, 2 + variants.length);
});

test("the sample index separates otherwise identical calls (--repeat N --seed S)", async () => {
  const cache = await openReplayCache(tmpFile());
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

test('"refresh" calls again and the newest record wins, also after reopening', async () => {
  const file = tmpFile();
  const cache = await openReplayCache(file);
  const { model, calls } = fakeModel();
  const first = await withReplay(model, cache).complete(REQ);
  const fresh = await withReplay(model, cache, { mode: "refresh" }).complete(REQ);
  assert.equal(calls.length, 2);
  assert.equal(fresh.replayed, false);
  assert.notEqual(fresh.text, first.text);
  assert.equal(lines(file).length, 2, "refresh appends; nothing is rewritten");
  assert.equal(cache.size, 1);
  assert.equal((await withReplay(model, cache).complete(REQ)).text, fresh.text);
  const reopened = await openReplayCache(file);
  assert.equal((await reopened.get(replayKey(model.id, REQ)))!.response.text, fresh.text);
  const all: ReplayRecord[] = [];
  for await (const r of reopened.records()) all.push(r);
  assert.deepEqual(all.map((r) => r.response.text), [fresh.text]);
});

test('"off" never touches the file', async () => {
  const file = tmpFile();
  const cache = await openReplayCache(file);
  const { model, calls } = fakeModel();
  const llm = withReplay(model, cache, { mode: "off" });
  const a = await llm.complete(REQ);
  await llm.complete(REQ);
  assert.equal(calls.length, 2);
  assert.equal(a.replayed, undefined);
  assert.equal(fs.existsSync(file), false);
  assert.equal(fs.existsSync(path.dirname(file)), false);
  assert.equal(cache.size, 0);
  assert.equal(llm.keys.size, 0);
});

test("crash mid-write: the torn tail is ignored and reported, then cut off; the file stays valid", async () => {
  const file = tmpFile();
  const cache = await openReplayCache(file);
  const { model } = fakeModel();
  const llm = withReplay(model, cache);
  for (const u of ["α", "β", "γ"]) await llm.complete({ ...REQ, user: u });
  const intact = fs.readFileSync(file);
  const fourth = JSON.stringify({ key: "f".repeat(64), provider: "openai", model: "x", request: { system: "s", user: "δ" } });
  fs.appendFileSync(file, fourth.slice(0, Math.floor(fourth.length / 2)));

  const logs: string[] = [];
  const reopened = await openReplayCache(file, { log: (m) => logs.push(m) });
  assert.equal(reopened.size, 3);
  assert.equal(logs.length, 1);
  assert.match(logs[0], /incomplete last line/);
  assert.match(logs[0], /repair/);
  for (const u of ["α", "β", "γ"]) assert.ok(reopened.has(replayKey(model.id, { ...REQ, user: u })));
  // Opening alone writes nothing (a read-only shared file can be replayed).
  assert.ok(fs.readFileSync(file).length > intact.length);

  const { model: m2, calls } = fakeModel();
  const r = await withReplay(m2, reopened).complete({ ...REQ, user: "ε" });
  assert.equal(r.replayed, false);
  assert.equal(calls.length, 1);
  assert.ok(logs.some((m) => /repaired/.test(m)));
  const after = fs.readFileSync(file, "utf8");
  assert.ok(after.endsWith("\n"));
  assert.ok(after.startsWith(intact.toString("utf8")), "the three records are untouched");
  const ls = lines(file);
  assert.equal(ls.length, 4);
  for (const l of ls) JSON.parse(l);
  const final = await openReplayCache(file, { log: (m) => assert.fail(`unexpected log: ${m}`) });
  assert.equal(final.size, 4);
});

test("damaged lines in the middle are skipped, never fatal; a record glued to a torn line is recovered", async () => {
  const file = tmpFile();
  const cache = await openReplayCache(file);
  const { model } = fakeModel();
  const llm = withReplay(model, cache);
  await llm.complete({ ...REQ, user: "α" });
  await llm.complete({ ...REQ, user: "β" });
  const [a, b] = lines(file);
  // Line 2: junk; line 3: a torn prefix of a record with a complete one glued after it
  // (another process crashed mid-line, a third appended after it); line 4: a record whose key
  // does not match its content.
  const forged = JSON.parse(a);
  forged.request.user = "πλαστό";
  fs.writeFileSync(file, `${a}\nnot json\n${b.slice(0, 40)}${b}\n${JSON.stringify(forged)}\n`);
  const logs: string[] = [];
  const reopened = await openReplayCache(file, { log: (m) => logs.push(m) });
  assert.equal(reopened.size, 2);
  assert.equal((await reopened.get(replayKey(model.id, { ...REQ, user: "β" })))!.request.user, "β");
  assert.equal(logs.length, 3, logs.join("\n"));
  assert.match(logs.join("\n"), /line 2 \(not valid JSON\)/);
  assert.match(logs.join("\n"), /line 3 is a torn write/);
  assert.match(logs.join("\n"), /line 4 \(key .* does not match/);
});

test("50 concurrent puts give 50 whole, valid lines", async () => {
  const file = tmpFile();
  const cache = await openReplayCache(file);
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
  const ls = lines(file);
  assert.equal(ls.length, 50);
  assert.deepEqual(new Set(ls.map((l) => JSON.parse(l).key)), new Set(records.map((r) => r.key)));
  assert.equal(cache.size, 50);
  for (const r of records) assert.equal((await cache.get(r.key))!.response.text, r.response.text);
  assert.equal((await openReplayCache(file)).size, 50);

  // Identical calls in flight at once share one provider call.
  const { model, calls } = fakeModel();
  const llm = withReplay(model, cache);
  const rs = await Promise.all(Array.from({ length: 5 }, () => llm.complete(REQ)));
  assert.equal(calls.length, 1);
  assert.equal(rs.filter((r) => !r.replayed).length, 1);
  assert.equal(new Set(rs.map((r) => r.text)).size, 1);
});

test("put refuses invalid records and keys that do not match the call", async () => {
  const cache = await openReplayCache(tmpFile());
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
  assert.equal(cache.size, 1);
});

test("offline: a miss throws naming the key and the file; hits are served; the model is never called", async () => {
  const file = tmpFile();
  const cache = await openReplayCache(file);
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
    assert.ok(err.message.includes(file));
    return true;
  });
  await assert.rejects(withReplay(model, cache, { offline: true, mode: "refresh" }).complete(REQ), ReplayMissError);
  // The environment switch, read at call time.
  const saved = process.env.GBR_OFFLINE;
  process.env.GBR_OFFLINE = "1";
  try {
    await assert.rejects(withReplay(model, cache).complete({ ...REQ, user: "τρίτο" }), ReplayMissError);
  } finally {
    if (saved === undefined) delete process.env.GBR_OFFLINE;
    else process.env.GBR_OFFLINE = saved;
  }
  assert.equal(calls.length, 1);
});

test("GBR_REPLAY_FILE redirects the default file", async () => {
  const file = tmpFile("env.jsonl");
  const saved = process.env.GBR_REPLAY_FILE;
  process.env.GBR_REPLAY_FILE = file;
  try {
    const cache = await openReplayCache();
    assert.equal(cache.file, file);
  } finally {
    if (saved === undefined) delete process.env.GBR_REPLAY_FILE;
    else process.env.GBR_REPLAY_FILE = saved;
  }
});

test("export of one run, then merge elsewhere: the other side replays it offline, bit for bit", async () => {
  const file = tmpFile();
  const cache = await openReplayCache(file);
  const { model } = fakeModel();
  const runA = withReplay(model, cache);
  const runB = withReplay(model, cache);
  const answersA = [];
  for (const u of ["α", "β"]) answersA.push(await runA.complete({ ...REQ, user: u }));
  await runB.complete({ ...REQ, user: "άσχετο" });

  const out = tmpFile("run-a.jsonl");
  const exp = await exportReplay(cache, out, runA.keys);
  assert.deepEqual({ records: exp.records, missing: exp.missing }, { records: 2, missing: [] });
  assert.equal(lines(out).length, 2);
  const byModel = await exportReplay(cache, tmpFile("all.jsonl"), (r) => r.model === "openai/gpt-oss-120b");
  assert.equal(byModel.records, 3);
  const missing = await exportReplay(cache, tmpFile("m.jsonl"), ["0".repeat(64)]);
  assert.deepEqual(missing.missing, ["0".repeat(64)]);
  await assert.rejects(exportReplay(cache, file), /own file/);

  // The exported file alone reproduces the run, offline.
  const shared = await openReplayCache(out);
  const nobody: ChatModel = { id: model.id, complete: async () => assert.fail("no call expected") };
  const replay = withReplay(nobody, shared, { offline: true });
  for (const [i, u] of ["α", "β"].entries()) {
    const r = await replay.complete({ ...REQ, user: u });
    assert.deepEqual({ ...r, replayed: false }, answersA[i]);
  }

  // Merge into another researcher's cache: new keys added, present ones kept as they were.
  const theirs = await openReplayCache(tmpFile("theirs.jsonl"));
  const other = fakeModel();
  const own = await withReplay(other.model, theirs).complete({ ...REQ, user: "α" });
  const m = await mergeReplay(theirs, out);
  assert.deepEqual(m, { added: 1, skipped: 1 });
  assert.equal(theirs.size, 2);
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
    const file = tmpFile();
    const cache = await openReplayCache(file);
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
    const text = fs.readFileSync(file, "utf8") + fs.readFileSync(exported.file, "utf8");
    assert.ok(text.length > 0);
    assert.equal(text.includes(secret), false);
    assert.equal(text.includes("apiKey"), false);
    assert.equal(text.includes("Bearer"), false);
  } finally {
    if (saved === undefined) delete process.env.GBR_TEST_FAKE_API_KEY;
    else process.env.GBR_TEST_FAKE_API_KEY = saved;
  }
});

test("a last line that is complete but not JSON is ignored and reported; appends continue after it", async () => {
  const file = tmpFile();
  const cache = await openReplayCache(file);
  const { model } = fakeModel();
  await withReplay(model, cache).complete(REQ);
  fs.appendFileSync(file, '{"key": "trunc\n');
  const logs: string[] = [];
  const reopened = await openReplayCache(file, { log: (m) => logs.push(m) });
  assert.equal(reopened.size, 1);
  assert.match(logs.join("\n"), /ignoring line 2 \(not valid JSON\)/);
  await withReplay(model, reopened).complete({ ...REQ, user: "νέο" });
  const all = fs.readFileSync(file, "utf8").split("\n");
  assert.equal(all.length, 4);
  assert.equal(all[3], "");
  JSON.parse(all[2]);
  assert.equal((await openReplayCache(file, { log: () => {} })).size, 2);
});

test("a writer process killed at a random moment leaves a file that opens and keeps growing validly", async () => {
  const { spawn } = await import("node:child_process");
  const file = tmpFile();
  const script = path.join(path.dirname(path.dirname(file)), "writer.ts");
  const lib = path.resolve(__dirname, "../../lib/cache/replay").replace(/\\/g, "/");
  fs.writeFileSync(
    script,
    `import { openReplayCache, replayKey } from ${JSON.stringify(lib)};
(async () => {
  const cache = await openReplayCache(${JSON.stringify(file)});
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
  while ((!fs.existsSync(file) || fs.statSync(file).size < 5_000_000) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  child.kill("SIGKILL");
  await new Promise((r) => child.once("exit", r));
  const logs: string[] = [];
  const cache = await openReplayCache(file, { log: (m) => logs.push(m) });
  // Records are about 1.6 MB, so 5 MB on disk means at least 3 complete lines.
  assert.ok(cache.size >= 3, `only ${cache.size} records`);
  assert.ok(logs.every((m) => /incomplete last line/.test(m)), logs.join("\n"));
  const { model } = fakeModel();
  await withReplay(model, cache).complete(REQ);
  const ls = fs.readFileSync(file, "utf8").split("\n");
  assert.equal(ls.pop(), "");
  for (const l of ls) JSON.parse(l);
  assert.equal(ls.length, cache.size);
});
