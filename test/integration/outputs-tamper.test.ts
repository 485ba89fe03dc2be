/**
 * Issue 29, rows 1, 2, 8, 10 and 11 (part): an outputs folder someone else could write. Paths a record names stay
 * inside the folder, no write follows a planted link out, a damaged run file is not restored as if whole, concurrent
 * runs into one folder lose no row, and malformed records or significance.json give errors naming file and field.
 */
import assert from "node:assert/strict";
import { existsSync, promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { loadBenchmark, type LoadedBenchmark } from "../../lib/data/source";
import { experiments } from "../../lib/experiments/registry";
import { reproduce } from "../../lib/experiments/reproduce";
import { planReproduce } from "../../lib/experiments/plan";
import { parseCsvRecords } from "../../lib/util/csv";
import { readReportInputs } from "../../lib/report/report-inputs";
import { writeReport } from "../../lib/report/html";
import { formatReproduceSummary } from "../../lib/cli/print-reproduce";
import { FileLocks } from "../../lib/util/file-lock";
import { GbrError } from "../../lib/util/errors";
import { runGbr } from "../helpers/gbr";

const IDS = ["bm25-greekstemmer", "bm25-grnlp", "lsi"];
const LIST = experiments({ rerankers: [] }).filter((e) => IDS.includes(e.id));

let tmp = "";
let loaded: LoadedBenchmark;
const saved = process.env.GBR_DATA_DIR;

before(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-tamper-"));
  process.env.GBR_DATA_DIR = path.join(tmp, "data");
  loaded = await loadBenchmark("sample");
});
after(async () => {
  process.env.GBR_DATA_DIR = saved;
  await fs.rm(tmp, { recursive: true, force: true });
});

const summaryOf = async (dir: string) => parseCsvRecords(await fs.readFile(path.join(dir, "summary.csv"), "utf8"));
const editRecord = async (dir: string, id: string, edit: (r: Record<string, any>) => void) => {
  const file = path.join(dir, "experiments", `${id}.json`);
  const record = JSON.parse(await fs.readFile(file, "utf8"));
  edit(record);
  await fs.writeFile(file, JSON.stringify(record));
};

test("row 1: a record naming ../../victim neither deletes nor reads outside the folder, with or without --replace", async () => {
  const base = path.join(tmp, "traversal");
  const outRoot = path.join(base, "out");
  const first = await reproduce(loaded, { outRoot, experiments: LIST });
  const dir = first.outDir;
  // Beside the outputs: a folder, and a run file that would be read as lsi's if the record were followed.
  await fs.mkdir(path.join(base, "victim"));
  await fs.writeFile(path.join(base, "victim", "keep.txt"), "mine\n");
  const foreign = (await fs.readFile(path.join(dir, "runs", "bm25-grnlp.trec"), "utf8")).replaceAll("bm25-grnlp", "lsi");
  await fs.writeFile(path.join(base, "victim.trec"), foreign);
  await editRecord(dir, "lsi", (r) => (r.samples[0].files = ["../../victim.trec", "../../victim"]));

  const notes: string[] = [];
  const again = await reproduce(loaded, { outRoot, experiments: LIST, only: ["bm25-greekstemmer"], log: (m) => notes.push(m) });
  assert.equal(await fs.readFile(path.join(base, "victim.trec"), "utf8"), foreign, "the outside file is still there");
  assert.equal(await fs.readFile(path.join(base, "victim", "keep.txt"), "utf8"), "mine\n");
  const lsi = again.outcomes.find((o) => o.id === "lsi");
  assert.deepEqual(lsi?.mean, first.outcomes.find((o) => o.id === "lsi")?.mean, "lsi ran again: no row from the outside run");
  assert.notEqual(lsi?.earlier, true);
  assert.ok(
    notes.some((n) => n.includes(path.join(dir, "experiments", "lsi.json")) && /samples\[0\]\.files\[0\].*not a path inside/.test(n)),
    notes.join("\n"),
  );

  await editRecord(dir, "bm25-greekstemmer", (r) => (r.samples[0].files = ["../../victim", "/etc/hostname"]));
  await reproduce(loaded, { outRoot, experiments: LIST, only: ["lsi"], replace: true });
  assert.equal(await fs.readFile(path.join(base, "victim", "keep.txt"), "utf8"), "mine\n", "--replace deleted a folder outside");
  assert.ok(existsSync(path.join(base, "victim.trec")));
});

test("row 8: a plan.json planted as a link is replaced, its target kept", async () => {
  const base = path.join(tmp, "plan-link");
  const outRoot = path.join(base, "out");
  const dir = path.join(outRoot, "sample");
  await fs.mkdir(dir, { recursive: true });
  const target = path.join(base, "target");
  await fs.writeFile(target, "theirs\n");
  await fs.symlink(target, path.join(dir, "plan.json"));
  const { file } = await planReproduce(loaded, { outRoot, experiments: LIST });
  assert.equal(file, path.join(dir, "plan.json"));
  assert.equal(await fs.readFile(target, "utf8"), "theirs\n");
  assert.ok((await fs.lstat(file)).isFile());
  assert.ok(JSON.parse(await fs.readFile(file, "utf8")).total);
});

test("row 8: links planted in the folder are replaced, never written through; a linked runs/ folder is refused", async () => {
  const base = path.join(tmp, "links");
  const outRoot = path.join(base, "out");
  const first = await reproduce(loaded, { outRoot, experiments: LIST });
  const dir = first.outDir;
  const planted = ["tables.tex", "summary.csv", "significance.json", "runs/lsi.trec", "experiments/lsi.json", "report.html"];
  for (const [i, name] of planted.entries()) {
    const target = path.join(base, `target${i}`);
    await fs.writeFile(target, "theirs\n");
    await fs.rm(path.join(dir, name), { force: true });
    await fs.symlink(target, path.join(dir, name));
  }
  await reproduce(loaded, { outRoot, experiments: LIST });
  await writeReport(dir);
  for (const [i, name] of planted.entries()) {
    assert.equal(await fs.readFile(path.join(base, `target${i}`), "utf8"), "theirs\n", `${name}'s target was overwritten`);
    assert.ok((await fs.lstat(path.join(dir, name))).isFile(), `${name} is the folder's own file again`);
  }

  // Nor does the report read through one.
  await fs.writeFile(path.join(base, "outside.csv"), "experiment\nnot-ours\n");
  await fs.rm(path.join(dir, "per-query.csv"));
  await fs.symlink(path.join(base, "outside.csv"), path.join(dir, "per-query.csv"));
  await assert.rejects(readReportInputs(dir), /per-query\.csv leads out of /);
  await fs.rm(path.join(dir, "per-query.csv"));

  // A runs/ folder that is a link out: nothing is written or removed there.
  const elsewhere = path.join(base, "elsewhere");
  await fs.mkdir(elsewhere);
  await fs.writeFile(path.join(elsewhere, "lsi.trec"), "theirs\n");
  await fs.rm(path.join(dir, "runs"), { recursive: true });
  await fs.symlink(elsewhere, path.join(dir, "runs"));
  await assert.rejects(reproduce(loaded, { outRoot, experiments: LIST, only: ["lsi"] }), /runs.* leads out of /);
  assert.deepEqual(await fs.readdir(elsewhere), ["lsi.trec"]);
  assert.equal(await fs.readFile(path.join(elsewhere, "lsi.trec"), "utf8"), "theirs\n");
  // --replace removes the link itself, not what it points to.
  await reproduce(loaded, { outRoot, experiments: LIST, only: ["lsi"], replace: true });
  assert.deepEqual(await fs.readdir(elsewhere), ["lsi.trec"]);
  assert.ok((await fs.lstat(path.join(dir, "runs"))).isDirectory());
});

test("row 2: a run file cut at a line end is not restored: it runs again, and the note names it", async () => {
  const outRoot = path.join(tmp, "cut");
  const first = await reproduce(loaded, { outRoot, experiments: LIST });
  const dir = first.outDir;
  const whole = first.outcomes.find((o) => o.id === "bm25-grnlp")?.mean;
  for (const legacy of [false, true]) {
    const file = path.join(dir, "runs", "bm25-grnlp.trec");
    const lines = (await fs.readFile(file, "utf8")).split("\n");
    await fs.writeFile(file, lines.slice(0, Math.floor(lines.length / 2)).join("\n") + "\n");
    // An older record names no digest: the stored mean still tells.
    if (legacy) await editRecord(dir, "bm25-grnlp", (r) => delete r.samples[0].sha256);
    const notes: string[] = [];
    const again = await reproduce(loaded, { outRoot, experiments: LIST, only: ["lsi"], log: (m) => notes.push(m) });
    const row = again.outcomes.find((o) => o.id === "bm25-grnlp");
    assert.deepEqual(row?.mean, whole, `legacy ${legacy}: not the cut file's numbers`);
    assert.notEqual(row?.earlier, true, "run again, not restored");
    assert.ok(notes.some((n) => n.includes(file) && /damaged/.test(n)), notes.join("\n"));
  }
});

test("row 11: malformed records are named with the field, left out or run again; no TypeError", async () => {
  const outRoot = path.join(tmp, "malformed");
  const first = await reproduce(loaded, { outRoot, experiments: LIST });
  const dir = first.outDir;
  await editRecord(dir, "bm25-greekstemmer", (r) => (r.seconds = "fast"));
  await editRecord(dir, "bm25-grnlp", (r) => (r.samples[0].mean = { "nDCG@10": "high" }));
  await fs.writeFile(path.join(dir, "experiments", "x.json"), JSON.stringify({ id: 5, samples: [] }));
  const notes: string[] = [];
  const again = await reproduce(loaded, { outRoot, experiments: LIST, only: ["lsi"], log: (m) => notes.push(m) });
  formatReproduceSummary(loaded, again);
  const named = (file: string, field: string) => notes.some((n) => n.includes(path.join(dir, "experiments", file)) && n.includes(field));
  assert.ok(named("bm25-greekstemmer.json", '"seconds"'), notes.join("\n"));
  assert.ok(named("bm25-grnlp.json", '"samples[0].mean.nDCG@10"'), notes.join("\n"));
  assert.ok(named("x.json", '"id"'), notes.join("\n"));
  // Deeper fields too: what a cost table would read.
  await reproduce(loaded, { outRoot, experiments: LIST });
  await editRecord(dir, "bm25-grnlp", (r) => (r.samples[0].cost = { online: { seconds: "x" } }));
  notes.length = 0;
  formatReproduceSummary(loaded, await reproduce(loaded, { outRoot, experiments: LIST, only: ["lsi"], log: (m) => notes.push(m) }));
  assert.ok(named("bm25-grnlp.json", '"samples[0].cost.online.seconds"'), notes.join("\n"));

  const sig = path.join(dir, "significance.json");
  await fs.writeFile(sig, JSON.stringify({ paper: { tests: [{ a: 5, b: null, metric: "nDCG@10" }] }, baseline: null }));
  await assert.rejects(readReportInputs(dir), (e: unknown) => {
    assert.ok(!(e instanceof TypeError), String(e));
    assert.match(String((e as Error).message), new RegExp(`${sig.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: "paper.tests\\[0\\].a"`));
    return true;
  });
  await fs.rm(sig);
  // summary.csv without the column its rows are found by: named, not a TypeError in the page.
  await fs.writeFile(path.join(dir, "summary.csv"), "name,status\nlsi,ok\n");
  await assert.rejects(writeReport(dir), (e: unknown) => {
    assert.ok(!(e instanceof TypeError), String(e));
    assert.equal((e as Error).message, `${path.join(dir, "summary.csv")}: no "experiment" column (expected the header gbr reproduce writes)`);
    return true;
  });
});

test("row 10: gbr report reads a folder while reproduce rewrites it: whole files only, no crash", async () => {
  const out = path.join(tmp, "reading");
  const dir = path.join(out, "sample");
  await reproduce(loaded, { outRoot: out, experiments: LIST });
  const writer = (async () => {
    for (let i = 0; i < 3; i++) await runGbr(["reproduce", "--data", "sample", "--out", out], { dataDir: path.join(tmp, "data") });
  })();
  let done = false;
  void writer.finally(() => (done = true));
  let reads = 0;
  try {
    while (!done) {
      await readReportInputs(dir);
      reads++;
    }
  } finally {
    await writer;
  }
  assert.ok(reads > 3, `${reads} reads`);
});

test("row 10: three concurrent reproduces into one folder lose no row; one that cannot go on says why", async () => {
  const out = path.join(tmp, "concurrent");
  const only = [["bm25-greekstemmer"], ["bm25-grnlp"], ["lsi"]];
  const runs = await Promise.all(only.map((ids) => runGbr(["reproduce", "--data", "sample", "--out", out, "--only", ids.join(",")], { dataDir: path.join(tmp, "data") })));
  const rows = (await summaryOf(path.join(out, "sample"))).map((r) => r.experiment);
  for (const [i, r] of runs.entries()) {
    if (r.code === 0) assert.ok(rows.includes(only[i][0]), `${only[i][0]} ran (exit 0) but its row is missing: ${rows.join(", ")}`);
    else {
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, new RegExp(`another gbr reproduce is writing ${path.join(out, "sample").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\(pid \\d+`));
    }
  }
  assert.ok(runs.some((r) => r.code === 0));
});

test("row 10: a folder another run keeps writing is refused after a bounded wait, naming it and that run's pid", async () => {
  const outRoot = path.join(tmp, "busy");
  const dir = path.join(outRoot, "sample");
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(path.join(dir, "unfinished.json"), JSON.stringify({ startedAt: new Date().toISOString(), pid: 4242, settings: {} }));
  let release!: () => void;
  const holding = new Promise<void>((r) => (release = r));
  let taken!: () => void;
  const isTaken = new Promise<void>((r) => (taken = r));
  const held = new FileLocks().run(path.join(dir, ".reproduce.lock"), () => (taken(), holding));
  await isTaken; // the other run holds the lock before this one starts
  const waits: string[] = [];
  const t0 = Date.now();
  try {
    await assert.rejects(reproduce(loaded, { outRoot, experiments: LIST, log: (m) => waits.push(m) }), (e: unknown) => {
      assert.ok(e instanceof GbrError && e.code === "USAGE", String(e));
      assert.equal(e.message, `another gbr reproduce is writing ${dir} (pid 4242)`);
      assert.match(e.hint ?? "", /wait for it to finish, or give another --out/);
      return true;
    });
  } finally {
    release();
    await held;
  }
  const waited = (Date.now() - t0) / 1000;
  assert.ok(waited >= 14 && waited < 30, `waited ${waited} s`);
  assert.ok(waits.some((m) => m.includes(`waiting for another process working on ${dir} (another gbr reproduce is writing it)`)), waits.join("\n"));
  assert.deepEqual(await fs.readdir(dir), ["unfinished.json"], "nothing written while refused");
  // Once the other run is done, the folder is this run's.
  const r = await reproduce(loaded, { outRoot, experiments: LIST });
  assert.deepEqual(r.outcomes.map((o) => o.status), ["ok", "ok", "ok"]);
});

test("issue 29, row 11: the library's reproduce and plan refuse a repeat past 1000 before anything runs or is written", async () => {
  const outRoot = path.join(tmp, "repeat-lib");
  for (const repeat of [1_000_000, 0, 2.5]) {
    await assert.rejects(reproduce(loaded, { outRoot, experiments: LIST, repeat }), (e: GbrError) => e.code === "USAGE" && /repeat must be a whole number from 1 to 1000/.test(e.message));
    await assert.rejects(planReproduce(loaded, { outRoot, experiments: LIST, repeat }), (e: GbrError) => e.code === "USAGE");
  }
  assert.equal(existsSync(outRoot), false, "nothing written");
});
