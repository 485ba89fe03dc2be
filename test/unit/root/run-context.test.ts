/**
 * The wiring's two arguments: a method's parameters (what keys a built retriever) and the run's context (what it
 * supplies: providers, the store opened once, the replay mode, the log). A context field given with the options is
 * a clear error, not silently ignored.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { BuildCache, createRetriever, registerRetriever, runContext, type RunContext } from "../../../lib/retrievers";
import { openStore } from "../../../lib/store";
import type { Benchmark } from "../../../lib/types";

const bench: Benchmark = {
  name: "t",
  docs: [
    { id: "A::1", text: "μίσθωση ακινήτου" },
    { id: "A::2", text: "καταγγελία της σύμβασης" },
  ],
  queries: [{ id: "q1", text: "μίσθωση" }],
  qrels: new Map([["q1", new Set(["A::1"])]]),
  meta: new Map(),
};

test("a run-context field given with the options is a usage error naming it and where it goes", async () => {
  const legacy = { log: () => {}, vectorStore: "/x" } as unknown as Parameters<typeof createRetriever>[2];
  await assert.rejects(createRetriever("bm25-greekstemmer", bench, legacy), (err: Error & { code?: string }) => {
    assert.equal(err.code, "USAGE");
    assert.match(err.message, /log, vectorStore belong to the run context now: pass \{ log, vectorStore \} as the fourth argument/);
    return true;
  });
});

test("runContext opens the data folder's store once, on first use, and keeps a complete context as it is", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gbr-ctx-"));
  const store = await openStore(path.join(dir, "store"));
  const ctx = runContext({ store });
  assert.equal(ctx.replay, "use");
  assert.equal(await ctx.store(), store);
  assert.equal(await ctx.store(), store);
  assert.equal(runContext(ctx), ctx, "a complete context is passed through, so its parts are shared");
  let opened = 0;
  const lazy = runContext({ store: async () => (opened++, store) });
  assert.equal(opened, 0, "nothing is opened before a method asks");
  await lazy.store();
  assert.equal(opened, 1);
  fs.rmSync(dir, { recursive: true, force: true });
});

test("with a BuildCache a retriever is built once per name and parameters; a user factory receives both arguments", async () => {
  const seen: Array<{ rounds?: number; log: boolean }> = [];
  registerRetriever("ctx-probe", async (name, _bench, opts, ctx: RunContext) => {
    seen.push({ rounds: opts.rounds, log: typeof ctx.log === "function" });
    return { name, retrieve: () => ({ rankings: new Map([["q1", ["A::1"]]]) }) };
  });
  const ctx = runContext({ cache: new BuildCache(), store: async () => assert.fail("no store is needed") });
  const a = await createRetriever("ctx-probe", bench, { rounds: 2 }, ctx);
  const b = await createRetriever("ctx-probe", bench, { rounds: 2 }, ctx);
  const c = await createRetriever("ctx-probe", bench, { rounds: 3 }, ctx);
  assert.equal(a, b);
  assert.notEqual(a, c);
  assert.deepEqual(seen, [
    { rounds: 2, log: true },
    { rounds: 3, log: true },
  ]);
  const bm25 = await createRetriever("bm25-greekstemmer", bench, { bm25: { k1: 1.2 } }, ctx);
  const run = await bm25.retrieve(bench.queries, 2);
  assert.equal(run.rankings.get("q1")?.[0], "A::1");
});
