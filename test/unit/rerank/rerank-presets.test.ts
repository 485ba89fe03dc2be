/**
 * The cross-encoder presets: the built-ins and their limits, user presets over built-ins from the
 * embedding presets file, the unknown-name message, and the templates as sent.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  allRerankPresets,
  BUILTIN_RERANK_PRESETS,
  QWEN3_RERANK_INSTRUCTION,
  renderRerankDocument,
  renderRerankQuery,
  rerankFingerprint,
  rerankPreset,
} from "../../../lib/rerank/presets";
import { GbrError } from "../../../lib/util/errors";
import { readConfig } from "../../../lib/config";
import { userPresetsFile } from "../../../lib/dense/presets";

/** A presets file in a temporary folder, removed after `fn`. */
function withPresetsFile(content: unknown, fn: (file: string) => void): void {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gbr-rerank-presets-"));
  try {
    const file = path.join(dir, "presets.json");
    writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
    fn(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("built-ins: the five re-rankers with their Hugging Face ids, 32 per request, limits from the models' input lengths", () => {
  const builtins = allRerankPresets(null);
  assert.deepEqual(
    builtins.map((p) => [p.name, p.model, p.batchSize]),
    [
      ["bge-reranker-v2-m3", "BAAI/bge-reranker-v2-m3", 32],
      ["jina-reranker-v2-base-multilingual", "jinaai/jina-reranker-v2-base-multilingual", 32],
      ["qwen3-reranker-0.6b", "Qwen/Qwen3-Reranker-0.6B", 32],
      ["qwen3-reranker-4b", "Qwen/Qwen3-Reranker-4B", 32],
      ["qwen3-reranker-8b", "Qwen/Qwen3-Reranker-8B", 32],
    ],
  );
  // ~3 characters per Greek token: Jina's 1,024-token pairs allow far less than bge's 8,192.
  assert.ok(rerankPreset("jina-reranker-v2-base-multilingual", builtins).maxDocumentChars <= 1024 * 3);
  assert.ok(rerankPreset("bge-reranker-v2-m3", builtins).maxDocumentChars <= 8192 * 3);
  assert.ok(rerankPreset("bge-reranker-v2-m3", builtins).maxDocumentChars > rerankPreset("jina-reranker-v2-base-multilingual", builtins).maxDocumentChars);
  // The list handed out is a copy.
  builtins[0].model = "changed";
  assert.equal(BUILTIN_RERANK_PRESETS[0].model, "BAAI/bge-reranker-v2-m3");
});

test("templates: plain pairs for bge and Jina; the Qwen3 chat framing with the project's instruction, the article cut first", () => {
  const bge = rerankPreset("bge-reranker-v2-m3", allRerankPresets(null));
  assert.equal(renderRerankQuery(bge, "Ο Α πώλησε $1 στον Β"), "Ο Α πώλησε $1 στον Β");
  assert.equal(renderRerankDocument(bge, "Άρθρο 513"), "Άρθρο 513");

  const qwen = rerankPreset("qwen3-reranker-8b", allRerankPresets(null));
  const q = renderRerankQuery(qwen, "Ποια η ευθύνη του Α;");
  assert.ok(q.startsWith("<|im_start|>system\nJudge whether the Document meets the requirements based on the Query and the Instruct provided."), q);
  assert.ok(q.endsWith(`<|im_end|>\n<|im_start|>user\n<Instruct>: ${QWEN3_RERANK_INSTRUCTION}\n<Query>: Ποια η ευθύνη του Α;\n`), q);
  assert.equal(renderRerankDocument(qwen, "Άρθρο 914"), "<Document>: Άρθρο 914<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n");
  // The three sizes differ only in the model.
  for (const size of ["0.6b", "4b"]) {
    const p = rerankPreset(`qwen3-reranker-${size}`, allRerankPresets(null));
    assert.deepEqual([p.queryTemplate, p.documentTemplate, p.maxDocumentChars], [qwen.queryTemplate, qwen.documentTemplate, qwen.maxDocumentChars]);
  }

  const tiny = { ...bge, maxDocumentChars: 5, documentTemplate: "[{text}]" };
  assert.equal(renderRerankDocument(tiny, "Άρθρο 914 ΑΚ"), "[Άρθρο]");
  // Never half a surrogate pair.
  assert.equal(renderRerankDocument({ ...tiny, maxDocumentChars: 2 }, "α\u{1D400}β"), "[α]");
});

test("fingerprint: model, templates and the article limit change it; the name and the batch size do not", () => {
  const p = rerankPreset("bge-reranker-v2-m3", allRerankPresets(null));
  const fp = rerankFingerprint(p);
  assert.match(fp, /^[0-9a-f]{16}$/);
  assert.equal(rerankFingerprint({ ...p, name: "other", batchSize: 8 }), fp);
  for (const change of [{ model: "x" }, { queryTemplate: "q: {query}" }, { documentTemplate: "d: {text}" }, { maxDocumentChars: 100 }]) {
    assert.notEqual(rerankFingerprint({ ...p, ...change }), fp, JSON.stringify(change));
  }
});

test("user presets: a built-in's name overrides it (missing fields from the built-in), new names join, GBR_PRESETS is read", () => {
  const content = {
    presets: [],
    rerankers: [
      { name: "qwen3-reranker-8b", model: "qwen3-reranker-served" },
      { name: "tiny", model: "BAAI/bge-reranker-v2-m3", maxDocumentChars: 10, batchSize: 4 },
    ],
  };
  withPresetsFile(content, (file) => {
    const all = allRerankPresets(file);
    assert.equal(all.length, BUILTIN_RERANK_PRESETS.length + 1);
    const qwen = rerankPreset("qwen3-reranker-8b", all);
    const builtin = BUILTIN_RERANK_PRESETS.find((p) => p.name === "qwen3-reranker-8b")!;
    assert.deepEqual({ ...qwen }, { ...builtin, model: "qwen3-reranker-served" });
    assert.deepEqual(rerankPreset("tiny", all), {
      name: "tiny",
      model: "BAAI/bge-reranker-v2-m3",
      queryTemplate: "{query}",
      documentTemplate: "{text}",
      maxDocumentChars: 10,
      batchSize: 4,
    });
    // The file GBR_PRESETS names, through the configuration.
    assert.equal(rerankPreset("tiny", allRerankPresets(userPresetsFile(readConfig({ GBR_PRESETS: file })))).batchSize, 4);
  });
  // A file with embedding presets only adds no re-ranker.
  withPresetsFile({ presets: [] }, (file) => assert.equal(allRerankPresets(file).length, BUILTIN_RERANK_PRESETS.length));
});

test("user presets: errors name the file, the entry and the field", () => {
  const cases: [unknown, RegExp][] = [
    [{ rerankers: {} }, /"rerankers" must be an array/],
    [{ rerankers: [{ model: "m", maxDocumentChars: 1 }] }, /rerankers\[0\]: "name" must be a non-empty string/],
    [{ rerankers: [{ name: "new", maxDocumentChars: 1 }] }, /rerankers\[0\] \('new'\): "model" must be a non-empty string/],
    [{ rerankers: [{ name: "new", model: "m" }] }, /maxDocumentChars must be a positive integer \(required for a new preset\)/],
    [{ rerankers: [{ name: "new", model: "m", maxDocumentChars: 9, queryTemplate: "{text}" }] }, /queryTemplate must contain \{query\}/],
    [{ rerankers: [{ name: "new", model: "m", maxDocumentChars: 9, documentTemplate: "{query}" }] }, /documentTemplate must contain \{text\}/],
    [{ rerankers: [{ name: "bge-reranker-v2-m3", batchSize: 0 }] }, /batchSize must be a positive integer/],
    ["{ not json", /not a readable presets file/],
    // A typo must not pass silently as "no presets".
    [{ reranker: [] }, /neither "presets" nor "rerankers"/],
    [[], /neither "presets" nor "rerankers"/],
  ];
  for (const [content, message] of cases) {
    withPresetsFile(content, (file) => {
      assert.throws(
        () => allRerankPresets(file),
        (e: unknown) => e instanceof GbrError && e.code === "USAGE" && e.message.startsWith(file) && message.test(e.message),
        String(message),
      );
    });
  }
});

test("an unknown name is a usage error with the nearest name and the known ones", () => {
  const all = allRerankPresets(null);
  assert.throws(
    () => rerankPreset("bge-reranker-v2", all),
    (e: unknown) =>
      e instanceof GbrError &&
      e.code === "USAGE" &&
      !e.unavailable &&
      e.message.includes("unknown re-ranker preset 'bge-reranker-v2' (did you mean 'bge-reranker-v2-m3'?)") &&
      e.message.includes("qwen3-reranker-0.6b"),
  );
  assert.throws(() => rerankPreset("zzz", all), (e: unknown) => e instanceof GbrError && !e.message.includes("did you mean"));
});
