/**
 * Two processes sharing one vector store: embedding the same texts at the same moment, each text
 * reaches the provider (the OpenAI double, which counts requests) exactly once and is stored once;
 * and a process killed with SIGKILL while holding a table's lock delays the next writer by no more
 * than the staleness period.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, afterEach, before, test } from "node:test";
import { LOCK_STALE_MS } from "../../lib/util/file-lock";
import { openVectorStore, type VectorStore } from "../../lib/store/vector-store";
import { startOpenAIDouble, type OpenAIDouble } from "../fakes/openai-server";

const REPO = path.resolve(__dirname, "..", "..");
const lib = (p: string) => JSON.stringify(path.join(REPO, "lib", p).replace(/\\/g, "/"));

let api: OpenAIDouble;
const dirs: string[] = [];
const stores: VectorStore[] = [];

before(async () => {
  // Slow answers keep both processes' batches in flight together.
  api = await startOpenAIDouble({ dims: 8, delayMs: 60 });
});
after(() => api.close());
afterEach(() => {
  api.reset();
  for (const s of stores.splice(0)) s.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gbr-shared-vectors-"));
  dirs.push(dir);
  return dir;
}

/** What a child process printed, and how it ended. */
interface ChildResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(script: string, args: string[]): { child: ChildProcess; done: Promise<ChildResult> } {
  const child = spawn(process.execPath, ["--import", "tsx", script, ...args], { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const done = new Promise<ChildResult>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
  return { child, done };
}

async function waitFor(check: () => boolean, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test("two processes embedding the same corpus at once: every text is embedded once and stored once", async () => {
  const dir = tempDir();
  const db = path.join(dir, "lancedb");
  const script = path.join(dir, "embed.ts");
  // Each child opens the store, says "ready", waits for the "go" file (so both have looked the
  // cache up before either stores anything), then embeds 48 articles in batches of 4, 2 in flight.
  fs.writeFileSync(
    script,
    `import fs from "node:fs";
import { embedItems } from ${lib("dense/embed")};
import { openaiEmbedder } from ${lib("providers/openai-embedder")};
import { openVectorStore } from ${lib("store/vector-store")};
(async () => {
  const [db, url, go] = process.argv.slice(2);
  const store = await openVectorStore(db, { log: (m) => process.stderr.write("store: " + m + "\\n") });
  const p = { name: "toy", provider: "openai" as const, model: "m", dims: 8, queryTemplate: "{text}", documentTemplate: "{text}" };
  const items = Array.from({ length: 48 }, (_, i) => ({ id: "ΑΚ::" + i, text: "άρθρο " + i + " για τη μίσθωση" }));
  const embedder = openaiEmbedder({ model: "m", baseURL: url + "/v1", dims: 8, batchSize: 4, maxRetries: 0 });
  process.stdout.write("ready\\n");
  while (!fs.existsSync(go)) await new Promise((r) => setTimeout(r, 5));
  const r = await embedItems(items, "document", p, embedder, store, { log: (m) => process.stdout.write(m + "\\n") });
  process.stdout.write(JSON.stringify({ requests: r.requests, cached: r.cached, vectors: r.vectors.map((v) => Array.from(v)) }) + "\\n");
  store.close();
})().catch((err) => { console.error(err); process.exit(1); });
`,
  );
  const go = path.join(dir, "go");
  const a = run(script, [db, api.url, go]);
  const b = run(script, [db, api.url, go]);
  let outA = "";
  let outB = "";
  a.child.stdout!.on("data", (d: Buffer) => (outA += d.toString()));
  b.child.stdout!.on("data", (d: Buffer) => (outB += d.toString()));
  await waitFor(() => outA.includes("ready") && outB.includes("ready"), "both children to open the store");
  fs.writeFileSync(go, "");
  const [ra, rb] = await Promise.all([a.done, b.done]);
  assert.equal(ra.code, 0, ra.stderr);
  assert.equal(rb.code, 0, rb.stderr);

  // Both planned to embed everything: neither found anything cached when it started...
  for (const r of [ra, rb]) assert.match(r.stdout, /0 of 48 document vectors cached; embedding 48 in 12 requests/);
  // ...yet every text reached the provider once.
  const inputs = api.embeddingRequests().flatMap((q) => q.input);
  assert.equal(inputs.length, 48, `texts sent: ${inputs.length} in ${api.count("embeddings")} requests`);
  assert.equal(new Set(inputs).size, 48);
  const [resA, resB] = [ra, rb].map((r) => JSON.parse(r.stdout.trim().split("\n").pop()!) as { requests: number; cached: number; vectors: number[][] });
  assert.equal(resA.requests + resB.requests, api.count("embeddings"));
  assert.equal(resA.cached + resB.cached, 48, "what one embedded the other read from the cache");
  assert.deepEqual(resA.vectors, resB.vectors);
  // Stored once: no duplicate rows.
  const store = await openVectorStore(db, { log: () => {} });
  stores.push(store);
  const [fp] = await store.tables();
  assert.equal(await store.count(fp), 48);
  console.log(`two processes, one corpus of 48: ${api.count("embeddings")} requests (${resA.requests} + ${resB.requests}), 48 texts sent, 48 rows stored`);
});

test("a process killed with SIGKILL while holding a table's lock delays the next writer by at most the staleness period", async () => {
  const dir = tempDir();
  const db = path.join(dir, "lancedb");
  const script = path.join(dir, "hold.ts");
  fs.writeFileSync(
    script,
    `import { openVectorStore } from ${lib("store/vector-store")};
(async () => {
  const store = await openVectorStore(process.argv[2]);
  // Something to wait for keeps a real holder alive; here a timer does.
  setInterval(() => {}, 1000);
  await store.exclusive("fp", async () => {
    process.stdout.write("holding\\n");
    await new Promise(() => {});
  });
})();
`,
  );
  const holder = run(script, [db]);
  let out = "";
  holder.child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  await waitFor(() => out.includes("holding"), "the child to hold the lock");
  holder.child.kill("SIGKILL");
  await holder.done;
  assert.ok(fs.existsSync(path.join(db, ".locks", "fp.lock")), "the killed process left its lock behind");

  const logs: string[] = [];
  const store = await openVectorStore(db, { log: (m) => logs.push(m) });
  stores.push(store);
  const t0 = performance.now();
  await store.put("fp", [{ key: "k", id: "ΑΚ::1", side: "document", vector: Float32Array.of(1, 2, 3) }]);
  const waited = performance.now() - t0;
  assert.equal(await store.count("fp"), 1);
  assert.ok(waited < LOCK_STALE_MS + 3000, `the put waited ${waited} ms`);
  assert.match(logs.join("\n"), /waiting for another process working on the vector table .*fp\.lance.*taken over once it is 10 s old/);
  assert.equal(fs.existsSync(path.join(db, ".locks", "fp.lock")), false, "released after the put");
  console.log(`a lock left by a SIGKILLed holder was taken over after ${(waited / 1000).toFixed(1)} s (staleness period ${LOCK_STALE_MS / 1000} s)`);
});
