/**
 * REACT-BM25 over 40 questions with 16 in flight against a chat double that takes a fixed time
 * per request: at least 8 times faster than one at a time, and the same run and the same traces
 * (timings aside), since rounds within a question stay in order and every result lands by
 * question, whatever finishes first.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startOpenAIDouble, type OpenAIDouble } from "../fakes/openai-server";
import { scriptedModel } from "../fakes/scripted-model";
import { concurrencyFor } from "../../lib/util/concurrency";

let tmp = "";
let api: OpenAIDouble;
const saved = { ...process.env };

before(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-react-concurrency-"));
  api = await startOpenAIDouble({ delayMs: 60 });
  api.chat(scriptedModel);
  Object.assign(process.env, { GBR_DATA_DIR: path.join(tmp, "data"), GBR_CHAT_BASE_URL: `${api.url}/v1`, GBR_CHAT_MODEL: "openai/gpt-oss-120b" });
});

after(async () => {
  process.env = saved;
  await api?.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

/** Traces without what depends on timing: seconds of each call and of each question. */
const stable = (trace: unknown) => JSON.parse(JSON.stringify(trace, (k, v) => (k === "seconds" || k === "wallSeconds" ? undefined : v)));

test("16 questions at once: at least 8 times faster, the same run and traces", async () => {
  const { loadBenchmark, createRetriever } = await import("../../lib/index");
  const { benchmark: sample } = await loadBenchmark("sample");
  // 40 questions: the sample's 26, then 14 of them again under other ids.
  const queries = Array.from({ length: 40 }, (_, i) => ({ id: `q${String(i).padStart(2, "0")}`, text: sample.queries[i % sample.queries.length].text }));
  const bench = { ...sample, queries };
  const runWith = async (n: number) => {
    process.env.GBR_CHAT_CONCURRENCY = String(n);
    assert.equal(concurrencyFor("chat"), n);
    const traceDir = path.join(tmp, `traces-${n}`);
    const react = await createRetriever("react-bm25", bench, { rounds: 2, replay: "off", traceDir });
    const t0 = performance.now();
    const run = await react.retrieve(queries, 100);
    const seconds = (performance.now() - t0) / 1000;
    const traces = await Promise.all(queries.map(async (q) => stable(JSON.parse(await fs.readFile(path.join(traceDir, `${q.id}.json`), "utf8")))));
    return { run, seconds, traces };
  };
  const one = await runWith(1);
  const many = await runWith(16);
  assert.deepEqual([...many.run.rankings], [...one.run.rankings], "the same rankings, in question order");
  assert.deepEqual(many.traces, one.traces, "the same traces");
  const speedup = one.seconds / many.seconds;
  console.log(`# 16 in flight: ${many.seconds.toFixed(2)} s against ${one.seconds.toFixed(2)} s one at a time (×${speedup.toFixed(1)})`);
  assert.ok(speedup >= 8, `16 in flight: ${many.seconds.toFixed(2)} s against ${one.seconds.toFixed(2)} s one at a time (×${speedup.toFixed(1)})`);
});
