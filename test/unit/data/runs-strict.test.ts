import { test, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { checkRunCoverage, readJsonRun, readRun, readTrec } from "../../../lib/data/runs";
import type { Run } from "../../../lib/types";
import { dataErrorAt } from "../../helpers/assertions";

// Issue 10, "strict input", for run files: UTF-8 only, ids verbatim, and a run that cannot be
// scored against the qrels (empty, or for other queries) refused before it prints a mean of 0.

const TMP = mkdtempSync(path.join(os.tmpdir(), "gbr-runs-strict-"));
after(() => rmSync(TMP, { recursive: true, force: true }));
const tmp = (name: string) => path.join(TMP, name);

test("invalid UTF-8 in a TREC run is an error naming the file, line and byte offset", async () => {
  const file = tmp("cp1253.trec");
  // "q1 Q0 ΑΚ::914 …" with the Α written in Windows-1253 (0xC1), as a Greek Windows editor saves it.
  writeFileSync(file, Buffer.concat([Buffer.from("q1 Q0 d1 1 2.0 t\nq1 Q0 "), Buffer.from([0xc1]), Buffer.from("K::914 2 1.0 t\n")]));
  await assert.rejects(readTrec(file), dataErrorAt(file, 2, /^invalid UTF-8 at byte offset 23 \(bytes 0xC1 0x4B/));
  await assert.rejects(readRun(file), dataErrorAt(file, 2, /^invalid UTF-8/));
});

test("invalid UTF-8 in a JSON run is an error naming the line (was: decoded as U+FFFD, ids colliding)", async () => {
  const file = tmp("latin1.json");
  writeFileSync(file, Buffer.concat([Buffer.from('{\n"q1": ["d1"],\n"q2": ["d'), Buffer.from([0xe9]), Buffer.from('"]\n}\n')]));
  await assert.rejects(readJsonRun(file), dataErrorAt(file, 3, /^invalid UTF-8 at byte offset 25 \(bytes 0xE9 0x22 0x5D\)/));
});

test("a JSON run query id with leading or trailing whitespace is an error naming the line", async () => {
  const file = tmp("padded-query.json");
  writeFileSync(file, '{\n"q1": ["d1"],\n" q2": ["d2"]\n}\n');
  await assert.rejects(readJsonRun(file), dataErrorAt(file, 3, /^query id ' q2' is empty or contains whitespace: it has leading or trailing whitespace/));
});

test("a JSON run document id with trailing whitespace (or empty) is an error naming the query and line", async () => {
  const file = tmp("padded-doc.json");
  writeFileSync(file, '{\n"q1": ["d1", "d2 "]\n}\n');
  await assert.rejects(readJsonRun(file), dataErrorAt(file, 2, /^document id 'd2 ' is empty or contains whitespace: .* \(in the ranking of query 'q1'\)$/));
  writeFileSync(file, '{"q1": [""]}');
  await assert.rejects(readJsonRun(file), dataErrorAt(file, 1, /^document id '' is empty or contains whitespace/));
});

// ---------------------------------------------------------------------------------------------
// checkRunCoverage

const QRELS = new Map([
  ["q1", new Set(["d1"])],
  ["q2", new Set(["d2"])],
  ["q3", new Set(["d3"])],
  ["q4", new Set(["d4"])],
]);
const run = (entries: [string, string[]][]): Run => ({ rankings: new Map(entries) });

test("checkRunCoverage: an empty run is an error naming the run file", () => {
  assert.throws(() => checkRunCoverage(run([]), QRELS, "empty.trec", "qrels.tsv"), dataErrorAt("empty.trec", undefined, /^the run is empty \(no query\): nothing to evaluate/));
  assert.throws(
    () => checkRunCoverage(run([["q1", []]]), QRELS, "hollow.json"),
    dataErrorAt("hollow.json", undefined, /^the run is empty \(1 queries, each with an empty ranking\)/),
  );
});

test("checkRunCoverage: a run that shares no query with the qrels is an error naming both", () => {
  assert.throws(
    () => checkRunCoverage(run([["Q-1", ["d1"]], ["Q-2", ["d2"]]]), QRELS, "other.trec", "qrels.tsv"),
    dataErrorAt("other.trec", undefined, /^the run shares no query with qrels\.tsv: its 2 queries \(e\.g\. 'Q-1'\) are none of the qrels' 4 \(e\.g\. 'q1'\); check that run and qrels come from the same query set$/),
  );
});

test("checkRunCoverage: a partial overlap is scored and comes back with a warning giving the counts", () => {
  const c = checkRunCoverage(run([["q1", ["d1"]], ["q3", ["x"]], ["extra", ["d9"]]]), QRELS, "run.trec", "qrels.tsv");
  assert.deepEqual(c, {
    judged: 4,
    ranked: 2,
    unjudged: ["extra"],
    warning: "run.trec: 2 of the qrels' 4 queries are in the run; the 2 missing score 0",
  });
  // Full coverage: no warning.
  const full = checkRunCoverage(run([...QRELS.keys()].map((q) => [q, ["d1"]])), QRELS, "run.trec");
  assert.equal(full.warning, undefined);
  assert.equal(full.ranked, 4);
});
