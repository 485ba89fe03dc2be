import { test, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DataError } from "../../../lib/util/errors";
import { formatTrec, readJsonRun, readRun, readTrec, writeRun } from "../../../lib/data/runs";
import type { Run } from "../../../lib/types";
import { requireShared } from "../../helpers/shared";

const TMP = mkdtempSync(path.join(os.tmpdir(), "gbr-runs-test-"));
after(() => rmSync(TMP, { recursive: true, force: true }));

const tmp = (name: string) => path.join(TMP, name);
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** Matches a DataError naming `file` and `line`. */
const at = (file: string, line: number, rest = "") => new RegExp(`${esc(file)}:${line}: ${rest}`);

const SCORED: Run = {
  rankings: new Map([
    ["Q-N4765-16", ["N4831::40", "N4765::17", "N4765::16", "N4766::πρώτο", "N4858::15Α"]],
    ["q2", ["b", "a", "c"]],
    ["1", ["z"]],
  ]),
  scores: new Map([
    ["Q-N4765-16", [15.288897814976632, 15.204445423338907, 0.1 + 0.2, 1 / 3, 1e-7]],
    ["q2", [12, 12, -0.5]], // an integer score and a tie: order must still come from the rank column
    ["1", [5e-324]],
  ]),
};

test("TREC write -> read keeps query order, ranking order and scores exactly", async () => {
  const file = tmp("nested/dir/scored.trec");
  await writeRun(file, SCORED, "trec", "bm25");
  const text = readFileSync(file, "utf8");
  assert.match(text, /^Q-N4765-16 Q0 N4831::40 1 15\.288897814976632 bm25\n/);
  assert.ok(text.includes("Q-N4765-16 Q0 N4765::16 3 0.30000000000000004 bm25\n"), "full precision");
  assert.ok(text.includes("q2 Q0 b 1 12.0 bm25\n"), "integers printed as Python floats");
  const back = await readTrec(file);
  assert.deepEqual([...back.rankings.keys()], [...SCORED.rankings.keys()]);
  for (const [qid, ranking] of SCORED.rankings) {
    assert.deepEqual(back.rankings.get(qid), ranking, qid);
    const want = SCORED.scores!.get(qid)!;
    const got = back.scores!.get(qid)!;
    assert.equal(got.length, want.length);
    for (let i = 0; i < want.length; i++) assert.ok(Object.is(got[i], want[i]), `${qid}[${i}]: ${got[i]} !== ${want[i]}`);
  }
});

test("a run without scores is written with score 101 - rank", async () => {
  const run: Run = { rankings: new Map([["q1", ["d1", "d2", "d3"]], ["q2", ["e1"]]]) };
  assert.equal(formatTrec(run, "x"), "q1 Q0 d1 1 100 x\nq1 Q0 d2 2 99 x\nq1 Q0 d3 3 98 x\nq2 Q0 e1 1 100 x\n");
  const file = tmp("unscored.trec");
  await writeRun(file, run, "trec", "x");
  const back = await readTrec(file);
  assert.deepEqual(back.rankings, run.rankings);
  assert.deepEqual(back.scores!.get("q1"), [100, 99, 98]);
});

test("a 100-document run without scores goes down to score 1", () => {
  const ranking = Array.from({ length: 100 }, (_, i) => `d${i + 1}`);
  const lines = formatTrec({ rankings: new Map([["q", ranking]]) }, "t").trimEnd().split("\n");
  assert.equal(lines.length, 100);
  assert.equal(lines[99], "q Q0 d100 100 1 t");
});

test("a tag with whitespace is refused", () => {
  assert.throws(() => formatTrec(SCORED, "my run"), /whitespace/);
});

test("readTrec orders by the rank column even when lines are shuffled", async () => {
  const file = tmp("shuffled.trec");
  // Ranks disagree with both file order and score order; the rank column wins.
  writeFileSync(
    file,
    [
      "q1 Q0 c 3 9.0 t",
      "q2 Q0 y 2 1.0 t",
      "q1 Q0 a 1 1.0 t",
      "q1 Q0 d 10 50.0 t",
      "q2 Q0 x 1 0.5 t",
      "q1 Q0 b 2 7.5 t",
      "",
    ].join("\n"),
  );
  const run = await readTrec(file);
  assert.deepEqual([...run.rankings.keys()], ["q1", "q2"]);
  assert.deepEqual(run.rankings.get("q1"), ["a", "b", "c", "d"]);
  assert.deepEqual(run.scores!.get("q1"), [1, 7.5, 9, 50]);
  assert.deepEqual(run.rankings.get("q2"), ["x", "y"]);
});

test("readTrec breaks rank ties by score descending, then file order", async () => {
  const file = tmp("ties.trec");
  writeFileSync(file, "q Q0 a 1 1.0 t\nq Q0 b 1 3.0 t\nq Q0 c 1 2.0 t\nq Q0 d 1 2.0 t\n");
  assert.deepEqual((await readTrec(file)).rankings.get("q"), ["b", "c", "d", "a"]);
});

test("readTrec accepts tabs and runs of spaces between columns", async () => {
  const file = tmp("tabs.trec");
  writeFileSync(file, "q1\tQ0\ta\t1\t2.5\tt\n  q1   Q0  b  2  1.5  t  \n");
  const run = await readTrec(file);
  assert.deepEqual(run.rankings.get("q1"), ["a", "b"]);
});

test("a document listed twice for a query is an error naming the line", async () => {
  const file = tmp("dup.trec");
  writeFileSync(file, "q1 Q0 a 1 3.0 t\nq2 Q0 a 1 3.0 t\nq1 Q0 b 2 2.0 t\nq1 Q0 a 3 1.0 t\n");
  await assert.rejects(readTrec(file), (err: unknown) => {
    assert.ok(err instanceof DataError);
    assert.match(err.message, at(file, 4, "document 'a' listed twice for query 'q1' \\(first on line 1\\)"));
    return true;
  });
});

test("wrong column count is an error naming file and line", async () => {
  const file = tmp("cols.trec");
  writeFileSync(file, "q1 Q0 a 1 3.0 t\nq1 Q0 b 2 2.0\n");
  await assert.rejects(readTrec(file), at(file, 2, "expected 6 columns .*found 5"));
  writeFileSync(file, "q1 Q0 a 1 3.0 t extra\n");
  await assert.rejects(readTrec(file), at(file, 1, "expected 6 columns .*found 7"));
});

test("non-numeric rank or score is an error naming the line", async () => {
  const file = tmp("nan.trec");
  writeFileSync(file, "q1 Q0 a 1 3.0 t\nq1 Q0 b two 2.0 t\n");
  await assert.rejects(readTrec(file), at(file, 2, "rank and score must be numbers"));
});

test("JSON run write -> read keeps queries and rankings, one query per line", async () => {
  const file = tmp("sub/run.json");
  await writeRun(file, SCORED, "json", "");
  const lines = readFileSync(file, "utf8").split("\n");
  assert.equal(lines[0], "{");
  assert.equal(lines[1], '"Q-N4765-16": ["N4831::40","N4765::17","N4765::16","N4766::πρώτο","N4858::15Α"],');
  const back = await readJsonRun(file);
  assert.equal(back.scores, undefined);
  assert.deepEqual(back.rankings, SCORED.rankings);
  // Non-numeric ids keep file order.
  const named: Run = { rankings: new Map([["qb", ["1"]], ["qa", ["2"]], ["qc", []]]) };
  await writeRun(file, named, "json", "");
  assert.deepEqual([...(await readJsonRun(file)).rankings], [...named.rankings]);
});

test(
  "JSON run keeps the file's query order also for integer-like query ids",
  async () => {
    const file = tmp("numeric-ids.json");
    const run: Run = { rankings: new Map([["q", ["a"]], ["10", ["b"]], ["2", ["c"]]]) };
    for (const shape of ["json", "ranx"] as const) {
      await writeRun(file, run, shape, "");
      assert.deepEqual([...(await readJsonRun(file)).rankings.keys()], ["q", "10", "2"], shape);
    }
  },
);

test("malformed JSON runs are errors naming the file", async () => {
  const file = tmp("bad.json");
  writeFileSync(file, '{"q1": ["a", ');
  await assert.rejects(readJsonRun(file), new RegExp(`${esc(file)}: not a readable JSON run`));
  writeFileSync(file, '["a"]');
  await assert.rejects(readJsonRun(file), new RegExp(`${esc(file)}: expected an object`));
  writeFileSync(file, '{"q1": ["a", 3]}');
  await assert.rejects(readJsonRun(file), new RegExp(`${esc(file)}:1: query 'q1': expected an array of doc ids`));
});

test("readRun picks the format by extension", async () => {
  const json = tmp("pick.json");
  const trec = tmp("pick.trec");
  const txt = tmp("pick.txt");
  const run: Run = { rankings: new Map([["q1", ["a", "b"]]]) };
  await writeRun(json, run, "json", "");
  await writeRun(trec, run, "trec", "t");
  await writeRun(txt, run, "trec", "t");
  const fromJson = await readRun(json);
  assert.equal(fromJson.scores, undefined, ".json read as JSON");
  assert.deepEqual(fromJson.rankings, run.rankings);
  for (const f of [trec, txt]) {
    const r = await readRun(f);
    assert.deepEqual(r.rankings, run.rankings);
    assert.deepEqual(r.scores!.get("q1"), [100, 99], `${f} read as TREC`);
  }
  // A TREC file named .json is parsed as JSON (and so fails), proving the extension decides.
  const misnamed = tmp("trec-in-disguise.json");
  writeFileSync(misnamed, readFileSync(trec));
  await assert.rejects(readRun(misnamed), /not a readable JSON run/);
});

test("oracle: bm25-greekstemmer-sample.trec has 283 queries x 100 docs, in the order of the .json", async () => {
  // requireShared: without ../shared this fails naming what is missing, never passes vacuously.
  const trec = await readRun(requireShared("oracles", "greeklaws-2021", "bm25-greekstemmer-sample.trec"));
  const json = await readRun(requireShared("oracles", "greeklaws-2021", "bm25-greekstemmer-sample.json"));
  assert.equal(trec.rankings.size, 283);
  assert.equal(json.rankings.size, 283);
  assert.deepEqual([...trec.rankings.keys()], [...json.rankings.keys()]);
  for (const [qid, ranking] of trec.rankings) {
    assert.equal(ranking.length, 100, qid);
    assert.deepEqual(ranking, json.rankings.get(qid), qid);
    const s = trec.scores!.get(qid)!;
    for (let i = 1; i < s.length; i++) assert.ok(s[i - 1] >= s[i], `${qid}: scores descend`);
  }
  assert.equal(trec.rankings.get("Q-N4765-16")![0], "N4831::40");
  assert.equal(trec.scores!.get("Q-N4765-16")![0], 15.288897814976632);
});

test("oracle: re-serialising the oracle TREC run reproduces the file byte for byte", async () => {
  const file = requireShared("oracles", "greeklaws-2021", "bm25-greekstemmer-sample.trec");
  const run = await readTrec(file);
  assert.equal(formatTrec(run, "bm25"), readFileSync(file, "utf8"));
});

test("a JSON run naming a query twice is an error", async () => {
  const file = path.join(os.tmpdir(), `gbr-dup-${process.pid}.json`);
  writeFileSync(file, '{"q1": ["a"], "q1": ["b"]}');
  await assert.rejects(readJsonRun(file), /query 'q1' appears twice/);
  rmSync(file, { force: true });
});
