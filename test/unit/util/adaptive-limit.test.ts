import { test } from "node:test";
import assert from "node:assert/strict";
import { createSemaphore } from "../../../lib/util/semaphore";
import { AdaptiveLimit } from "../../../lib/util/adaptive-limit";
import { startOpenAIDouble } from "../../fakes/openai-server";
import { openaiChat } from "../../../lib/providers/openai-chat";
import { openaiEmbedder } from "../../../lib/providers/openai-embedder";

test("AIMD: a refusal halves the limit (once per second), a run of successes adds one back up to the ceiling", () => {
  let t = 0;
  const sem = createSemaphore(16);
  const aimd = new AdaptiveLimit(sem, 16, () => t);
  aimd.observe(429);
  assert.equal(sem.size, 8);
  aimd.observe(503); // the same burst: no second halving
  assert.equal(sem.size, 8);
  t = 1500;
  aimd.observe(429);
  assert.equal(sem.size, 4);
  for (let i = 0; i < 4; i++) aimd.observe(200);
  assert.equal(sem.size, 5);
  for (let i = 0; i < 200; i++) aimd.observe(200); // 5 + 6 + … + 15 successes climb back to 16
  assert.equal(sem.size, 16, "never above the ceiling the user set");
  assert.deepEqual(aimd.state(), { max: 16, current: 16, lowest: 4, refusals: 3 });
});

test("a shrunk semaphore lets running tasks finish and hands out no slot until fewer than the new size run", async () => {
  const sem = createSemaphore(4);
  let running = 0;
  let peak = 0;
  const task = () =>
    sem.run(async () => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 10));
      running--;
    });
  const first = Array.from({ length: 4 }, task);
  sem.resize(1);
  peak = 0;
  await Promise.all([...first, ...Array.from({ length: 4 }, task)]);
  assert.ok(peak <= 4);
  // After the shrink settles, one at a time.
  peak = 0;
  await Promise.all(Array.from({ length: 4 }, task));
  assert.equal(peak, 1);
});

test("a server answering 429 to a share of requests drives the chat client's limit down, and every request completes", async () => {
  const api = await startOpenAIDouble({ delayMs: 20 });
  try {
    api.chat(() => ({ content: "ok", usage: { prompt_tokens: 1, completion_tokens: 1 } }));
    api.fault("rateLimit", 12, { retryAfterMs: "10" });
    const llm = openaiChat({ model: "m", baseURL: `${api.url}/v1`, concurrency: 8 });
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => llm.complete({ system: "", user: `q${i}` })));
    assert.equal(answers.length, 40);
    answers.forEach((a) => assert.equal(a.text, "ok"));
    const state = llm.limitState!();
    assert.ok(state.refusals >= 1, JSON.stringify(state));
    assert.ok(state.lowest < 8, `the limit went down: ${JSON.stringify(state)}`);
  } finally {
    await api.close();
  }
});

test("an embedding server answering 429 to a share of requests drives the embedder's limit down, and every batch completes", async () => {
  const api = await startOpenAIDouble({ delayMs: 20, dims: 4 });
  try {
    api.fault("rateLimit", 12, { retryAfterMs: "10" });
    const e = openaiEmbedder({ model: "m", baseURL: `${api.url}/v1`, dims: 4, concurrency: 8 });
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => e.embed([`κείμενο ${i}`], "document")));
    assert.equal(results.length, 40);
    results.forEach((r) => assert.equal(r.vectors.length, 1));
    const state = e.limitState!();
    assert.ok(state.refusals >= 1, JSON.stringify(state));
    assert.ok(state.lowest < 8, `the limit went down: ${JSON.stringify(state)}`);
  } finally {
    await api.close();
  }
});
