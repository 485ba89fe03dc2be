/**
 * The built-in embedding presets under both namings: the authors' served names and request
 * shape, the switch's errors, user presets over built-ins, and the raw EmbeddingGemma templates.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { allPresets, AUTHORS_SERVED_NAMES, BUILTIN_PRESETS, builtinPresets, preset, presetFingerprint, renderTemplate } from "../../../lib/dense/presets";

const LMSTUDIO = {
  "qwen3-8b": "text-embedding-qwen3-embedding-8b",
  "qwen3-4b": "text-embedding-qwen3-embedding-4b",
  "qwen3-0.6b": "text-embedding-qwen3-embedding-0.6b",
  "embgemma-300m": "text-embedding-embeddinggemma-300m-qat",
  "embgemma-300m-raw": "text-embedding-embeddinggemma-300m-qat",
  "nomic-v1.5": "text-embedding-nomic-embed-text-v1.5",
};
const OTHER = {
  "euler-legal-v1": "Mira190/Euler-Legal-Embedding-V1",
  "jina-v5-small": "jinaai/jina-embeddings-v5-text-small",
  "arctic-v2": "Snowflake/snowflake-arctic-embed-l-v2.0",
};

test("authors naming: the served names, one text per request, input as a string, LM Studio marked", () => {
  const authors = builtinPresets("authors");
  assert.deepEqual(authors.map((p) => p.name), BUILTIN_PRESETS.map((p) => p.name));
  assert.deepEqual(Object.keys(AUTHORS_SERVED_NAMES).sort(), BUILTIN_PRESETS.map((p) => p.name).sort());
  for (const [name, model] of Object.entries(LMSTUDIO)) {
    assert.deepEqual(pick(preset(name, authors)), { model, batchSize: 1, input: "string", server: "lmstudio" }, name);
  }
  for (const [name, model] of Object.entries(OTHER)) {
    assert.deepEqual(pick(preset(name, authors)), { model, batchSize: 1, input: "string", server: undefined }, name);
  }
  assert.deepEqual(pick(preset("gemini-001", authors)), { model: "gemini-embedding-001", batchSize: 1, input: undefined, server: undefined });
  // Templates are the same in both namings (DESIGN.md §6); only how they are served changes.
  for (const p of authors) {
    const hf = preset(p.name, builtinPresets("hf"));
    assert.deepEqual([p.queryTemplate, p.documentTemplate, p.dims], [hf.queryTemplate, hf.documentTemplate, hf.dims], p.name);
    // A different served model must never share cached vectors.
    assert.equal(presetFingerprint(p) === presetFingerprint(hf), p.model === hf.model, p.name);
  }
});

test("hf naming: Hugging Face ids, including Euler's", () => {
  const hf = builtinPresets("hf");
  assert.equal(preset("euler-legal-v1", hf).model, "Mira190/Euler-Legal-Embedding-V1");
  assert.equal(preset("qwen3-8b", hf).model, "Qwen/Qwen3-Embedding-8B");
  assert.equal(preset("qwen3-8b", hf).batchSize, undefined);
  assert.equal(preset("qwen3-8b", hf).input, undefined);
  // The list handed out is a copy: changing it does not change the built-ins.
  hf[0].model = "changed";
  assert.equal(BUILTIN_PRESETS[0].model, "Qwen/Qwen3-Embedding-8B");
});

test("embgemma-300m-raw: the same model as embgemma-300m, texts sent unchanged", () => {
  const raw = preset("embgemma-300m-raw", builtinPresets("hf"));
  const prompted = preset("embgemma-300m", builtinPresets("hf"));
  assert.equal(raw.model, prompted.model);
  assert.equal(raw.dims, prompted.dims);
  const text = "Ο Α μίσθωσε $1 {text} από τον Β.";
  assert.equal(renderTemplate(raw, "query", text), text);
  assert.equal(renderTemplate(raw, "document", text), text);
  assert.equal(renderTemplate(prompted, "query", "x"), "task: search result | query: x");
  assert.equal(renderTemplate(prompted, "document", "x"), "title: none | text: x");
  assert.notEqual(presetFingerprint(raw), presetFingerprint(prompted));
});

test("user presets override built-ins by name in either naming, and their new fields are checked", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gbr-presets-"));
  try {
    const file = path.join(dir, "presets.json");
    writeFileSync(file, JSON.stringify({ presets: [{ name: "qwen3-8b", provider: "openai", model: "my-qwen", input: "string", server: "lmstudio" }] }));
    for (const naming of ["hf", "authors"] as const) {
      const p = preset("qwen3-8b", allPresets(file, naming));
      assert.deepEqual([p.model, p.input, p.server, p.batchSize], ["my-qwen", "string", "lmstudio", undefined], naming);
    }
    const bad = (extra: Record<string, unknown>, re: RegExp) => {
      writeFileSync(file, JSON.stringify({ presets: [{ name: "x", provider: "openai", model: "m", ...extra }] }));
      assert.throws(() => allPresets(file, "hf"), re);
    };
    bad({ input: "list" }, /presets\[0\]: input must be "array" or "string"/);
    bad({ input: "string", batchSize: 8 }, /batchSize must be 1/);
    bad({ input: "string", provider: "gemini" }, /provider "openai" only/);
    bad({ server: "ollama" }, /server must be "lmstudio"/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

function pick(p: { model: string; batchSize?: number; input?: string; server?: string }) {
  return { model: p.model, batchSize: p.batchSize, input: p.input, server: p.server };
}
