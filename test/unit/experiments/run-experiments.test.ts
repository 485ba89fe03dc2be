/** runExperiments' messages: a long synchronous step reports progress, and no start line follows a result. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { loadBenchmark } from "../../../lib/data/source";
import { experiments } from "../../../lib/experiments/registry";
import { runExperiments } from "../../../lib/experiments/run-experiments";
import type { Experiment } from "../../../lib/experiments/experiment";

test("the tuning sweep reports its progress through the run's reporter, query by query", async () => {
  const loaded = await loadBenchmark("sample");
  const oracle = experiments({ rerankers: [] }).filter((e) => e.id === "oracle:bm25-greekstemmer");
  const calls: [string, number, number][] = [];
  const [record] = await runExperiments(loaded, oracle, { context: { onProgress: (label, done, total) => calls.push([label, done, total]) } });
  assert.equal(record.status, "ok");
  const sweep = calls.filter(([label]) => label.startsWith("BM25 sweep (192 settings)"));
  const judged = [...loaded.benchmark.qrels.values()].filter((g) => g.size > 0).length;
  assert.equal(sweep.length, judged, "one call per judged query");
  assert.deepEqual(sweep.map(([, done]) => done), Array.from({ length: judged }, (_, i) => i + 1));
  assert.ok(sweep.every(([, , total]) => total === judged));
});

test("an experiment that blocks the event loop past 2 s gets no start line after its result", async () => {
  const loaded = await loadBenchmark("sample");
  const blocking: Experiment = {
    id: "blocking",
    section: "test",
    title: "a synchronous step of 2.2 s",
    needs: [],
    async run() {
      const until = performance.now() + 2200;
      while (performance.now() < until) {
        // busy: the start line's timer cannot fire while this runs
      }
      return { run: { rankings: new Map() } };
    },
  };
  const lines: string[] = [];
  // As reproduce, the record is written (I/O) before the experiment is over: the stale timer fired there.
  await runExperiments(loaded, [blocking], { log: (m) => lines.push(m), onRecord: () => new Promise((r) => setTimeout(r, 10)) });
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(lines.length, 1, lines.join("\n"));
  assert.match(lines[0], /^\[1\/1\] blocking: Recall@100 0\.0000 in 2\.\d s$/);
});

test("issue 28, item 9: the oracle and tuned rows are charged one setting's ranking per query; the 192-setting sweep is one-time work", async () => {
  const loaded = await loadBenchmark("sample");
  const rows = experiments({ rerankers: [] }).filter((e) => e.id === "oracle:bm25-greekstemmer" || e.id === "tuned:bm25-greekstemmer");
  const records = await runExperiments(loaded, rows);
  for (const record of records) {
    const id = record.experiment.id;
    assert.equal(record.status, "ok", id);
    const { details, run } = record.samples[0].result;
    const sweepSeconds = Number(details?.seconds);
    const cost = run.cost!;
    assert.ok(sweepSeconds > 0, `${id}: the sweep took ${sweepSeconds} s`);
    // Ranking the queries with the chosen setting is one of the 192 rankings the sweep made.
    assert.ok(Math.abs(cost.online.seconds - sweepSeconds / 192) < 1e-9, `${id}: ${cost.online.seconds} s online, not the sweep's ${sweepSeconds} s`);
    assert.ok(cost.corpus.seconds >= sweepSeconds * (191 / 192) - 1e-9, `${id}: the rest of the sweep is one-time work (${cost.corpus.seconds} s)`);
  }
});
