/**
 * SPIKE (issue 31, docs/in-process-spike.md): transformers.js 4.x running tiny ONNX models that the
 * test builds (test/helpers/tiny-onnx.py, Debian's python3-onnx) and that a local Hub double serves as
 * model repositories. Not yet a provider: these tests pin down the library's behaviour a provider will
 * rely on (the paths it asks for, its cache, the token, pooling, raw logits, batching).
 */
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { startHubDouble, type HubDouble } from "../fakes/hub-server";
import { buildTinyModels } from "../helpers/tiny-models";

type TJS = typeof import("@huggingface/transformers");

const TEXTS = ["Ο Αστικός Κώδικας ορίζει", "άρθρο 57 ΑΚ προσβολή της προσωπικότητας", "ποινή"];

describe("in-process models through transformers.js (spike)", () => {
  let T: TJS;
  let tmp: string;
  let embedHub: HubDouble | undefined;
  let ceHub: HubDouble;
  let files: Awaited<ReturnType<typeof buildTinyModels>>;

  before(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-i31-"));
    files = await buildTinyModels(path.join(tmp, "models"));
    embedHub = await startHubDouble({ kind: "models", repo: "org/tiny-embed", revision: "main", readme: "# tiny", files: files.embed });
    ceHub = await startHubDouble({ kind: "models", repo: "org/tiny-ce", revision: "main", readme: "# tiny", files: files.crossEncoder, token: "hf_test" });
    T = await import("@huggingface/transformers");
    T.env.allowLocalModels = false;
    T.env.cacheDir = path.join(tmp, "cache");
  });
  after(async () => {
    await embedHub?.close();
    await ceHub?.close();
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  test("feature extraction: the paths it asks for, pooling, normalisation, batch of 1 = batch of 3, the cache", async (t) => {
    const hub = embedHub!;
    T.env.remoteHost = `${hub.url}/`;
    const t0 = performance.now();
    const fe = await T.pipeline("feature-extraction", "org/tiny-embed", { dtype: "fp32", revision: "main" });
    const loadMs = performance.now() - t0;
    assert.deepEqual([...hub.counts.keys()].sort(), ["config.json", "onnx/model.onnx", "tokenizer.json", "tokenizer_config.json"]);

    const t1 = performance.now();
    const all = await fe(TEXTS, { pooling: "mean", normalize: true });
    const embedMs = performance.now() - t1;
    assert.deepEqual(all.dims, [3, 32]);
    const v = all.tolist() as number[][];
    for (const row of v) assert.ok(Math.abs(Math.hypot(...row) - 1) < 1e-6);
    for (let i = 0; i < TEXTS.length; i++) {
      const one = (await fe([TEXTS[i]], { pooling: "mean", normalize: true })).tolist() as number[][];
      assert.ok(one[0].every((x, j) => Object.is(x, v[i][j])), `text ${i}: batch of 1 differs from batch of 3`);
    }
    // mean pooling is the attention-masked mean of last_hidden_state, in JavaScript
    const model = await T.AutoModel.from_pretrained("org/tiny-embed", { dtype: "fp32", revision: "main" });
    const enc = fe.tokenizer(TEXTS, { padding: true, truncation: true });
    const { last_hidden_state: h } = await model(enc);
    const pooled = T.mean_pooling(h, enc.attention_mask).normalize(2, -1).tolist() as number[][];
    assert.deepEqual(pooled, v);
    t.diagnostic(`load ${loadMs.toFixed(0)} ms, 3 texts ${embedMs.toFixed(1)} ms`);

    // a second load with the Hub gone: everything from env.cacheDir, no request
    const before = hub.fileRequests();
    embedHub = undefined;
    await hub.close();
    const again = await T.pipeline("feature-extraction", "org/tiny-embed", { dtype: "fp32", revision: "main" });
    assert.deepEqual((await again(TEXTS, { pooling: "mean", normalize: true })).tolist(), v);
    assert.equal(hub.fileRequests(), before);
  });

  test("last-token pooling is right only with left padding (tokenizer_config.json's padding_side, default right)", async () => {
    // the cache of the first test holds the repo; the Hub is gone by now
    const fe = await T.pipeline("feature-extraction", "org/tiny-embed", { dtype: "fp32", revision: "main" });
    const texts = ["ποινή", "άρθρο 57 ΑΚ προσβολή της προσωπικότητας"];
    const shortAlone = async () => {
      const both = (await fe(texts, { pooling: "last_token" })).tolist() as number[][];
      const alone = (await fe([texts[0]], { pooling: "last_token" })).tolist() as number[][];
      return both[0].every((x, j) => Object.is(x, alone[0][j]));
    };
    assert.equal(fe.tokenizer.padding_side, "right");
    assert.equal(await shortAlone(), false);
    fe.tokenizer.padding_side = "left";
    assert.equal(await shortAlone(), true);
  });

  test("cross-encoder: HF_TOKEN is not sent to another host; a fetch of our own sends it; raw logits", async () => {
    T.env.remoteHost = `${ceHub.url}/`;
    process.env.HF_TOKEN = "hf_test";
    try {
      await assert.rejects(T.AutoTokenizer.from_pretrained("org/tiny-ce", { revision: "main" }), /401|Unauthorized|credentials/i);
    } finally {
      delete process.env.HF_TOKEN;
    }
    assert.ok(ceHub.authorizations.every((a) => a === undefined));
    const fetch0 = T.env.fetch;
    T.env.fetch = ((url: string | URL, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      headers.set("Authorization", "Bearer hf_test");
      return fetch0(url, { ...init, headers });
    }) as typeof fetch;
    try {
      const tok = await T.AutoTokenizer.from_pretrained("org/tiny-ce", { revision: "main" });
      const model = await T.AutoModelForSequenceClassification.from_pretrained("org/tiny-ce", { revision: "main", dtype: "fp32" });
      const q = "προσβολή προσωπικότητας";
      const enc = tok([q, q, q], { text_pair: TEXTS, padding: true, truncation: true });
      assert.equal((enc.token_type_ids!.tolist() as bigint[][])[0].some((x) => x === 1n), true, "the pair is a text pair");
      const { logits } = await model(enc);
      assert.deepEqual(logits.dims, [3, 1]);
      const raw = Array.from(logits.data as Float32Array);
      assert.ok(new Set(raw).size === 3);
      // the pipeline applies a softmax to the single logit: 1.0 for every pair
      const clf = await T.pipeline("text-classification", "org/tiny-ce", { revision: "main", dtype: "fp32" });
      for (const d of TEXTS) assert.equal(((await clf({ text: q, text_pair: d } as never)) as { score: number }[])[0].score, 1);
      // the same shape in, the same bits out: pad every batch to [8 rows x 32 tokens]
      const fixed = { padding: "max_length" as const, max_length: 32, truncation: true };
      const batch = (await model(tok(Array(8).fill(q), { text_pair: [...TEXTS, ...TEXTS, ...TEXTS].slice(0, 8), ...fixed }))).logits.data;
      for (let i = 0; i < TEXTS.length; i++) {
        const alone = (await model(tok(Array(8).fill(q), { text_pair: Array(8).fill(TEXTS[i]), ...fixed }))).logits.data;
        assert.ok(Object.is(alone[0], batch[i]), `pair ${i}`);
      }
    } finally {
      T.env.fetch = fetch0;
    }
  });
});
