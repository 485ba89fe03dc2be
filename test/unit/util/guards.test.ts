/** Checks of caller input that a lean pass once removed: each bad value is a clear error, not a silent run or a TypeError. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { untilFailure } from "../../../lib/util/pool";
import { maskCredentials } from "../../../lib/util/http";
import { loadPromptSet, type PromptSetName } from "../../../lib/llm/prompts";
import { createRetriever } from "../../../lib/retrievers";
import type { Benchmark } from "../../../lib/types";

test("untilFailure refuses a width that would start no worker", async () => {
  for (const width of [0, -1, Number.NaN, 1.5]) {
    await assert.rejects(untilFailure(3, width, async () => {}), /concurrency must be a positive integer/);
  }
  const seen: number[] = [];
  assert.equal(await untilFailure(3, 2, async (i) => void seen.push(i)), undefined);
  assert.deepEqual(seen.sort(), [0, 1, 2]);
});

test("maskCredentials hides a user and password even in a URL that does not parse", () => {
  assert.equal(maskCredentials("http://user:secret@[bad/v1"), "http://***@[bad/v1");
  assert.equal(maskCredentials("http://user:secret@host/v1"), "http://***:***@host/v1");
});

test("loadPromptSet refuses a set name it does not know (a JavaScript caller's typo)", () => {
  assert.throws(() => loadPromptSet("oficial" as PromptSetName, { cacheDir: "/nowhere" }), /unknown prompt set 'oficial': project or official/);
});

test("a re-ranking depth that is not a positive integer is refused before anything runs", async () => {
  const bench: Benchmark = { name: "tiny", docs: [{ id: "d0", text: "άρθρο" }], queries: [{ id: "q0", text: "άρθρο" }], qrels: new Map(), meta: new Map() };
  for (const rerankDepth of [0, -5, 1.5]) {
    await assert.rejects(createRetriever("rerank:llm:bm25-greekstemmer", bench, { rerankDepth }), /re-ranking depth must be a positive integer/);
  }
});
