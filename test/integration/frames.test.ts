/**
 * The DataFrame views (lib/report/frames.ts) agree with the CSV files `reproduce` writes, cell
 * for cell: every table of a run with the offline methods, reformulation and REACT-BM25 (so the
 * cost and REACT tables exist), through the scripted chat double.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startOpenAIDouble, type OpenAIDouble } from "../fakes/openai-server";
import { scriptedModel } from "../fakes/scripted-model";
import { parseCsvRecords } from "../../lib/util/csv";
import { TABLE_FILES, type OutputTables } from "../../lib/experiments/output-tables";
import { frameRows, outputFrames, pivot, resultFrames, significanceRows, tableFrame, typedCells } from "../../lib/report/frames";
import type { ReproduceResult } from "../../lib/experiments/reproduce";

let tmp = "";
let api: OpenAIDouble;
let result: ReproduceResult;
const saved = { ...process.env };

before(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-frames-"));
  api = await startOpenAIDouble();
  api.chat(scriptedModel);
  Object.assign(process.env, {
    GBR_DATA_DIR: path.join(tmp, "data"),
    GBR_CHAT_BASE_URL: `${api.url}/v1`,
    GBR_CHAT_MODEL: "openai/gpt-oss-120b",
    GBR_SPACY_BASE_URL: "http://unreachable.invalid",
  });
  // Loaded after the environment is set: the data folder and providers are read at call time.
  const { loadBenchmark, reproduce } = await import("../../lib/index.js");
  const loaded = await loadBenchmark("sample");
  result = await reproduce(loaded, {
    outRoot: path.join(tmp, "out"),
    only: ["bm25-greekstemmer", "lsi", "prf:bm25-greekstemmer", "reform:bm25-greekstemmer", "react-bm25"],
    retrieverOptions: { rounds: 2 },
  });
});

after(async () => {
  process.env = saved;
  await api?.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

test("the run produced every table, the optional ones included", () => {
  assert.deepEqual(
    result.outcomes.filter((o) => o.status !== "ok").map((o) => `${o.id}: ${o.reason}`),
    [],
  );
  for (const key of Object.keys(TABLE_FILES)) assert.ok(result.tables[key as keyof OutputTables], key);
});

test("each DataFrame view equals its CSV file cell for cell (numbers as numbers, blanks as NaN or '')", async () => {
  const frames = resultFrames(result);
  for (const [key, file] of Object.entries(TABLE_FILES) as [keyof OutputTables, string][]) {
    const text = await fs.readFile(path.join(result.outDir, file), "utf8");
    const records = parseCsvRecords(text, file);
    const df = frames[key]!;
    assert.deepEqual(df.columns, text.split("\n", 1)[0].split(","), `${file}: columns`);
    const values = df.values as unknown[][];
    assert.equal(values.length, records.length, `${file}: rows`);
    records.forEach((rec, i) =>
      df.columns.forEach((c, j) => {
        const cell = values[i][j];
        const want = rec[c];
        if (typeof cell === "number") {
          if (Number.isNaN(cell)) assert.equal(want, "", `${file}:${i + 2} ${c}: NaN in the frame, '${want}' in the file`);
          else assert.equal(cell, Number(want), `${file}:${i + 2} ${c}`);
          // Numbers were written at full precision: the file's text is the number's own.
          if (!Number.isNaN(cell)) assert.equal(String(cell), want, `${file}:${i + 2} ${c}`);
        } else assert.equal(cell, want, `${file}:${i + 2} ${c}`);
      }),
    );
  }
});

test("the views read back from the folder equal the views of the result", async () => {
  const fromResult = resultFrames(result);
  const fromFiles = await outputFrames(result.outDir);
  for (const key of [...Object.keys(TABLE_FILES), "significance"] as (keyof typeof fromResult)[]) {
    assert.deepEqual(fromFiles[key]!.columns, fromResult[key]!.columns, key);
    assert.deepEqual(fromFiles[key]!.values, fromResult[key]!.values, key);
  }
  // significance.json: the paper's 20 tests, then the baseline family.
  const sig = JSON.parse(await fs.readFile(path.join(result.outDir, "significance.json"), "utf8"));
  assert.equal(fromFiles.significance.shape[0], 20 + (sig.baseline?.tests.length ?? 0));
  assert.deepEqual(significanceRows(sig).slice(0, 20).map((r) => r.pHolm), sig.paper.tests.map((t: { pHolm: number }) => t.pHolm));
});

test("per-query rows carry area, session and the gold articles' statutes; gold ranks agree with the runs", async () => {
  const f = resultFrames(result);
  const rows = frameRows(f.perQuery);
  const meta = (await fs.readFile(path.join(process.cwd(), "data", "sample", "meta.jsonl"), "utf8")).trim().split("\n").map((l) => JSON.parse(l));
  const q1 = meta[0];
  const row = rows.find((r) => r.experiment === "bm25-greekstemmer" && r.query === q1.id)!;
  assert.equal(row.area, q1.area);
  assert.equal(row.session, q1.date);
  assert.match(String(row.goldSources), /^\S+( \S+)*$/);
  // A gold article's rank is its place in the run file (1-based), blank when not in the top 100.
  // ranx's shape, {qid: {docid: score}}, documents in rank order.
  const run = JSON.parse(await fs.readFile(path.join(result.outDir, "runs", "lsi.json"), "utf8")) as Record<string, Record<string, number>>;
  for (const g of frameRows(f.goldRanks).filter((r) => r.experiment === "lsi")) {
    const at = Object.keys(run[g.query as string]).slice(0, 100).indexOf(g.article as string);
    assert.equal(g.rank, at < 0 ? undefined : at + 1, `${g.query} ${g.article}`);
  }
});

test("danfojs verbs work on the views: a group mean per area equals the mean computed by hand", () => {
  const f = resultFrames(result);
  // loc with a mask, not query(): danfojs makes each column a property, and "query" is a column here.
  const bm25 = f.perQuery.loc({ rows: f.perQuery["experiment"].eq("bm25-greekstemmer") });
  const grouped = frameRows(bm25.groupby(["area"]).col(["Recall@100"]).mean());
  const rows = frameRows(bm25);
  for (const g of grouped) {
    const vals = rows.filter((r) => r.area === g.area).map((r) => r["Recall@100"] as number);
    assert.ok(Math.abs((g["Recall@100_mean"] as number) - vals.reduce((s, v) => s + v, 0) / vals.length) < 1e-12, String(g.area));
  }
});

test("frameRows reads a Series as one column and a text index (describe()'s) as a first column named \"\"", () => {
  assert.deepEqual(frameRows({ columns: ["v"], values: [0.5, NaN], index: [0, 1] }), [{ v: 0.5 }, { v: undefined }]);
  assert.deepEqual(frameRows({ columns: ["a", "b"], values: [[1, 2], [3, NaN]], index: ["mean", "std"] }), [
    { "": "mean", a: 1, b: 2 },
    { "": "std", a: 3, b: undefined },
  ]);
  const described = frameRows(tableFrame({ columns: ["x"], rows: [[1], [2], [3]] }).describe());
  assert.equal(described.find((r) => r[""] === "mean")?.x, 2);
});

test("typing: names stay text, a blank number is NaN (danfojs would count a null as 0 in a group mean)", () => {
  assert.deepEqual(typedCells({ columns: ["query", "rank", "note", "disagree"], rows: [["17", 3, "", true], ["18", "", "x", "false"]] }), [
    ["17", 3, "", true],
    ["18", NaN, "x", false],
  ]);
  const df = tableFrame({ columns: ["area", "v"], rows: [["a", 1], ["a", ""], ["b", 3]] });
  assert.deepEqual(df.dropNa().groupby(["area"]).col(["v"]).mean().values, [["a", 1], ["b", 3]]);
  assert.deepEqual(tableFrame({ columns: ["a", "b"], rows: [] }).columns, ["a", "b"]);
});

test("pivot: a long table made wide, NaN where a combination is absent, an error on duplicates", () => {
  const long = tableFrame({ columns: ["area", "experiment", "v"], rows: [["civil", "A", 1], ["civil", "B", 2], ["criminal", "A", 3]] });
  const wide = pivot(long, { index: "area", columns: "experiment", values: "v" });
  assert.deepEqual(wide.columns, ["area", "A", "B"]);
  assert.deepEqual(wide.values, [["civil", 1, 2], ["criminal", 3, NaN]]);
  const dup = tableFrame({ columns: ["area", "experiment", "v"], rows: [["civil", "A", 1], ["civil", "A", 2]] });
  assert.throws(() => pivot(dup, { index: "area", columns: "experiment", values: "v" }), /two rows for area 'civil' and experiment 'A'/);
  assert.throws(() => pivot(long, { index: "area", columns: "method", values: "v" }), /no column 'method'/);
});
