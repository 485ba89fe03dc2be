/**
 * An in-process model's files pulled from a model repository of the local Hub double (kind "models"): the files of one
 * dtype at a pinned revision, verified, cached under <cacheRoot>/models/, used offline, a gated repo's 401, a corrupt
 * download. Fake bytes stand in for the ONNX graphs: this is about fetching, not loading.
 */
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, afterEach, test } from "node:test";
import { pullModel } from "../../lib/data/hub-model";
import { DownloadError } from "../../lib/util/download";
import { GbrError } from "../../lib/util/errors";
import { API, startHubDouble, type HubDouble, type HubDoubleOptions } from "../fakes/hub-server";

const FAST = { attempts: 2, backoffMs: 1 };
const REPO_ID = "org/tiny-embed";
const SHA = "0123456789abcdef0123456789abcdef01234567";
const CONFIGS = ["config.json", "tokenizer.json", "tokenizer_config.json"];

/** A model repository: configs, tokenizer, fp32 and fp16 graphs, and a q8 graph with two external data files. */
function modelFiles(): Record<string, Buffer | string> {
  const bytes = (seed: number, n: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + seed) % 251));
  return {
    "config.json": JSON.stringify({ model_type: "bert", hidden_size: 32 }),
    "tokenizer.json": JSON.stringify({ version: "1.0", model: { type: "WordPiece", vocab: { "[UNK]": 0 } } }),
    "tokenizer_config.json": JSON.stringify({ model_max_length: 32 }),
    "special_tokens_map.json": JSON.stringify({ unk_token: "[UNK]" }),
    "onnx/model.onnx": bytes(1, 4096),
    "onnx/model_fp16.onnx": bytes(2, 2048),
    "onnx/model_quantized.onnx": bytes(3, 1024),
    "onnx/model_quantized.onnx_data": bytes(4, 3000),
    "onnx/model_quantized.onnx_data_1": bytes(5, 1500),
  };
}

const roots: string[] = [];
async function cacheRoot(): Promise<string> {
  const d = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-hub-model-"));
  roots.push(d);
  return d;
}
after(async () => {
  for (const d of roots) await fs.rm(d, { recursive: true, force: true });
});

let hubs: HubDouble[] = [];
afterEach(async () => {
  for (const h of hubs) await h.close().catch(() => {});
  hubs = [];
});
async function hub(extra: Partial<HubDoubleOptions> = {}): Promise<HubDouble> {
  const h = await startHubDouble({
    kind: "models",
    repo: REPO_ID,
    revision: "main",
    sha: SHA,
    readme: "# tiny",
    files: modelFiles(),
    lfs: (p) => p.startsWith("onnx/"),
    ...extra,
  });
  hubs.push(h);
  return h;
}

/** Every file under `dir`, as paths relative to it with "/". */
async function tree(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join("/"))
    .sort();
}

test("a first pull fetches the dtype's files only, into <cacheRoot>/models/<owner>__<name>/<revision>/, and a second dtype reuses the shared ones", async () => {
  const h = await hub();
  const root = await cacheRoot();
  const logs: string[] = [];
  const fp32 = await pullModel({ repo: REPO_ID, revision: "main", endpoint: h.url, cacheRoot: root, dtype: "fp32", retry: FAST, log: (m) => logs.push(m) });

  assert.equal(fp32.sha, SHA);
  assert.ok(fp32.dir.startsWith(path.join(root, "models", "org__tiny-embed", "main") + path.sep), fp32.dir);
  assert.deepEqual([...fp32.files].sort(), [...CONFIGS, "onnx/model.onnx", "special_tokens_map.json"].sort());
  const files = modelFiles();
  for (const p of fp32.files) assert.deepEqual(await fs.readFile(path.join(fp32.dir, p)), Buffer.from(files[p]!), p);
  assert.deepEqual(await tree(fp32.dir), [...fp32.files].sort(), "nothing else in the model's folder");
  assert.equal(h.counts.get(API), 1);
  for (const p of fp32.files) assert.equal(h.counts.get(p), 1, p);
  assert.equal(h.counts.get("README.md"), undefined, "the model card is not needed");
  assert.ok(logs.some((m) => m.includes("onnx/model.onnx")), logs.join("\n"));

  const q8 = await pullModel({ repo: REPO_ID, revision: "main", endpoint: h.url, cacheRoot: root, dtype: "q8", retry: FAST });
  assert.equal(q8.dir, fp32.dir);
  assert.deepEqual(
    [...q8.files].sort(),
    [...CONFIGS, "onnx/model_quantized.onnx", "onnx/model_quantized.onnx_data", "onnx/model_quantized.onnx_data_1", "special_tokens_map.json"].sort(),
  );
  for (const p of q8.files) assert.deepEqual(await fs.readFile(path.join(q8.dir, p)), Buffer.from(files[p]!), p);
  for (const p of [...CONFIGS, "special_tokens_map.json"]) assert.equal(h.counts.get(p), 1, `${p} is reused, not fetched again`);
  assert.equal(h.counts.get("onnx/model_fp16.onnx"), undefined, "another dtype's graph is never fetched");
  assert.equal(h.counts.get(API), 2, "one API call per pull");

  // Both dtypes stay usable from the cache: pulling either again downloads nothing.
  const before = h.fileRequests();
  await pullModel({ repo: REPO_ID, revision: "main", endpoint: h.url, cacheRoot: root, dtype: "fp32", retry: FAST });
  await pullModel({ repo: REPO_ID, revision: "main", endpoint: h.url, cacheRoot: root, dtype: "q8", retry: FAST });
  assert.equal(h.fileRequests(), before);
});

test("special_tokens_map.json is fetched only when the repository has it", async () => {
  const { "special_tokens_map.json": _, ...without } = modelFiles();
  const h = await hub({ files: without });
  const pulled = await pullModel({ repo: REPO_ID, revision: "main", endpoint: h.url, cacheRoot: await cacheRoot(), dtype: "fp32", retry: FAST });
  assert.deepEqual([...pulled.files].sort(), [...CONFIGS, "onnx/model.onnx"].sort());
  assert.equal(h.counts.get("special_tokens_map.json"), undefined);
});

test("from the cache: offline with no request at all, with the Hub gone (logged), and a damaged cached file fetched again", async () => {
  const h = await hub();
  const root = await cacheRoot();
  const opts = { repo: REPO_ID, revision: "main", endpoint: h.url, cacheRoot: root, dtype: "fp32", retry: FAST };
  const first = await pullModel(opts);

  const seen = h.authorizations.length;
  const offline = await pullModel({ ...opts, offline: true });
  assert.deepEqual(offline, first);
  assert.equal(h.authorizations.length, seen, "offline, the Hub hears nothing");

  // A damaged cached file is noticed and fetched again.
  await fs.writeFile(path.join(first.dir, "onnx", "model.onnx"), "damaged");
  const logs: string[] = [];
  const healed = await pullModel({ ...opts, log: (m) => logs.push(m) });
  assert.deepEqual(healed, first);
  assert.equal(h.counts.get("onnx/model.onnx"), 2);
  assert.equal(h.counts.get("config.json"), 1);
  assert.ok(logs.some((m) => /onnx\/model\.onnx .*fetching it again/.test(m)), logs.join("\n"));

  await h.close();
  const gone: string[] = [];
  const cached = await pullModel({ ...opts, log: (m) => gone.push(m) });
  assert.deepEqual(cached, first);
  assert.deepEqual(await fs.readFile(path.join(cached.dir, "onnx", "model.onnx")), Buffer.from(modelFiles()["onnx/model.onnx"]!));
  assert.ok(gone.some((m) => /using the verified cache/.test(m)), gone.join("\n"));

  // A dtype never pulled is not in the cache: offline, that is an OFFLINE error naming the missing graph.
  await assert.rejects(pullModel({ ...opts, dtype: "q8", offline: true }), (err: unknown) => {
    assert.ok(err instanceof DownloadError && err.code === "OFFLINE", String(err));
    assert.match(err.message, /onnx\/model_quantized\.onnx/);
    return true;
  });
});

test("offline or unreachable with an empty cache fails with OFFLINE, naming the model and HF_ENDPOINT", async () => {
  const h = await hub();
  const url = h.url;
  await h.close();
  const root = await cacheRoot();
  for (const offline of [true, false]) {
    await assert.rejects(pullModel({ repo: REPO_ID, revision: "main", endpoint: url, cacheRoot: root, dtype: "fp32", offline, retry: FAST }), (err: unknown) => {
      assert.ok(err instanceof DownloadError, String(err));
      assert.equal(err.code, "OFFLINE");
      assert.match(err.message, /org\/tiny-embed@main/);
      assert.match(err.message, offline ? /offline mode is on/ : /cannot reach/);
      assert.match(err.message, /there is no cache at .*models/);
      assert.match(err.message, /HF_ENDPOINT/);
      assert.doesNotMatch(err.message, /--data sample|dataset/, "a model's error gives no dataset advice");
      return true;
    });
  }
});

test("a gated repository: 401 without HF_TOKEN says how to get access; with it the pull succeeds and the token stays secret", async () => {
  const token = "hf_gated_secret_123";
  const h = await hub({ token });
  const root = await cacheRoot();
  await assert.rejects(pullModel({ repo: REPO_ID, revision: "main", endpoint: h.url, cacheRoot: root, dtype: "fp32", retry: FAST }), (err: unknown) => {
    assert.ok(err instanceof DownloadError && err.code === "HTTP" && err.status === 401, String(err));
    assert.match(err.message, /the Hub refused access/);
    assert.match(err.message, /gated models \(such as google's EmbeddingGemma\) need HF_TOKEN/);
    assert.match(err.message, /accepted the model's licence on its page/);
    assert.doesNotMatch(err.message, /dataset/);
    return true;
  });

  const logs: string[] = [];
  const seen = h.authorizations.length;
  const pulled = await pullModel({ repo: REPO_ID, revision: "main", endpoint: h.url, cacheRoot: root, dtype: "fp32", token, retry: FAST, log: (m) => logs.push(m) });
  assert.equal(pulled.files.length, 5);
  const sent = h.authorizations.slice(seen);
  assert.equal(sent.length, 6, "the file list and five files");
  assert.ok(sent.every((a) => a === `Bearer ${token}`), "the token reaches HF_ENDPOINT, whatever its host");
  assert.ok(!logs.join("\n").includes(token), "not in the log");
  for (const f of await tree(root)) assert.ok(!(await fs.readFile(path.join(root, f), "utf8")).includes(token), `not in ${f}`);
});

test("no such model or revision at the endpoint: 404 says so", async () => {
  const h = await hub();
  for (const [repo, revision] of [["org/other", "main"], [REPO_ID, "v9"]]) {
    await assert.rejects(pullModel({ repo, revision, endpoint: h.url, cacheRoot: await cacheRoot(), dtype: "fp32", retry: FAST }), (err: unknown) => {
      assert.ok(err instanceof DownloadError && err.status === 404, String(err));
      assert.ok(err.message.includes(`no model ${repo} with revision '${revision}' at ${h.url}`), err.message);
      return true;
    });
  }
});

test("dtypes: an unknown one is a usage error naming the known ones; one the repository lacks lists those it has", async () => {
  const h = await hub();
  const root = await cacheRoot();
  await assert.rejects(pullModel({ repo: REPO_ID, revision: "main", endpoint: h.url, cacheRoot: root, dtype: "fp8", retry: FAST }), (err: unknown) => {
    assert.ok(err instanceof GbrError && err.code === "USAGE", String(err));
    assert.match(err.message, /unknown dtype 'fp8'.*fp32, fp16, q8, int8, uint8, q4, q4f16, bnb4/);
    return true;
  });
  assert.equal(h.counts.size, 0, "refused before any request");

  await assert.rejects(pullModel({ repo: REPO_ID, revision: "main", endpoint: h.url, cacheRoot: root, dtype: "q4", retry: FAST }), (err: unknown) => {
    assert.match(String(err), /org\/tiny-embed@main has no onnx\/model_q4\.onnx \(dtype q4; its dtypes: fp32, fp16, q8\)/);
    return true;
  });
  assert.equal(h.fileRequests(), 0, "nothing fetched for a dtype that is not there");
});

test("a model repository without a config or tokenizer file names what is missing", async () => {
  const { "tokenizer.json": _, ...without } = modelFiles();
  const h = await hub({ files: without });
  await assert.rejects(pullModel({ repo: REPO_ID, revision: "main", endpoint: h.url, cacheRoot: await cacheRoot(), dtype: "fp32", retry: FAST }), /org\/tiny-embed@main has no tokenizer\.json/);
});

test("a corrupt download is an INTEGRITY error, removed, nothing of it trusted later, and the files verified before it kept", async () => {
  for (const bad of ["onnx/model.onnx", "tokenizer.json"]) {
    const h = await hub();
    const root = await cacheRoot();
    const opts = { repo: REPO_ID, revision: "main", endpoint: h.url, cacheRoot: root, dtype: "fp32", retry: FAST };
    h.setFault(bad, { kind: "corrupt", times: 1 });
    await assert.rejects(pullModel(opts), (err: unknown) => {
      assert.ok(err instanceof DownloadError && err.code === "INTEGRITY", String(err));
      assert.ok(err.message.includes(bad), err.message);
      return true;
    });
    const dir = path.join(root, "models", "org__tiny-embed", "main", "files");
    await assert.rejects(fs.access(path.join(dir, bad)), `${bad} was removed`);
    // The cache holds nothing a later pull would take as good: offline it refuses.
    await assert.rejects(pullModel({ ...opts, offline: true }), (err: unknown) => err instanceof DownloadError && err.code === "OFFLINE");

    const again = await pullModel(opts);
    assert.deepEqual(await fs.readFile(path.join(again.dir, bad)), Buffer.from(modelFiles()[bad]!));
    assert.equal(h.counts.get(bad), 2);
    assert.equal(h.counts.get("config.json"), 1, "what the failed pull had verified is kept, not fetched again");
  }
});

test("a cache manifest that parses to something other than an object (null, a list) is ignored and the files fetched again", async () => {
  const h = await hub();
  const root = await cacheRoot();
  const opts = { repo: REPO_ID, revision: "main", endpoint: h.url, cacheRoot: root, dtype: "fp32", retry: FAST };
  const first = await pullModel(opts);
  for (const text of ["null", "[]", "42"]) {
    await fs.writeFile(path.join(path.dirname(first.dir), "manifest.json"), text);
    const logs: string[] = [];
    assert.deepEqual(await pullModel({ ...opts, log: (m) => logs.push(m) }), first, text);
    assert.ok(logs.some((m) => /malformed; ignoring it/.test(m)), `${text}: ${logs.join("\n")}`);
  }
});
