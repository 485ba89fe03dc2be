import { test } from "node:test";
import assert from "node:assert/strict";
import { loadBenchmark } from "../../lib/data/source";
import { registerRetriever } from "../../lib/retrievers";
import { runExperiments } from "../../lib/experiments/run-experiments";
import type { Experiment } from "../../lib/experiments/registry";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("runExperiments starts an experiment's prefetch with the job: the build overlaps the experiments before it, and runs once", async () => {
  const loaded = await loadBenchmark("sample");
  const events: string[] = [];
  let builds = 0;
  // A retriever whose build waits (as LSI's fit in a worker does) before it can retrieve.
  registerRetriever("test-prefetched", async (name) => {
    builds++;
    events.push("build started");
    await sleep(80);
    events.push("build done");
    return { name, retrieve: async () => ({ rankings: new Map([[loaded.benchmark.queries[0].id, []]]) }) };
  });
  const experiment = (id: string, body: Experiment["run"], prefetch?: Experiment["prefetch"]): Experiment => ({ id, section: "test", title: id, needs: [], run: body, ...(prefetch ? { prefetch } : {}) });
  const first = experiment("first", async () => {
    events.push("first ran");
    await sleep(100); // the build finishes meanwhile
    return { run: { rankings: new Map() } };
  });
  const second = experiment(
    "second",
    async (ctx) => {
      const t0 = performance.now();
      const run = await ctx.run("test-prefetched");
      events.push(`second waited ${performance.now() - t0 < 40 ? "little" : "long"}`);
      return { run };
    },
    (ctx) => ctx.retriever("test-prefetched"),
  );
  const records = await runExperiments(loaded, [first, second]);
  assert.deepEqual(records.map((r) => [r.experiment.id, r.status]), [["first", "ok"], ["second", "ok"]]);
  // The prefetch begins as soon as the first experiment awaits (it is queued before the loop), and
  // is done before the second experiment's turn.
  assert.deepEqual(events, ["first ran", "build started", "build done", "second waited little"]);
  assert.equal(builds, 1);
});

test("a prefetch that fails shows in its experiment's record, not as an unhandled rejection", async () => {
  const loaded = await loadBenchmark("sample");
  registerRetriever("test-prefetch-broken", async () => {
    throw new Error("the build broke");
  });
  const broken: Experiment = { id: "broken", section: "test", title: "broken", needs: [], prefetch: (ctx) => ctx.retriever("test-prefetch-broken"), run: async (ctx) => ({ run: await ctx.run("test-prefetch-broken") }) };
  const records = await runExperiments(loaded, [broken]);
  assert.equal(records[0].status, "failed");
  assert.match(records[0].reason ?? "", /the build broke/);
});

test("prefetches run one after the other, in experiment order, each once its predecessor has settled (failed ones too)", async () => {
  const loaded = await loadBenchmark("sample");
  const events: string[] = [];
  const step = (name: string, ms: number, fail = false) => async () => {
    events.push(`${name} started`);
    await sleep(ms);
    events.push(`${name} done`);
    if (fail) throw new Error(`${name} broke`);
  };
  const quiet = async () => ({ run: { rankings: new Map() } });
  const experiments: Experiment[] = [
    { id: "a", section: "test", title: "a", needs: [], prefetch: step("a", 30, true), run: quiet },
    { id: "b", section: "test", title: "b", needs: [], run: quiet },
    { id: "c", section: "test", title: "c", needs: [], prefetch: step("c", 10), run: async () => (await sleep(80), quiet()) },
  ];
  await runExperiments(loaded, experiments);
  assert.deepEqual(events, ["a started", "a done", "c started", "c done"]);
});
