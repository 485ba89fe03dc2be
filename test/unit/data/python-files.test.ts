/**
 * Files the Python IR tools read (issue 23, item 3): the BEIR folder as beir's GenericDataLoader reads it (by "_id",
 * "title", "text"), ranx's JSON run `{qid: {docid: score}}` written and read back, and run files named so that every
 * common file system accepts them, with the experiment id kept inside (the TREC tag) and in summary.csv.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { readBeir, writeBeir } from "../../../lib/data/beir";
import { findRunFile, readJsonRun, readRun, runName, writeRun } from "../../../lib/data/runs";
import { fileNameOf, idOfFileName } from "../../../lib/util/file-name";
import { main } from "../../../lib/cli/main";
import { parseCsvRecords } from "../../../lib/util/csv";
import type { Run } from "../../../lib/types";
import { REPO } from "../../helpers/shared";

let tmp = "";
const file = (name: string) => path.join(tmp, name);
const saved = { ...process.env };

before(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "gbr-pyfiles-"));
  Object.assign(process.env, { GBR_DATA_DIR: file("data"), HF_ENDPOINT: "http://unreachable.invalid", GBR_SPACY_BASE_URL: "http://unreachable.invalid" });
});
after(() => {
  process.env = saved;
  rmSync(tmp, { recursive: true, force: true });
});

async function gbr(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await main(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), stdin: async () => "" });
  return { code, stdout, stderr };
}

// ---------------------------------------------------------------------------------------------
// BEIR

/**
 * What beir's GenericDataLoader.load("test") does with a folder, step for step: corpus[line["_id"]] = {text, title},
 * queries[line["_id"]] = text, the qrels TSV after its header as {query: {doc: int(score)}}, then only the queries
 * with qrels. A missing key reads as undefined where Python's dict.get gives None.
 */
function beirLoad(dir: string) {
  const jsonl = (f: string) => readFileSync(path.join(dir, f), "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Record<string, unknown>);
  const corpus = new Map<unknown, { text: unknown; title: unknown }>();
  for (const line of jsonl("corpus.jsonl")) corpus.set(line._id, { text: line.text, title: line.title });
  const queries = new Map<unknown, unknown>();
  for (const line of jsonl("queries.jsonl")) queries.set(line._id, line.text);
  const qrels = new Map<string, Map<string, number>>();
  for (const row of readFileSync(path.join(dir, "qrels", "test.tsv"), "utf8").split("\n").slice(1).filter(Boolean)) {
    const [q, d, score] = row.split("\t");
    if (!qrels.has(q)) qrels.set(q, new Map());
    qrels.get(q)!.set(d, parseInt(score, 10));
  }
  return { corpus, allQueries: queries, queries: new Map([...qrels.keys()].map((q) => [q, queries.get(q)])), qrels };
}

test("data/sample and a folder writeBeir wrote load in beir's way: every id, title and text, nothing under None", async () => {
  const sample = path.join(REPO, "data", "sample");
  const bench = await readBeir(sample);
  const out = file("beir");
  await writeBeir(out, bench);
  for (const dir of [sample, out]) {
    const { corpus, allQueries, queries, qrels } = beirLoad(dir);
    assert.ok(!corpus.has(undefined) && !allQueries.has(undefined), `${dir}: a record without "_id"`);
    assert.equal(corpus.size, bench.docs.length, `${dir}: one corpus entry per article (not one collapsed None key)`);
    for (const d of bench.docs) assert.deepEqual(corpus.get(d.id), { text: d.text, title: "" }, d.id);
    assert.deepEqual([...queries.keys()], bench.queries.map((q) => q.id));
    for (const q of bench.queries) assert.equal(queries.get(q.id), q.text);
    for (const [q, gold] of bench.qrels) assert.deepEqual([...qrels.get(q)!], [...gold].map((d) => [d, 1]));
  }
  // And the project reads its own output back unchanged.
  const back = await readBeir(out);
  assert.deepEqual(back.docs, bench.docs);
  assert.deepEqual(back.queries, bench.queries);
  assert.deepEqual(back.qrels, bench.qrels);
});

// ---------------------------------------------------------------------------------------------
// ranx JSON runs

const RUN: Run = {
  rankings: new Map([["q2", ["ΑΚ::914", "10", "d:3"]], ["10", ["x"]], ["q1", []]]),
  scores: new Map([["q2", [12.5, 3, 3]], ["10", [-0.25]], ["q1", []]]),
};

test("a ranx JSON run round-trips: queries, order and scores, and JSON.parse gives ranx's {qid: {docid: score}}", async () => {
  await writeRun(file("run.json"), RUN, "ranx", "");
  const text = readFileSync(file("run.json"), "utf8");
  const parsed = JSON.parse(text) as Record<string, Record<string, number>>;
  // Nothing but queries at the top, numbers below: what ranx's Run.from_file and pytrec_eval take as is.
  assert.deepEqual(Object.keys(parsed).sort(), ["10", "q1", "q2"]);
  assert.deepEqual(parsed.q2, { "ΑΚ::914": 12.5, "10": 3, "d:3": 3 });
  assert.equal(text.split("\n")[1], '"q2": {"ΑΚ::914": 12.5, "10": 3, "d:3": 3},', "run order in the file, integer-like ids included");
  const back = await readJsonRun(file("run.json"));
  assert.deepEqual(back.rankings, RUN.rankings, "equal scores keep the file's order");
  assert.deepEqual(back.scores, RUN.scores);
  assert.deepEqual([...back.rankings.keys()], ["q2", "10", "q1"]);
  // Through readRun (by extension) too.
  assert.deepEqual((await readRun(file("run.json"))).rankings, RUN.rankings);
});

test("ranx JSON as Python writes it: ranked by score whatever the key order; the bare list form is still read", async () => {
  writeFileSync(file("py.json"), JSON.stringify({ q_1: { d_1: 1.5, d_2: 2.6 }, q_2: { d_3: 2.8, d_2: 1.2, d_5: 3.1 } }, null, 4));
  const run = await readJsonRun(file("py.json"));
  assert.deepEqual([...run.rankings], [["q_1", ["d_2", "d_1"]], ["q_2", ["d_5", "d_3", "d_2"]]]);
  assert.deepEqual(run.scores!.get("q_2"), [3.1, 2.8, 1.2]);
  writeFileSync(file("bare.json"), '{"q1": ["b", "a"]}\n');
  const bare = await readJsonRun(file("bare.json"));
  assert.deepEqual(bare.rankings.get("q1"), ["b", "a"]);
  assert.equal(bare.scores, undefined);
});

test("ranx JSON errors name the line: a shape mixed with the other, a score that is not a number, a doc twice", async () => {
  writeFileSync(file("mixed.json"), '{\n"q1": {"a": 1},\n"q2": ["b"]\n}\n');
  await assert.rejects(readJsonRun(file("mixed.json")), /mixed\.json:3: query 'q2': expected an object \{docid: score\} like the queries before it/);
  writeFileSync(file("text.json"), '{\n"q1": {"a": "1.5"}\n}\n');
  await assert.rejects(readJsonRun(file("text.json")), /text\.json:2: query 'q1': the score of 'a' is "1\.5", not a number/);
  writeFileSync(file("dup.json"), '{"q1": {"a": 2, "a": 1}}');
  await assert.rejects(readJsonRun(file("dup.json")), /document 'a' listed twice for query 'q1'/);
});

test("gbr search --format ranx writes ranx's shape with the retriever's scores; gbr eval reads it as it reads TREC", async () => {
  const base = ["search", "--data", "sample", "--retriever", "bm25-greekstemmer", "-q"];
  assert.equal((await gbr([...base, "--out", file("bm25.trec")])).code, 0);
  const r = await gbr([...base, "--format", "ranx", "--out", file("bm25.json")]);
  assert.equal(r.code, 0, r.stderr);
  const trec = await readRun(file("bm25.trec"));
  const ranx = await readRun(file("bm25.json"));
  assert.deepEqual(ranx.rankings, trec.rankings);
  assert.deepEqual(ranx.scores, trec.scores);
  const qrels = path.join(REPO, "data", "sample", "qrels", "test.tsv");
  const a = await gbr(["eval", "--qrels", qrels, "--run", file("bm25.trec"), "--json"]);
  const b = await gbr(["eval", "--qrels", qrels, "--run", file("bm25.json"), "--json"]);
  assert.equal(b.code, 0, b.stderr);
  assert.equal(a.stdout, b.stdout);
  const stdout = await gbr([...base, "--format", "ranx"]);
  assert.deepEqual(Object.keys(JSON.parse(stdout.stdout) as object).length, 26);
  const bad = await gbr([...base, "--format", "ranks"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--format must be trec, json or ranx, got 'ranks' \(did you mean 'ranx'\?\)/);
});

// ---------------------------------------------------------------------------------------------
// File names

test("fileNameOf: readable, accepted by every common file system, one name per id, and back", () => {
  const table: [string, string][] = [
    ["bm25-greekstemmer", "bm25-greekstemmer"],
    ["oracle:bm25-greekstemmer", "oracle__bm25-greekstemmer"],
    ["rrf:bm25-greekstemmer+dense:qwen3-8b", "rrf__bm25-greekstemmer+dense__qwen3-8b"],
    ["rerank:bge-reranker-v2-m3:bm25-greekstemmer", "rerank__bge-reranker-v2-m3__bm25-greekstemmer"],
    ["dense:qwen3-0.6b", "dense__qwen3-0.6b"],
    ["my_run", "my_run"],
    ["a__b", "a%5F%5Fb"],
    ["a_:b", "a%5F__b"],
    ["x/y\\z?*", "x%2Fy%5Cz%3F%2A"],
    ['<a>|"b"', "%3Ca%3E%7C%22b%22"],
    ["100%", "100%25"],
    ["ends.", "ends%2E"],
    ["con", "%63on"],
    ["NUL", "%4EUL"],
    ["lpt1:x", "lpt1__x"],
    ["a b\tc", "a%20b%09c"],
    ["ΑΚ:914", "ΑΚ__914"],
  ];
  for (const [id, name] of table) {
    assert.equal(fileNameOf(id), name, id);
    assert.equal(idOfFileName(name), id, name);
    assert.doesNotMatch(name, /[<>:"/\\|?*\u0000-\u001f]|[. ]$/, `${name} has a character some file system refuses`);
    assert.doesNotMatch(name, /^(con|prn|aux|nul|com\d|lpt\d)(\.|$)/i, `${name} is a reserved Windows name`);
  }
  const ids = ["a:b", "a__b", "a_:b", "a:_b", "a::b", "a____b", "a%3Ab", "a_b", "a:b:", "a.:b"];
  assert.equal(new Set(ids.map(fileNameOf)).size, ids.length, "no two ids share a name");
  for (const id of ids) assert.equal(idOfFileName(fileNameOf(id)), id);
  assert.throws(() => fileNameOf(""), RangeError);
});

test("gbr reproduce names run files safely, keeps the id in the TREC tag and summary.csv; readers find runs by id", async () => {
  const out = file("outputs");
  const id = "rrf:bm25-greekstemmer+lsi";
  const r = await gbr(["reproduce", "--data", "sample", "--out", out, "--only", `bm25-greekstemmer,lsi,${id}`, "-q"]);
  assert.equal(r.code, 0, r.stderr);
  const dir = path.join(out, "sample");
  const trec = path.join(dir, "runs", "rrf__bm25-greekstemmer+lsi.trec");
  const json = path.join(dir, "runs", "rrf__bm25-greekstemmer+lsi.json");
  assert.ok(existsSync(trec) && existsSync(json) && existsSync(path.join(dir, "experiments", "rrf__bm25-greekstemmer+lsi.json")));
  assert.ok(readFileSync(trec, "utf8").trimEnd().split("\n").every((l) => l.endsWith(` ${id}`)), "every line's tag is the experiment id");
  const ranx = JSON.parse(readFileSync(json, "utf8")) as Record<string, Record<string, number>>;
  assert.ok(Object.values(ranx).every((docs) => Object.values(docs).every((s) => typeof s === "number")), "runs/*.json is ranx's shape");
  const summary = parseCsvRecords(readFileSync(path.join(dir, "summary.csv"), "utf8"));
  const row = summary.find((s) => s.experiment === id)!;
  assert.equal(row.runFile, "rrf__bm25-greekstemmer+lsi");
  assert.equal(summary.find((s) => s.experiment === "lsi")!.runFile, "lsi");
  // Read back by id; the TREC file's name in gbr compare is the id in its tag.
  const fused = await readRun(dir, id);
  assert.deepEqual(fused.rankings, (await readRun(trec)).rankings);
  assert.equal(runName(trec, await readRun(trec)), id);
  assert.equal(runName(json, await readRun(json)), "rrf__bm25-greekstemmer+lsi", "a JSON run has no tag: its file name");
  const cmp = await gbr(["compare", "--qrels", path.join(dir, "qrels.txt"), "--run", path.join(dir, "runs", "bm25-greekstemmer.trec"), "--run", trec, "--swaps", "100", "--json", "--pair", `rrf__bm25-greekstemmer+lsi,bm25-greekstemmer`]);
  assert.equal(cmp.code, 0, cmp.stderr);
  assert.deepEqual([...new Set((JSON.parse(cmp.stdout) as { tests: { a: string; b: string }[] }).tests.map((t) => `${t.a} vs ${t.b}`))], [`${id} vs bm25-greekstemmer`]);
  // An outputs folder from before (the id as the file name, a bare JSON list) is still read.
  renameSync(json, path.join(dir, "runs", `${id}.json`));
  rmSync(trec);
  writeFileSync(path.join(dir, "runs", `${id}.json`), JSON.stringify(Object.fromEntries([...fused.rankings])));
  assert.equal(findRunFile(dir, id), path.join(dir, "runs", `${id}.json`));
  assert.deepEqual((await readRun(dir, id)).rankings, fused.rankings);
  assert.throws(() => findRunFile(dir, "no-such"), /no run of experiment 'no-such' \(looked for no-such\.json and no-such\.trec\)/);
});
