/**
 * Issue 22, item 14: `gbr reproduce --only lsi` after a full run replaced summary.csv's rows with its one, leaving the
 * other run files beside it, unlisted. A partial rerun now merges with the rows already there (each row saying when it
 * ran); results on other judgments are refused; `replace` starts the folder again.
 */
import assert from "node:assert/strict";
import fsSync, { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { loadBenchmark } from "../../lib/data/source";
import type { Experiment } from "../../lib/experiments/experiment";
import { experiments } from "../../lib/experiments/registry";
import { reproduce } from "../../lib/experiments/reproduce";
import { parseCsvRecords } from "../../lib/util/csv";
import { formatReproduceSummary } from "../../lib/cli/print-reproduce";
import type { LoadedBenchmark } from "../../lib/data/source";
import { GbrError } from "../../lib/util/errors";
import { findRunFile, readRun } from "../../lib/data/runs";

const IDS = ["bm25-greekstemmer", "bm25-grnlp", "lsi", "prf:bm25-greekstemmer", "rrf:bm25-greekstemmer+lsi"];
const LIST = experiments({ rerankers: [] }).filter((e) => IDS.includes(e.id));

let tmp = "";
let loaded: LoadedBenchmark;
const saved = process.env.GBR_DATA_DIR;

before(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-merge-"));
  process.env.GBR_DATA_DIR = path.join(tmp, "data");
  loaded = await loadBenchmark("sample");
});
after(async () => {
  process.env.GBR_DATA_DIR = saved;
  await fs.rm(tmp, { recursive: true, force: true });
});

const summaryOf = async (dir: string) => parseCsvRecords(await fs.readFile(path.join(dir, "summary.csv"), "utf8"));
const perQueryIds = async (dir: string) => new Set(parseCsvRecords(await fs.readFile(path.join(dir, "per-query.csv"), "utf8")).map((r) => r.experiment));

test("--only after a full run keeps every other row, with the same numbers, and says which ran when", async () => {
  const outRoot = path.join(tmp, "a");
  const full = await reproduce(loaded, { outRoot, experiments: LIST });
  const before = await summaryOf(full.outDir);
  assert.deepEqual(before.map((r) => r.experiment), IDS);
  await new Promise((r) => setTimeout(r, 20)); // a later ranAt for the rerun row
  const again = await reproduce(loaded, { outRoot, experiments: LIST, only: ["lsi"] });
  const after = await summaryOf(again.outDir);
  assert.deepEqual(after.map((r) => r.experiment), IDS, "every row is still there, in the list's order");
  for (const [i, row] of after.entries()) {
    for (const m of ["nDCG@10", "Recall@100", "MAP@100"]) assert.equal(row[m], before[i][m], `${row.experiment} ${m}`);
    if (row.experiment === "lsi") assert.ok(row.ranAt > before[i].ranAt, "the rerun row has the rerun's time");
    else assert.equal(row.ranAt, before[i].ranAt, `${row.experiment} keeps its earlier time`);
  }
  assert.deepEqual([...(await perQueryIds(again.outDir))].sort(), [...IDS].sort(), "per-query.csv holds every experiment");
  assert.deepEqual(again.outcomes.filter((o) => o.earlier).map((o) => o.id), IDS.filter((id) => id !== "lsi"));
  // The paper family's BM25 row and the baseline tests see the kept runs too.
  assert.ok(again.assessment.significance.baseline?.tests.some((t) => t.b === "bm25-grnlp" || t.a === "bm25-grnlp"));
  const text = formatReproduceSummary(loaded, again);
  assert.match(text, /^bm25-grnlp \[earlier\] /m);
  assert.match(text, /^lsi {2,}/m);
  assert.match(text, /1 ran, 0 skipped, 0 failed; 4 kept from an earlier run \(--replace starts the folder again\)\./);
});

test("a record written before runs were named in it (no files, no ranAt) is read from runs/<id>.trec", async () => {
  const outRoot = path.join(tmp, "legacy");
  const full = await reproduce(loaded, { outRoot, experiments: LIST, only: ["bm25-greekstemmer", "lsi"] });
  const file = path.join(full.outDir, "experiments", "bm25-greekstemmer.json");
  const record = JSON.parse(await fs.readFile(file, "utf8"));
  delete record.ranAt;
  for (const s of record.samples) delete s.files;
  await fs.writeFile(file, JSON.stringify(record));
  const again = await reproduce(loaded, { outRoot, experiments: LIST, only: ["lsi"] });
  const kept = again.outcomes.find((o) => o.id === "bm25-greekstemmer");
  assert.equal(kept?.earlier, true);
  assert.deepEqual(kept?.mean, full.outcomes.find((o) => o.id === "bm25-greekstemmer")?.mean);
  assert.equal(kept?.ranAt, (await fs.stat(file)).mtime.toISOString());
});

test("a folder holding results on other judgments is refused before anything runs; --replace starts it again", async () => {
  const outRoot = path.join(tmp, "other");
  const first = await reproduce(loaded, { outRoot, experiments: LIST, only: ["bm25-greekstemmer", "bm25-grnlp"] });
  const qrels = path.join(first.outDir, "qrels.txt");
  await fs.writeFile(qrels, (await fs.readFile(qrels, "utf8")).split("\n").slice(1).join("\n"));
  await assert.rejects(reproduce(loaded, { outRoot, experiments: LIST, only: ["lsi"] }), (e: unknown) => {
    assert.ok(e instanceof GbrError && e.code === "USAGE", String(e));
    assert.match(e.message, /holds results of an earlier run on other judgments/);
    assert.match(e.hint ?? "", /--replace/);
    return true;
  });
  const replaced = await reproduce(loaded, { outRoot, experiments: LIST, only: ["lsi"], replace: true });
  assert.deepEqual((await summaryOf(replaced.outDir)).map((r) => r.experiment), ["lsi"]);
  assert.deepEqual((await fs.readdir(path.join(replaced.outDir, "runs"))).sort(), ["lsi.json", "lsi.trec"], "no run file of the earlier run is left unlisted");
  assert.deepEqual(await fs.readdir(path.join(replaced.outDir, "experiments")), ["lsi.json"]);
  // Every file in the folder is one this run wrote and listed: none of the earlier run's is left unlisted.
  assert.deepEqual((await fs.readdir(replaced.outDir)).sort(), replaced.files.map((f) => f.replace(/\/$/, "")).sort());
  // Started again with nothing that runs: no earlier table for a paper stays beside the new summary.
  const broken: Experiment = { ...LIST[0], id: "bm25-greekstemmer", run: async () => Promise.reject(new Error("broken")) };
  const none = await reproduce(loaded, { outRoot, experiments: [broken], replace: true });
  assert.deepEqual((await fs.readdir(none.outDir)).sort(), none.files.map((f) => f.replace(/\/$/, "")).sort());
  assert.ok(!none.files.includes("tables.tex"));
});

test("readRun(outDir, id) finds a repeated experiment's run: sample 0's, which stands for it", async () => {
  const outRoot = path.join(tmp, "repeat");
  const flakyFree: Experiment = { ...LIST[0], needs: ["llm"] };
  const r = await reproduce(loaded, { outRoot, experiments: [flakyFree], repeat: 2 });
  assert.deepEqual((await fs.readdir(path.join(r.outDir, "runs"))).sort(), ["bm25-greekstemmer.s0.json", "bm25-greekstemmer.s0.trec", "bm25-greekstemmer.s1.json", "bm25-greekstemmer.s1.trec"]);
  assert.equal(findRunFile(r.outDir, "bm25-greekstemmer"), path.join(r.outDir, "runs", "bm25-greekstemmer.s0.json"));
  const run = await readRun(r.outDir, "bm25-greekstemmer");
  assert.equal(run.rankings.size, loaded.benchmark.queries.length);
});

test("an experiment that cannot run now keeps its earlier result, marked, and counts as skipped", async () => {
  const outRoot = path.join(tmp, "skip");
  let server = true;
  const flaky: Experiment = {
    ...LIST[0],
    id: "needs-a-server",
    async run(ctx) {
      if (!server) throw new GbrError("no server configured: set GBR_TEST_URL", "SKIP", { unavailable: true });
      return { run: await ctx.run("bm25-greekstemmer") };
    },
  };
  const list = [flaky, ...LIST.slice(1, 2)];
  const first = await reproduce(loaded, { outRoot, experiments: list });
  server = false;
  const again = await reproduce(loaded, { outRoot, experiments: list });
  const kept = again.outcomes.find((o) => o.id === "needs-a-server");
  assert.equal(kept?.status, "ok");
  assert.equal(kept?.earlier, true);
  assert.deepEqual(kept?.now, { status: "skipped", reason: "no server configured: set GBR_TEST_URL" });
  assert.deepEqual(kept?.mean, first.outcomes[0].mean);
  const text = formatReproduceSummary(loaded, again);
  assert.match(text, /needs-a-server — skipped now \(the earlier result is kept\): no server configured: set GBR_TEST_URL/);
  assert.match(text, /1 ran, 1 skipped, 0 failed; 1 kept from an earlier run/);
  // Its record is still the earlier one: a third run, with the server back or not, still has it.
  const third = await reproduce(loaded, { outRoot, experiments: list, only: ["bm25-grnlp"] });
  assert.deepEqual(third.outcomes.find((o) => o.id === "needs-a-server")?.mean, first.outcomes[0].mean);
  // A run that fails keeps the earlier result too, and says so.
  const broken: Experiment = { ...flaky, run: async () => Promise.reject(new Error("the server answered 500")) };
  const failed = await reproduce(loaded, { outRoot, experiments: [broken, list[1]], only: ["needs-a-server"] });
  const kept2 = failed.outcomes.find((o) => o.id === "needs-a-server");
  assert.equal(kept2?.status, "ok");
  assert.deepEqual(kept2?.now, { status: "failed", reason: "the server answered 500" });
  assert.match(formatReproduceSummary(loaded, failed), /needs-a-server — failed now \(the earlier result is kept\): the server answered 500/);
});

test("a folder written with the older file names (the id itself, colon and all) is read, and a rerun leaves none of its files behind", async () => {
  const outRoot = path.join(tmp, "old-names");
  const first = await reproduce(loaded, { outRoot, experiments: LIST, only: ["rrf:bm25-greekstemmer+lsi", "lsi"] });
  // As an older version wrote it: runs/<id>.trec and .json, experiments/<id with ':' as '_'>.json, no files, no ranAt.
  const dir = first.outDir;
  const record = JSON.parse(await fs.readFile(path.join(dir, "experiments", "rrf__bm25-greekstemmer+lsi.json"), "utf8"));
  delete record.ranAt;
  for (const s of record.samples) delete s.files;
  await fs.rm(path.join(dir, "experiments", "rrf__bm25-greekstemmer+lsi.json"));
  await fs.writeFile(path.join(dir, "experiments", "rrf_bm25-greekstemmer+lsi.json"), JSON.stringify(record));
  await fs.rename(path.join(dir, "runs", "rrf__bm25-greekstemmer+lsi.trec"), path.join(dir, "runs", "rrf:bm25-greekstemmer+lsi.trec"));
  await fs.rename(path.join(dir, "runs", "rrf__bm25-greekstemmer+lsi.json"), path.join(dir, "runs", "rrf:bm25-greekstemmer+lsi.json"));
  const kept = await reproduce(loaded, { outRoot, experiments: LIST, only: ["lsi"] });
  assert.deepEqual(kept.outcomes.find((o) => o.id === "rrf:bm25-greekstemmer+lsi")?.mean, first.outcomes.find((o) => o.id === "rrf:bm25-greekstemmer+lsi")?.mean);
  await reproduce(loaded, { outRoot, experiments: LIST, only: ["rrf:bm25-greekstemmer+lsi"] });
  assert.deepEqual((await fs.readdir(path.join(dir, "runs"))).sort(), ["lsi.json", "lsi.trec", "rrf__bm25-greekstemmer+lsi.json", "rrf__bm25-greekstemmer+lsi.trec"]);
  assert.deepEqual((await fs.readdir(path.join(dir, "experiments"))).sort(), ["lsi.json", "rrf__bm25-greekstemmer+lsi.json"]);
});

test("issue 28: a full outputs disk stops the run, writes the tables of what finished, names the folder; the same call continues", async () => {
  const outRoot = path.join(tmp, "full-out");
  const dir = path.join(outRoot, "sample");
  // The outputs disk fills up as lsi's run is written: every new file there fails as write(2) does then.
  const { open, writeFile } = fsSync.promises;
  const full = (file: unknown) => {
    if (String(file).startsWith(path.join(dir, "runs", "lsi"))) throw Object.assign(new Error(`ENOSPC: no space left on device, open '${String(file)}'`), { code: "ENOSPC" });
  };
  fsSync.promises.open = (async (file: fsSync.PathLike, ...rest: unknown[]) => {
    full(file);
    return (open as (...a: unknown[]) => Promise<fsSync.promises.FileHandle>)(file, ...rest);
  }) as typeof open;
  fsSync.promises.writeFile = (async (file: fsSync.PathLike, ...rest: unknown[]) => {
    full(file);
    return (writeFile as (...a: unknown[]) => Promise<void>)(file, ...rest);
  }) as typeof writeFile;
  try {
    await assert.rejects(reproduce(loaded, { outRoot, experiments: LIST }), (e: unknown) => {
      assert.ok(e instanceof GbrError && e.code === "DISK_FULL", String(e));
      assert.equal(e.message, `no space left on the disk holding ${dir} (ENOSPC)`);
      assert.match(e.hint ?? "", /free some space there \(or give --out another folder\)/);
      return true;
    });
  } finally {
    Object.assign(fsSync.promises, { open, writeFile });
  }
  // What finished before the disk filled is in the tables; nothing ran after it; lsi left no half-written run.
  assert.deepEqual((await summaryOf(dir)).map((r) => r.experiment), ["bm25-greekstemmer", "bm25-grnlp"]);
  assert.deepEqual((await fs.readdir(path.join(dir, "runs"))).sort(), ["bm25-greekstemmer.json", "bm25-greekstemmer.trec", "bm25-grnlp.json", "bm25-grnlp.trec"]);
  const ranAt = async (id: string) => JSON.parse(await fs.readFile(path.join(dir, "experiments", `${id}.json`), "utf8")).ranAt as string;
  const kept = await ranAt("bm25-greekstemmer");

  const lines: string[] = [];
  const again = await reproduce(loaded, { outRoot, experiments: LIST, log: (m) => lines.push(m) });
  assert.ok(lines.some((l) => /^continuing the run started \S+ \(interrupted\): 2 experiments it finished kept \(bm25-greekstemmer, bm25-grnlp\)$/.test(l)), lines.join("\n"));
  assert.equal(await ranAt("bm25-greekstemmer"), kept, "not run again");
  assert.deepEqual(again.outcomes.map((o) => [o.id, o.status, o.earlier ?? false]), IDS.map((id) => [id, "ok", false]));
  const whole = await reproduce(loaded, { outRoot: path.join(tmp, "full-out-whole"), experiments: LIST });
  const metrics = (rows: Record<string, string>[]) => rows.map((r) => [r.experiment, r["nDCG@10"], r["Recall@100"], r["MAP@100"]]);
  assert.deepEqual(metrics(await summaryOf(dir)), metrics(await summaryOf(whole.outDir)));
  assert.ok(!fsSync.existsSync(path.join(dir, "unfinished.json")));
  assert.deepEqual((await fs.readdir(dir)).sort(), again.files.map((f) => f.replace(/\/$/, "")).sort(), "every file listed");
});

test("an unfinished run is continued only with the same settings: with others, every experiment runs again", async () => {
  const outRoot = path.join(tmp, "other-settings");
  const stop: Experiment = { ...LIST[2], run: async () => Promise.reject(new Error("never reached")) };
  // An unfinished first run: its mark and one finished experiment, as a kill after bm25-greekstemmer leaves them.
  const first = await reproduce(loaded, { outRoot, experiments: [LIST[0], stop] });
  await fs.writeFile(path.join(first.outDir, "unfinished.json"), JSON.stringify({ startedAt: "2000-01-01T00:00:00.000Z", settings: { repeat: 9 } }));
  const lines: string[] = [];
  await reproduce(loaded, { outRoot, experiments: [LIST[0]], log: (m) => lines.push(m) });
  assert.ok(lines.some((l) => l.endsWith("unfinished.json: an unfinished run with other settings; not continued (its experiments run again)")), lines.join("\n"));
  assert.ok(!lines.some((l) => l.startsWith("continuing")));
});
