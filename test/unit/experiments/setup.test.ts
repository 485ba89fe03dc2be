import { test } from "node:test";
import assert from "node:assert/strict";
import { describeRun } from "../../../lib/experiments/setup";
import type { RunInfo } from "../../../lib/types";

test("describeRun: one line from the run's own record, parts included, each fact once", () => {
  const bm25: RunInfo = { retriever: "bm25-greekstemmer", bm25: { tokenizer: "greekstemmer", k1: 1.5, b: 0.75, epsilon: 0.25, positiveOnly: false } };
  assert.equal(describeRun(bm25), "BM25 greekstemmer k1 1.5 b 0.75 epsilon 0.25");
  const reform: RunInfo = {
    retriever: "reform:bm25-greekstemmer",
    llm: {
      model: "openai/gpt-oss-120b",
      provider: "openai",
      endpoint: "http://10.0.0.5:8000",
      prompts: { name: "official", commit: "992f5224a6cb75d12d956994a820a9b83e18c0f5", sha256: {} },
      parser: "official",
      requests: { "rewrite-sparse": [{ max_tokens: 42000, reasoning_effort: "low", temperature: 0.2, top_p: 1, calls: 283 }] },
      reused: 0,
      servedModels: ["openai/gpt-oss-120b"],
      standIn: false,
    },
    parts: [bm25],
  };
  assert.equal(
    describeRun(reform),
    "LLM openai/gpt-oss-120b at http://10.0.0.5:8000; prompts official@992f5224; parser official; " +
      "rewrite-sparse: max_tokens 42000, reasoning_effort low, temperature 0.2, top_p 1 (283 requests); BM25 greekstemmer k1 1.5 b 0.75 epsilon 0.25",
  );
  const rrf: RunInfo = { retriever: "rrf:a+b", parts: [bm25, bm25, { retriever: "dense:x", embedding: { model: "Qwen/Qwen3-Embedding-8B", endpoint: "http://h:1" } }] };
  assert.equal(describeRun(rrf), "BM25 greekstemmer k1 1.5 b 0.75 epsilon 0.25; embeddings Qwen/Qwen3-Embedding-8B at http://h:1");
  assert.equal(describeRun(undefined), "");
});
