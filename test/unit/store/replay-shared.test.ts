/**
 * Two processes sharing one data folder (its store): the same calls asked by both at the same moment reach the
 * provider (the OpenAI double, which counts chat requests) once each, and both get the same
 * answers; a process killed with SIGKILL in the middle of a call delays the next asker by at most
 * the staleness period.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, afterEach, before, test } from "node:test";
import { LOCK_STALE_MS } from "../../../lib/util/file-lock";
import { openReplayCache, replayKey, withReplay, type ReplayRequest } from "../../../lib/store";
import type { ChatModel } from "../../../lib/models/chat";
import { startOpenAIDouble, type OpenAIDouble } from "../../fakes/openai-server";

const REPO = path.resolve(__dirname, "..", "..", "..");
const lib = (p: string) => JSON.stringify(path.join(REPO, "lib", p).replace(/\\/g, "/"));

let api: OpenAIDouble;
const dirs: string[] = [];

before(async () => {
  api = await startOpenAIDouble();
  // Slow answers keep the two processes' calls in flight together.
  api.chat(() => ({ delayMs: 150 }));
});
after(() => api.close());
afterEach(() => {
  api.reset();
  api.chat(() => ({ delayMs: 150 }));
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gbr-shared-replay-"));
  dirs.push(dir);
  return dir;
}

/** A chat model over the double's /v1/chat/completions, as source text for a child process. */
const MODEL_SOURCE = `(url: string) => ({
  id: "openai:m",
  async complete(req: { system: string; user: string }) {
    const t0 = Date.now();
    const res = await fetch(url + "/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: [{ role: "system", content: req.system }, { role: "user", content: req.user }] }),
    });
    const j = (await res.json()) as { choices: { message: { content: string } }[]; usage: { prompt_tokens: number; completion_tokens: number } };
    const text = j.choices[0].message.content;
    return { text, raw: text, usage: { input: j.usage.prompt_tokens, output: j.usage.completion_tokens }, seconds: (Date.now() - t0) / 1000 };
  },
})`;

function run(script: string, args: string[]): { child: ChildProcess; out: () => string; done: Promise<{ code: number | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, ["--import", "tsx", script, ...args], { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
  return { child, out: () => stdout, done };
}

async function waitFor(check: () => boolean, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test("two processes asking the same calls at once: each call reaches the provider once, and both get its answer", async () => {
  const dir = tempDir();
  const file = path.join(dir, "data");
  const script = path.join(dir, "ask.ts");
  // Each child opens the cache, says "ready", waits for "go" (so both have read the file before
  // either records anything), then asks 8 calls at once, in an order of its own.
  fs.writeFileSync(
    script,
    `import fs from "node:fs";
import { openReplayCache, withReplay } from ${lib("store")};
(async () => {
  const [file, url, go, order] = process.argv.slice(2);
  const cache = await openReplayCache({ dataDir: file, log: (m) => process.stderr.write("replay: " + m + "\\n") });
  const llm = withReplay((${MODEL_SOURCE})(url), cache);
  const reqs = Array.from({ length: 8 }, (_, i) => ({ system: "Είσαι νομικός βοηθός.", user: "Ερώτηση " + i, temperature: 0.2, topP: 1 }));
  if (order === "reverse") reqs.reverse();
  process.stdout.write("ready\\n");
  while (!fs.existsSync(go)) await new Promise((r) => setTimeout(r, 5));
  const answers = await Promise.all(reqs.map((r) => llm.complete(r)));
  const byUser = Object.fromEntries(answers.map((a, i) => [reqs[i].user, { text: a.text, replayed: a.replayed }]));
  process.stdout.write(JSON.stringify(byUser) + "\\n");
})().catch((err) => { console.error(err); process.exit(1); });
`,
  );
  const go = path.join(dir, "go");
  const a = run(script, [file, api.url, go, "forward"]);
  const b = run(script, [file, api.url, go, "reverse"]);
  await waitFor(() => a.out().includes("ready") && b.out().includes("ready"), "both children to open the cache");
  fs.writeFileSync(go, "");
  const [ra, rb] = await Promise.all([a.done, b.done]);
  assert.equal(ra.code, 0, ra.stderr);
  assert.equal(rb.code, 0, rb.stderr);

  const users = api.chatRequests().map((body) => String(body.messages.find((m) => m.role === "user")?.content));
  assert.equal(users.length, 8, `chat calls: ${JSON.stringify(users)}`);
  assert.equal(new Set(users).size, 8);
  const [ansA, ansB] = [ra, rb].map((r) => JSON.parse(r.stdout.trim().split("\n").pop()!) as Record<string, { text: string; replayed: boolean }>);
  let fresh = 0;
  for (const user of Object.keys(ansA)) {
    assert.equal(ansA[user].text, ansB[user].text, user);
    // One of the two made the call; the other replayed its record.
    assert.notEqual(ansA[user].replayed, ansB[user].replayed, user);
    fresh += Number(!ansA[user].replayed) + Number(!ansB[user].replayed);
  }
  assert.equal(fresh, 8);
  // One record per call in the store.
  const lines = fs.readdirSync(path.join(file, "store", "chat")).flatMap((d) => fs.readdirSync(path.join(file, "store", "chat", d)));
  assert.equal(lines.length, 8);
  console.log(`two processes, 8 shared calls: ${users.length} chat requests, ${lines.length} records`);
});

test("a process killed with SIGKILL during a call delays the next asker by at most the staleness period", async () => {
  const dir = tempDir();
  const file = path.join(dir, "data");
  const req: ReplayRequest = { system: "s", user: "Ερώτηση που κόλλησε" };
  const script = path.join(dir, "hang.ts");
  // The child asks the call of a model that never answers, and is killed meanwhile.
  fs.writeFileSync(
    script,
    `import { openReplayCache, withReplay } from ${lib("store")};
(async () => {
  const cache = await openReplayCache({ dataDir: process.argv[2] });
  // A hung call holds a socket open; here a timer keeps the process alive in its place.
  setInterval(() => {}, 1000);
  const hung = { id: "openai:m", complete: () => { process.stdout.write("calling\\n"); return new Promise<never>(() => {}); } };
  await withReplay(hung, cache).complete(${JSON.stringify(req)});
})();
`,
  );
  const child = run(script, [file]);
  await waitFor(() => child.out().includes("calling"), "the child to start its call");
  child.child.kill("SIGKILL");
  const { stderr } = await child.done;
  const key = replayKey("openai:m", req, 0);
  const lock = path.join(file, "store", ".locks", "chat", `${key}.lock`);
  assert.ok(fs.existsSync(lock), `the killed process left its lock behind (its stderr: ${stderr})`);

  const logs: string[] = [];
  let calls = 0;
  const model: ChatModel = {
    id: "openai:m",
    complete: async (r) => {
      calls++;
      return { text: `απάντηση: ${r.user}`, raw: `απάντηση: ${r.user}`, usage: { input: 1, output: 1 }, seconds: 0 };
    },
  };
  const t0 = performance.now();
  const answer = await withReplay(model, await openReplayCache({ dataDir: file, log: (m) => logs.push(m) })).complete(req);
  const waited = performance.now() - t0;
  assert.equal(answer.replayed, false);
  assert.equal(calls, 1);
  assert.ok(waited < LOCK_STALE_MS + 3000, `the call waited ${waited} ms`);
  assert.match(logs.join("\n"), /waiting for another process working on the chat record [0-9a-f]{12}… of .*store/);
  assert.equal(fs.existsSync(lock), false, "released after the call");
  console.log(`a replay-key lock left by a SIGKILLed caller was taken over after ${(waited / 1000).toFixed(1)} s (staleness period ${LOCK_STALE_MS / 1000} s)`);
});
