/**
 * The in-process embedder and cross-encoder on tiny models the test builds, served by a local Hub double:
 * each pooling, normalisation, a vector independent of its batch (bit for bit), truncation, raw logits.
 */
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { startHubDouble, type HubDouble } from "../../fakes/hub-server";
import { buildTinyModels } from "../../helpers/tiny-models";
import { readConfig, type Config } from "../../../lib/config";
import { bucket, inFixedShapes, localEmbedder, localReranker } from "../../../lib/providers/local-model";
import { allRerankPresets } from "../../../lib/rerank/presets";
import type { LocalModel } from "../../../lib/models/embed";

const TEXTS = ["ποινή", "Ο Αστικός Κώδικας ορίζει", "άρθρο 57 ΑΚ προσβολή της προσωπικότητας", "a", "δικαίωμα στην προσωπικότητα και αποζημίωση"];
const LONG = "προσβολή της προσωπικότητας ".repeat(40);
const same = (a: Float32Array, b: Float32Array) => a.length === b.length && a.every((x, i) => Object.is(x, b[i]));

test("fixed shapes: every row runs at its own bucket's length, in that bucket's row count, whatever its neighbours", async () => {
  const lengths = [5, 300, 17, 16, 40, 3, 600, 31, 2000];
  const calls: { rows: number[]; length: number }[] = [];
  await inFixedShapes(lengths, 512, 4, async (rows, length) => void calls.push({ rows, length }));
  const seen = new Set<number>();
  for (const { rows, length } of calls) {
    assert.equal(rows.length, Math.max(1, Math.min(4, Math.floor(16_384 / length))));
    for (const i of rows) assert.equal(length, bucket(lengths[i], 512), `input ${i} (${lengths[i]} tokens) ran at ${length}`);
    rows.forEach((i) => seen.add(i));
  }
  assert.equal(seen.size, lengths.length);
});

test("--local: a user's override of a built-in re-ranker's fields keeps its in-process form; one naming another model does not", async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-local-presets-"));
  try {
    const file = path.join(dir, "p.json");
    await fs.writeFile(file, JSON.stringify({ rerankers: [{ name: "bge-reranker-v2-m3", maxDocumentChars: 4000 }, { name: "jina-reranker-v2-base-multilingual", model: "x/y" }] }));
    const bge = allRerankPresets(file, true).find((p) => p.name === "bge-reranker-v2-m3")!;
    assert.equal(bge.provider, "local");
    assert.equal(bge.maxDocumentChars, 4000);
    assert.equal(bge.model, bge.local!.model);
    assert.equal(allRerankPresets(file, false).find((p) => p.name === "bge-reranker-v2-m3")!.provider, undefined);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});

describe("in-process models (tiny ONNX, Hub double)", () => {
  let tmp: string;
  let embedHub: HubDouble;
  let ceHub: HubDouble;
  let embedConfig: Config;
  let ceConfig: Config;
  const tiny = (more: Partial<LocalModel>): LocalModel => ({ model: "org/tiny-embed", revision: "main", dtype: "fp32", ...more });

  before(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-local-unit-"));
    const files = await buildTinyModels(path.join(tmp, "models"));
    embedHub = await startHubDouble({ kind: "models", repo: "org/tiny-embed", revision: "main", readme: "# tiny", files: files.embed });
    ceHub = await startHubDouble({ kind: "models", repo: "org/tiny-ce", revision: "main", readme: "# tiny", files: files.crossEncoder });
    embedConfig = readConfig({ GBR_DATA_DIR: path.join(tmp, "data"), HF_ENDPOINT: embedHub.url });
    ceConfig = readConfig({ GBR_DATA_DIR: path.join(tmp, "data"), HF_ENDPOINT: ceHub.url });
  });
  after(async () => {
    await embedHub?.close();
    await ceHub?.close();
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  test("bucket: powers of two from 16, capped at the model's limit", () => {
    assert.deepEqual([1, 16, 17, 33, 200, 600].map((n) => bucket(n, 512)), [16, 16, 32, 64, 256, 512]);
    assert.equal(bucket(40, 32), 32);
  });

  for (const pooling of ["mean", "cls", "last", "model"] as const) {
    test(`pooling ${pooling}: a text's vector is the same bits alone and in any batch`, async () => {
      const e = localEmbedder(embedConfig, tiny({ pooling, normalize: true }), 4);
      const { vectors: all, tokens } = await e.embed([...TEXTS, LONG], "document");
      assert.equal(all.length, TEXTS.length + 1);
      for (const v of all) assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-5, "normalised");
      for (let i = 0; i < TEXTS.length; i++) {
        const { vectors: one } = await e.embed([TEXTS[i]], "document");
        assert.ok(same(one[0], all[i]), `text ${i}: batch of 1 differs from the batch of ${TEXTS.length + 1}`);
        const { vectors: other } = await e.embed([TEXTS[(i + 2) % TEXTS.length], TEXTS[i]], "document");
        assert.ok(same(other[1], all[i]), `text ${i}: batch of 2 differs`);
      }
      assert.ok(tokens! > 0 && tokens! <= 32 * (TEXTS.length + 1));
    });
  }

  test("the poolings differ, and normalize: false keeps the model's lengths", async () => {
    const of = async (m: LocalModel) => (await localEmbedder(embedConfig, m).embed([TEXTS[2]], "query")).vectors[0];
    const vs = await Promise.all((["mean", "cls", "last", "model"] as const).map((pooling) => of(tiny({ pooling, normalize: true }))));
    for (let i = 0; i < vs.length; i++) for (let j = i + 1; j < vs.length; j++) assert.ok(!same(vs[i], vs[j]), `poolings ${i} and ${j} agree`);
    const raw = await of(tiny({ pooling: "mean", normalize: false }));
    assert.ok(Math.abs(Math.hypot(...raw) - 1) > 1e-3);
  });

  test("texts over the model's limit (tokenizer_config.json: 32) are cut and counted; maxTokens cuts shorter", async () => {
    const e = localEmbedder(embedConfig, tiny({ pooling: "mean" }));
    assert.equal(await e.overLimit!([TEXTS[0], TEXTS[3], LONG]), 1);
    const { tokens } = await e.embed([LONG], "document");
    assert.equal(tokens, 32);
    const short = localEmbedder(embedConfig, tiny({ pooling: "mean", maxTokens: 8 }));
    assert.equal(await short.overLimit!(["ποινή", "α"]), 0);
    assert.equal(await short.overLimit!(["ποινή ποινή"]), 1);
    assert.equal((await short.embed([LONG], "document")).tokens, 8);
  });

  test("cross-encoder: one raw logit per pair, independent of the batch, differing between documents", async () => {
    const c = localReranker(ceConfig, { model: "org/tiny-ce", revision: "main", dtype: "fp32" }, 4);
    const q = "προσβολή προσωπικότητας";
    const { scores } = await c.rerank("org/tiny-ce", q, [...TEXTS, LONG]);
    assert.equal(scores.length, TEXTS.length + 1);
    assert.equal(new Set(scores).size, scores.length);
    for (let i = 0; i < TEXTS.length; i++) {
      const alone = (await c.rerank("org/tiny-ce", q, [TEXTS[i]])).scores[0];
      assert.ok(Object.is(alone, scores[i]), `pair ${i}: ${alone} alone, ${scores[i]} in the batch`);
    }
    assert.ok(scores.some((s) => s < 0 || s > 1), "raw logits, not probabilities");
    assert.equal((await c.rerank("org/tiny-ce", q, ["α"])).truncated, 0);
    assert.equal((await c.rerank("org/tiny-ce", q, ["α", LONG])).truncated, 1, "the pair over 32 tokens is counted");
  });
});
