/**
 * Two processes pulling the same model into one cache at the same moment: both succeed, the files verify, and each
 * file crosses the network once (the second process waits for the first's lock, then reuses what it fetched).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { API, startHubDouble } from "../fakes/hub-server";

const REPO = path.resolve(__dirname, "..", "..");
const lib = (p: string) => JSON.stringify(path.join(REPO, "lib", p).replace(/\\/g, "/"));

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function run(script: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", script, ...args], { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

test("two processes pulling one model at once both succeed, the files verify, and each file is fetched once", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gbr-hub-model-shared-"));
  dirs.push(dir);
  const files: Record<string, Buffer> = {
    "config.json": Buffer.from('{"model_type":"bert"}'),
    "tokenizer.json": Buffer.from('{"version":"1.0"}'),
    "tokenizer_config.json": Buffer.from("{}"),
    "onnx/model_quantized.onnx": Buffer.alloc(2_000_000, 7),
    "onnx/model_quantized.onnx_data": Buffer.alloc(3_000_000, 9),
  };
  const hub = await startHubDouble({ kind: "models", repo: "org/tiny-embed", revision: "main", readme: "# tiny", files, lfs: (p) => p.startsWith("onnx/") });
  try {
    // The first answer for the graph is a 503: whoever fetches first waits out a backoff, a window in which the other
    // process, were there no lock, would see an empty cache and fetch everything again.
    hub.setFault("onnx/model_quantized.onnx", { kind: "status", status: 503, times: 1 });
    const go = path.join(dir, "go");
    const script = path.join(dir, "pull.ts");
    fs.writeFileSync(
      script,
      `import fs from "node:fs";
import { pullModel } from ${lib("data/hub-model")};
(async () => {
  const [endpoint, cacheRoot, ready, go] = process.argv.slice(2);
  fs.writeFileSync(ready, "");
  while (!fs.existsSync(go)) await new Promise((r) => setTimeout(r, 5));
  const pulled = await pullModel({ repo: "org/tiny-embed", revision: "main", endpoint, cacheRoot, dtype: "q8", retry: { attempts: 3, backoffMs: 400 } });
  console.log(JSON.stringify(pulled));
})().catch((err) => { console.error(err); process.exit(1); });
`,
    );
    const cacheRoot = path.join(dir, "hf");
    const ready = [0, 1].map((i) => path.join(dir, `ready-${i}`));
    const children = ready.map((r) => run(script, [hub.url, cacheRoot, r, go]));
    const deadline = Date.now() + 60_000;
    while (!ready.every((r) => fs.existsSync(r))) {
      if (Date.now() > deadline) throw new Error("the children did not start");
      await new Promise((r) => setTimeout(r, 10));
    }
    fs.writeFileSync(go, "");
    const results = await Promise.all(children);

    for (const r of results) assert.equal(r.code, 0, r.stderr);
    const pulled = results.map((r) => JSON.parse(r.stdout) as { dir: string; sha: string; files: string[] });
    assert.deepEqual(pulled[0], pulled[1]);
    assert.deepEqual([...pulled[0]!.files].sort(), Object.keys(files).sort());
    const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");
    for (const [p, content] of Object.entries(files)) {
      assert.equal(sha256(fs.readFileSync(path.join(pulled[0]!.dir, p))), sha256(content), p);
    }
    assert.equal(hub.counts.get(API), 2, "each process resolves the revision");
    assert.equal(hub.counts.get("onnx/model_quantized.onnx"), 2, "the 503, then the file, once");
    for (const p of ["config.json", "tokenizer.json", "tokenizer_config.json", "onnx/model_quantized.onnx_data"]) {
      assert.equal(hub.counts.get(p), 1, `${p} crossed the network once`);
    }
  } finally {
    await hub.close();
  }
});
