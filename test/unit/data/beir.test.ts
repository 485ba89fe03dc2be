import { test, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { readBeir, readJsonl, readTextLines, writeBeir } from "../../../lib/data/beir";
import { DataError } from "../../../lib/util/errors";
import { readQrels, writeTrecQrels } from "../../../lib/data/qrels";
import { notEvaluatedNote, unjudgedQueries, type Benchmark } from "../../../lib/types";

const SHARED = path.resolve(__dirname, "..", "../../../shared");
const TMP = mkdtempSync(path.join(os.tmpdir(), "gbr-beir-test-"));
after(() => rmSync(TMP, { recursive: true, force: true }));

let dirCount = 0;
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** Matches an error message that names `file`, then `:line` when given, then `rest`. */
const names = (file: string, line: number | undefined, rest: string) =>
  new RegExp(`${esc(file)}${line === undefined ? "" : `:${line}`}: ${rest}`);

const CORPUS = ['{"id": "d1", "text": "Άρθρο 1. Πρώτο."}', '{"id": "d2", "text": "Δεύτερο"}', '{"id": "d3", "text": "τρίτο"}'];
const QUERIES = ['{"id": "q1", "text": "ερώτηση ένα"}', '{"id": "q2", "text": "ερώτηση δύο"}'];
const QRELS = ["query-id\tcorpus-id\tscore", "q1\td1\t1", "q2\td2\t1", "q2\td3\t1"];

interface Files {
  corpus?: string[] | string;
  queries?: string[] | string;
  qrels?: string[] | string;
  meta?: string[] | string;
  extra?: Record<string, string>;
}

/** A fresh BEIR folder from line arrays (joined with "\n" plus a final newline) or raw strings. */
function beirDir(files: Files = {}): string {
  const dir = path.join(TMP, `set${++dirCount}`);
  mkdirSync(path.join(dir, "qrels"), { recursive: true });
  const text = (v: string[] | string) => (typeof v === "string" ? v : v.join("\n") + "\n");
  writeFileSync(path.join(dir, "corpus.jsonl"), text(files.corpus ?? CORPUS));
  writeFileSync(path.join(dir, "queries.jsonl"), text(files.queries ?? QUERIES));
  writeFileSync(path.join(dir, "qrels", "test.tsv"), text(files.qrels ?? QRELS));
  if (files.meta !== undefined) writeFileSync(path.join(dir, "meta.jsonl"), text(files.meta));
  for (const [name, content] of Object.entries(files.extra ?? {})) writeFileSync(path.join(dir, name), content);
  return dir;
}

const corpusOf = (dir: string) => path.join(dir, "corpus.jsonl");
const queriesOf = (dir: string) => path.join(dir, "queries.jsonl");
const qrelsOf = (dir: string) => path.join(dir, "qrels", "test.tsv");

async function rejectsData(p: Promise<unknown>, re: RegExp): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof DataError, `expected a DataError, got ${String(err)}`);
    assert.match(err.message, re);
    return true;
  });
}

// ---------------------------------------------------------------------------------------------
// Round trip

const BENCH: Benchmark = {
  name: "toy",
  docs: [
    { id: "ΑΚ::914", text: "Όποιος ζημιώσει άλλον παράνομα και υπαίτια έχει υποχρέωση να τον αποζημιώσει." },
    { id: "N4766::πρώτο", text: 'Παράγραφος 1.\nΠαράγραφος 2 με "εισαγωγικά" και \\ backslash\tκαι tab.' },
    { id: "N4858::15Α", text: "  κείμενο με κενά στην αρχή  " },
    { id: "N4824::δέκατο-τρίτο", text: "emoji 😀 και \u00a0 no-break" },
    { id: "a", text: "last in corpus" },
  ],
  queries: [
    { id: "Q02", text: "Δεύτερη ερώτηση;\nΜε δύο γραμμές." },
    { id: "Q01", text: "Πρώτη ερώτηση" },
    { id: "Q03", text: "χωρίς meta" },
  ],
  qrels: new Map([
    ["Q01", new Set(["ΑΚ::914"])],
    ["Q02", new Set(["N4858::15Α", "N4766::πρώτο", "a"])],
    ["Q03", new Set(["N4824::δέκατο-τρίτο"])],
  ]),
  meta: new Map([
    ["Q02", { area: "Αστικό Δίκαιο", date: "2023-05", number: 7 }],
    ["Q01", { area: "Ποινικό Δίκαιο", number: 1 }],
  ]),
};

test("writeBeir -> readBeir keeps order and content, including meta", async () => {
  const dir = path.join(TMP, "roundtrip");
  await writeBeir(dir, BENCH);
  const warnings: string[] = [];
  const back = await readBeir(dir, { name: "toy", warn: (m) => warnings.push(m) });
  assert.deepEqual(warnings, []);
  assert.equal(back.name, "toy");
  assert.deepEqual(back.docs, BENCH.docs, "corpus order and texts");
  assert.deepEqual(back.queries, BENCH.queries, "query order and texts");
  assert.deepEqual([...back.qrels.keys()], ["Q02", "Q01", "Q03"], "qrels follow query order");
  for (const [qid, rel] of BENCH.qrels) assert.deepEqual([...back.qrels.get(qid)!].sort(), [...rel].sort(), qid);
  assert.equal(back.qrels.size, BENCH.qrels.size);
  assert.deepEqual(back.meta, BENCH.meta);
  assert.deepEqual([...back.meta.keys()], ["Q02", "Q01"], "meta in query order");
  assert.deepEqual(back.meta.get("Q01"), { area: "Ποινικό Δίκαιο", number: 1 });
  // The name defaults to the folder name.
  assert.equal((await readBeir(dir)).name, "roundtrip");
  // Written twice, read back the same: the writer is a fixed point.
  const dir2 = path.join(TMP, "roundtrip2");
  await writeBeir(dir2, back);
  for (const f of ["corpus.jsonl", "queries.jsonl", "qrels/test.tsv", "meta.jsonl"]) {
    assert.equal(readFileSync(path.join(dir2, f), "utf8"), readFileSync(path.join(dir, f), "utf8"), f);
  }
});

test("writeBeir writes the documented BEIR layout", async () => {
  const dir = path.join(TMP, "layout");
  await writeBeir(dir, BENCH);
  const qrels = readFileSync(path.join(dir, "qrels", "test.tsv"), "utf8").split("\n");
  assert.equal(qrels[0], "query-id\tcorpus-id\tscore");
  assert.equal(qrels[qrels.length - 1], "", "ends with a newline");
  assert.equal(qrels.length - 2, 5, "one line per judgment");
  const corpus = readFileSync(path.join(dir, "corpus.jsonl"), "utf8").trimEnd().split("\n");
  assert.equal(corpus.length, 5);
  // BEIR's own field names (beir's GenericDataLoader reads "_id", "title", "text"), title empty.
  assert.deepEqual(JSON.parse(corpus[0]), { _id: "ΑΚ::914", title: "", text: BENCH.docs[0].text });
  const queries = readFileSync(path.join(dir, "queries.jsonl"), "utf8").trimEnd().split("\n");
  assert.deepEqual(JSON.parse(queries[0]), { _id: BENCH.queries[0].id, text: BENCH.queries[0].text });
  // No meta: no meta.jsonl, and an empty meta map back.
  const bare = path.join(TMP, "layout-bare");
  await writeBeir(bare, { ...BENCH, meta: new Map() });
  assert.equal((await readBeir(bare)).meta.size, 0);
});

// ---------------------------------------------------------------------------------------------
// Validation errors: each names the file and the line or id.

test("the default toy folder loads", async () => {
  const b = await readBeir(beirDir());
  assert.deepEqual(b.docs.map((d) => d.id), ["d1", "d2", "d3"]);
  assert.deepEqual(b.queries.map((q) => q.id), ["q1", "q2"]);
  assert.deepEqual([...b.qrels.get("q2")!], ["d2", "d3"]);
});

test("malformed JSON line: error names the file and line number", async () => {
  const dir = beirDir({ corpus: [CORPUS[0], CORPUS[1], '{"id": "d3", "text": "τρίτο"'] });
  await rejectsData(readBeir(dir), names(corpusOf(dir), 3, "malformed JSON"));
  // Blank lines are skipped but still counted.
  const dir2 = beirDir({ queries: [QUERIES[0], "", "   ", "{oops}"] });
  await rejectsData(readBeir(dir2), names(queriesOf(dir2), 4, "malformed JSON"));
});

test("a line that is JSON but not an object is an error naming the line", async () => {
  const dir = beirDir({ corpus: [CORPUS[0], '["d2", "Δεύτερο"]', CORPUS[2]] });
  await rejectsData(readBeir(dir), names(corpusOf(dir), 2, "expected a JSON object"));
});

test('ids are read as BEIR\'s "_id" or as "id"; a line with both that disagree is an error naming the line', async () => {
  const mixed = beirDir({
    corpus: ['{"_id": "d1", "title": "", "text": "Άρθρο 1. Πρώτο."}', CORPUS[1], '{"_id": "d3", "id": "d3", "text": "τρίτο"}'],
    queries: ['{"_id": "q1", "text": "ερώτηση ένα"}', QUERIES[1]],
  });
  const b = await readBeir(mixed);
  assert.deepEqual(b.docs.map((d) => d.id), ["d1", "d2", "d3"]);
  assert.deepEqual(b.queries.map((q) => q.id), ["q1", "q2"]);
  const clash = beirDir({ corpus: [CORPUS[0], '{"_id": "d2", "id": "d9", "text": "Δεύτερο"}', CORPUS[2]] });
  await rejectsData(readBeir(clash), names(corpusOf(clash), 2, `"_id" 'd2' and "id" 'd9' disagree; keep one id field`));
  const none = beirDir({ queries: [QUERIES[0], '{"text": "χωρίς id"}'] });
  await rejectsData(readBeir(none), names(queriesOf(none), 2, 'missing field "_id"'));
});

test('missing "text" field: error names the file and line', async () => {
  const dir = beirDir({ corpus: [CORPUS[0], '{"id": "d2"}', CORPUS[2]] });
  await rejectsData(readBeir(dir), names(corpusOf(dir), 2, 'missing field "text"'));
  const dir2 = beirDir({ queries: [QUERIES[0], '{"id": "q2", "text": null}'] });
  await rejectsData(readBeir(dir2), names(queriesOf(dir2), 2, 'missing field "text"'));
});

test('a "text" that is not a string: error names the line and id', async () => {
  const dir = beirDir({ corpus: [CORPUS[0], '{"id": "d2", "text": 42}', CORPUS[2]] });
  await rejectsData(readBeir(dir), names(corpusOf(dir), 2, `field "text" of id 'd2' is not a string`));
});

test("duplicate id: error names both lines", async () => {
  const dir = beirDir({ corpus: [CORPUS[0], CORPUS[1], CORPUS[2], '{"id": "d2", "text": "again"}'] });
  await rejectsData(readBeir(dir), names(corpusOf(dir), 4, "duplicate id 'd2' \\(first on line 2\\)"));
  const dir2 = beirDir({ queries: [QUERIES[0], QUERIES[1], QUERIES[0]] });
  await rejectsData(readBeir(dir2), names(queriesOf(dir2), 3, "duplicate id 'q1' \\(first on line 1\\)"));
});

test("empty text: error names the line and id", async () => {
  const dir = beirDir({ corpus: [CORPUS[0], '{"id": "d2", "text": ""}', CORPUS[2]] });
  await rejectsData(readBeir(dir), names(corpusOf(dir), 2, "empty text for id 'd2'"));
  const dir2 = beirDir({ queries: [QUERIES[0], '{"id": "q2", "text": " \\n\\t "}'] });
  await rejectsData(readBeir(dir2), names(queriesOf(dir2), 2, "empty text for id 'q2'"));
});

test("id with whitespace (or empty): error names the line and id", async () => {
  const dir = beirDir({ corpus: [CORPUS[0], '{"id": "d 2", "text": "Δεύτερο"}', CORPUS[2]] });
  await rejectsData(readBeir(dir), names(corpusOf(dir), 2, "id 'd 2' is empty or contains whitespace"));
  const dir2 = beirDir({ queries: ['{"id": "q1\\t", "text": "x"}', QUERIES[1]] });
  await rejectsData(readBeir(dir2), names(queriesOf(dir2), 1, "id 'q1\t' is empty or contains whitespace"));
  const dir3 = beirDir({ corpus: ['{"id": "", "text": "x"}', ...CORPUS] });
  await rejectsData(readBeir(dir3), names(corpusOf(dir3), 1, "id '' is empty or contains whitespace"));
});

test("BEIR's _id is accepted in place of id", async () => {
  const dir = beirDir({ corpus: ['{"_id": "d1", "title": "", "text": "α"}', '{"_id": "d2", "text": "β"}', '{"_id": "d3", "text": "γ"}'] });
  assert.deepEqual((await readBeir(dir)).docs.map((d) => d.id), ["d1", "d2", "d3"]);
});

test(
  "a record with neither id nor _id is an error naming the line",
  async () => {
    // The qrels do not mention the id-less record, so only the id check can catch it.
    const dir = beirDir({ corpus: [CORPUS[0], '{"text": "χωρίς id"}', CORPUS[2]], qrels: [QRELS[0], "q1\td1\t1", "q2\td3\t1"] });
    await rejectsData(readBeir(dir), names(corpusOf(dir), 2, ".*id"));
  },
);

test("qrels naming an unknown query: error names the qrels file and the query id", async () => {
  const dir = beirDir({ qrels: [...QRELS, "q9\td1\t1"] });
  await rejectsData(readBeir(dir), names(qrelsOf(dir), undefined, `qrels name query 'q9', which is not in ${esc(queriesOf(dir))}`));
});

test("qrels naming an unknown article: error names the qrels file, the article and the query", async () => {
  const dir = beirDir({ qrels: [...QRELS, "q1\tN4765::999\t1"] });
  await rejectsData(
    readBeir(dir),
    names(qrelsOf(dir), undefined, `qrels name article 'N4765::999' \\(query 'q1'\\), which is not in ${esc(corpusOf(dir))}`),
  );
});

test("issue 28, item 1: a query without judgments is loaded (as BEIR ships scifact), to be searched and not evaluated", async () => {
  const extra = ['{"_id": "q3", "text": "ορφανή"}', '{"_id": "q4", "text": "κρίση μηδέν"}'];
  // q4's one judgment has score 0: judged not relevant, so it has no relevant article either.
  const dir = beirDir({ queries: [...QUERIES, ...extra], qrels: [...QRELS, "q4\td1\t0"] });
  const b = await readBeir(dir);
  assert.deepEqual(b.queries.map((q) => q.id), ["q1", "q2", "q3", "q4"]);
  assert.deepEqual([...b.qrels.keys()], ["q1", "q2"]);
  assert.deepEqual(unjudgedQueries(b), ["q3", "q4"]);
  assert.equal(notEvaluatedNote(2), "2 queries have no judgments: not evaluated");
  assert.equal(notEvaluatedNote(1), "1 query has no judgments: not evaluated");
  // What is left out of the metrics is only the metrics: a judged query's article missing from the corpus is an error still.
  const bad = beirDir({ queries: [...QUERIES, ...extra], qrels: [...QRELS, "q3\tgone\t1"] });
  await rejectsData(readBeir(bad), names(qrelsOf(bad), undefined, `qrels name article 'gone' \\(query 'q3'\\), which is not in ${esc(corpusOf(bad))} \\(line 5\\)`));
});

test("wrong TSV header: error names the qrels file and line 1", async () => {
  const dir = beirDir({ qrels: ["qid\tdocid\tscore", "q1\td1\t1", "q2\td2\t1"] });
  await rejectsData(readBeir(dir), names(qrelsOf(dir), 1, 'wrong header "qid\\\\tdocid\\\\tscore"'));
  const dir2 = beirDir({ qrels: ["q1\td1\t1", "q2\td2\t1"] });
  await rejectsData(readBeir(dir2), names(qrelsOf(dir2), 1, "wrong header"));
  const dir3 = beirDir({ qrels: "" });
  await rejectsData(readBeir(dir3), names(qrelsOf(dir3), 1, "wrong header"));
});

test("wrong number of TSV columns: error names the qrels file and line", async () => {
  const dir = beirDir({ qrels: [QRELS[0], QRELS[1], "q2\td2", QRELS[3]] });
  await rejectsData(readBeir(dir), names(qrelsOf(dir), 3, "expected 3 tab-separated columns, found 2"));
  const dir2 = beirDir({ qrels: [QRELS[0], QRELS[1], QRELS[2], "q2\td3\t1\textra"] });
  await rejectsData(readBeir(dir2), names(qrelsOf(dir2), 4, "expected 3 tab-separated columns, found 4"));
  // Space-separated instead of tab-separated is one column.
  const dir3 = beirDir({ qrels: [QRELS[0], "q1 d1 1"] });
  await rejectsData(readBeir(dir3), names(qrelsOf(dir3), 2, "expected 3 tab-separated columns, found 1"));
});

test("a non-numeric qrels score: error names the line", async () => {
  const dir = beirDir({ qrels: [QRELS[0], QRELS[1], "q2\td2\tyes"] });
  await rejectsData(readBeir(dir), names(qrelsOf(dir), 3, "score 'yes' is not a number"));
});

test("meta naming an unknown query: error names meta.jsonl and the line", async () => {
  const dir = beirDir({ meta: ['{"id": "q1", "area": "Αστικό"}', '{"id": "q7", "area": "Ποινικό"}'] });
  await rejectsData(readBeir(dir), names(path.join(dir, "meta.jsonl"), 2, "meta names query 'q7'"));
});

test("a missing file is an error naming it", async () => {
  const dir = beirDir();
  rmSync(queriesOf(dir));
  await rejectsData(readBeir(dir), names(queriesOf(dir), undefined, "cannot read file \\(ENOENT\\)"));
});

// ---------------------------------------------------------------------------------------------
// BOM and CRLF

test("BOM and CRLF files load correctly and warn through the callback, naming the file", async () => {
  const crlf = (lines: string[]) => lines.join("\r\n") + "\r\n";
  const dir = beirDir({
    corpus: "\uFEFF" + CORPUS.join("\n") + "\n",
    queries: crlf(QUERIES),
    qrels: "\uFEFF" + crlf(QRELS),
    meta: "\uFEFF" + crlf(['{"id": "q1", "area": "Αστικό", "number": 3}']),
  });
  const warnings: string[] = [];
  const b = await readBeir(dir, { warn: (m) => warnings.push(m) });
  assert.deepEqual(b.docs.map((d) => d.id), ["d1", "d2", "d3"], "no BOM in the first id");
  assert.deepEqual(b.queries, [
    { id: "q1", text: "ερώτηση ένα" },
    { id: "q2", text: "ερώτηση δύο" },
  ]);
  assert.deepEqual([...b.qrels.keys()], ["q1", "q2"]);
  assert.deepEqual([...b.qrels.get("q2")!], ["d2", "d3"], "no CR in the last column");
  assert.deepEqual(b.meta.get("q1"), { area: "Αστικό", number: 3 });

  const bom = warnings.filter((w) => /byte-order mark/.test(w));
  const cr = warnings.filter((w) => /CRLF/.test(w));
  assert.ok(bom.some((w) => w.startsWith(corpusOf(dir) + ":")), `BOM warning for corpus: ${warnings.join(" | ")}`);
  assert.ok(bom.some((w) => w.startsWith(qrelsOf(dir) + ":")), "BOM warning for qrels");
  assert.ok(bom.some((w) => w.startsWith(path.join(dir, "meta.jsonl") + ":")), "BOM warning for meta");
  assert.ok(cr.some((w) => w.startsWith(queriesOf(dir) + ":")), "CRLF warning for queries");
  assert.ok(cr.some((w) => w.startsWith(qrelsOf(dir) + ":")), "CRLF warning for qrels");
  assert.ok(!warnings.some((w) => w.startsWith(corpusOf(dir) + ":") && /CRLF/.test(w)), "no CRLF warning for an LF file");
  // Without a callback the same folder still loads.
  assert.equal((await readBeir(dir)).docs.length, 3);
});

test("readTextLines: strips BOM, reads CR and CRLF as LF, drops only the final empty line", async () => {
  const file = path.join(TMP, "lines.txt");
  writeFileSync(file, "\uFEFFa\r\nb\rc\n\nd\n");
  const warnings: string[] = [];
  assert.deepEqual(await readTextLines(file, (m) => warnings.push(m)), ["a", "b", "c", "", "d"]);
  assert.equal(warnings.length, 2);
  for (const w of warnings) assert.ok(w.startsWith(`${file}: `), w);
  writeFileSync(file, "x\ny");
  assert.deepEqual(await readTextLines(file), ["x", "y"]);
  writeFileSync(file, "");
  assert.deepEqual(await readTextLines(file), []);
});

test("readJsonl returns the 1-based line of every record and checks required fields", async () => {
  const file = path.join(TMP, "rows.jsonl");
  writeFileSync(file, '{"id": "a", "n": 1}\n\n{"id": "b", "n": 0}\n');
  assert.deepEqual(await readJsonl(file, ["id", "n"]), [
    { line: 1, value: { id: "a", n: 1 } },
    { line: 3, value: { id: "b", n: 0 } },
  ]);
  await rejectsData(readJsonl(file, ["id", "x"]), names(file, 1, 'missing field "x"'));
});

// ---------------------------------------------------------------------------------------------
// queriesFile override

test("queriesFile override restricts qrels and meta to the given queries", async () => {
  const dir = beirDir({
    queries: [...QUERIES, '{"id": "q3", "text": "τρίτη"}'],
    qrels: [...QRELS, "q3\td1\t1"],
    meta: ['{"id": "q1", "area": "Α"}', '{"id": "q2", "area": "Β"}', '{"id": "q3", "area": "Γ"}'],
    extra: { "queries-sub.jsonl": '{"id": "q3", "text": "τρίτη"}\n{"id": "q2", "text": "δεύτερη"}\n' },
  });
  const b = await readBeir(dir, { queriesFile: path.join(dir, "queries-sub.jsonl") });
  assert.deepEqual(b.queries, [
    { id: "q3", text: "τρίτη" },
    { id: "q2", text: "δεύτερη" },
  ]);
  assert.deepEqual([...b.qrels.keys()].sort(), ["q2", "q3"]);
  assert.deepEqual([...b.qrels.get("q2")!], ["d2", "d3"]);
  assert.deepEqual([...b.meta.keys()].sort(), ["q2", "q3"]);
  assert.deepEqual(b.meta.get("q3"), { area: "Γ" });
  assert.equal(b.docs.length, 3, "the corpus is not restricted");
});

test("queriesFile override: a given query without judgments is loaded, not evaluated", async () => {
  const dir = beirDir({ extra: { "other.jsonl": '{"id": "q1", "text": "x"}\n{"id": "q5", "text": "y"}\n' } });
  const b = await readBeir(dir, { queriesFile: path.join(dir, "other.jsonl") });
  assert.deepEqual(b.queries.map((q) => q.id), ["q1", "q5"]);
  assert.deepEqual(unjudgedQueries(b), ["q5"]);
});

test("qrelsFile option reads another qrels file", async () => {
  const dir = beirDir({ extra: { "alt.tsv": "query-id\tcorpus-id\tscore\nq1\td3\t1\nq2\td1\t2\n" } });
  const b = await readBeir(dir, { qrelsFile: path.join(dir, "alt.tsv") });
  assert.deepEqual([...b.qrels.get("q1")!], ["d3"]);
  assert.deepEqual([...b.qrels.get("q2")!], ["d1"]);
});

// ---------------------------------------------------------------------------------------------
// readQrels, writeTrecQrels

test("readQrels (BEIR TSV) drops scores <= 0 and keeps graded scores > 0 as relevant", async () => {
  const file = path.join(TMP, "graded.tsv");
  // q3's score was 0.5 until issue 10 made a non-integer score an error; 3 keeps the case "graded > 0".
  writeFileSync(file, "query-id\tcorpus-id\tscore\nq1\ta\t1\nq1\tb\t0\nq1\tc\t2\nq2\td\t-1\nq3\te\t3\n\n");
  const q = await readQrels(file);
  assert.deepEqual([...q.keys()], ["q1", "q3"]);
  assert.deepEqual([...q.get("q1")!], ["a", "c"]);
  assert.deepEqual([...q.get("q3")!], ["e"]);
});

test("readQrels reads BEIR TSV", async () => {
  const file = path.join(TMP, "qrels-beir.tsv");
  writeFileSync(file, "query-id\tcorpus-id\tscore\nq1\ta\t1\nq1\tb\t0\nq2\tΑΚ::914\t1\n");
  const q = await readQrels(file);
  assert.deepEqual([...q.keys()], ["q1", "q2"]);
  assert.deepEqual([...q.get("q1")!], ["a"]);
  assert.deepEqual([...q.get("q2")!], ["ΑΚ::914"]);
});

test("readQrels reads TREC qrels (qid 0 docid rel) and drops rel <= 0", async () => {
  const file = path.join(TMP, "qrels.trec");
  writeFileSync(file, "q1 0 a 1\nq1 0 b 0\nq2\t0\tc\t2\n\nq2 Q0 d -1\nq3 0 e 0\nq1 0 f 1\n");
  const q = await readQrels(file);
  assert.deepEqual([...q.keys()], ["q1", "q2"], "a query with only rel <= 0 is absent");
  assert.deepEqual([...q.get("q1")!], ["a", "f"]);
  assert.deepEqual([...q.get("q2")!], ["c"]);
});

test("readQrels: BOM before either form is tolerated", async () => {
  const tsv = path.join(TMP, "bom.tsv");
  writeFileSync(tsv, "\uFEFFquery-id\tcorpus-id\tscore\r\nq1\ta\t1\r\n");
  assert.deepEqual([...(await readQrels(tsv)).get("q1")!], ["a"]);
  const trec = path.join(TMP, "bom.trec");
  writeFileSync(trec, "\uFEFFq1 0 a 1\n");
  assert.deepEqual([...(await readQrels(trec)).keys()], ["q1"]);
});

test("readQrels: wrong column count or non-numeric relevance is an error naming the line", async () => {
  const file = path.join(TMP, "bad.trec");
  writeFileSync(file, "q1 0 a 1\nq1 a 1\n");
  await rejectsData(readQrels(file), names(file, 2, "expected TREC qrels .*found 3 columns"));
  writeFileSync(file, "q1 0 a yes\n");
  await rejectsData(readQrels(file), names(file, 1, "relevance 'yes' is not a number"));
});

test("writeTrecQrels -> readQrels round trip", async () => {
  const file = path.join(TMP, "out", "deep", "qrels.txt");
  const qrels = new Map([
    ["Q-N4765-16", new Set(["N4765::16"])],
    ["Q02", new Set(["N4766::πρώτο", "N4858::15Α"])],
  ]);
  await writeTrecQrels(file, qrels);
  assert.equal(readFileSync(file, "utf8"), "Q-N4765-16 0 N4765::16 1\nQ02 0 N4766::πρώτο 1\nQ02 0 N4858::15Α 1\n");
  assert.deepEqual(await readQrels(file), qrels);
  const empty = path.join(TMP, "out", "empty.txt");
  await writeTrecQrels(empty, new Map());
  assert.equal(readFileSync(empty, "utf8"), "");
});

// ---------------------------------------------------------------------------------------------
// Shared data

test("shared greeklaws-2021 with queries-sample.jsonl: 5,692 docs, 283 queries, 283 qrels", async () => {
  const dir = path.join(SHARED, "data", "greeklaws-2021");
  const warnings: string[] = [];
  const b = await readBeir(dir, { queriesFile: path.join(dir, "queries-sample.jsonl"), warn: (m) => warnings.push(m) });
  assert.deepEqual(warnings, []);
  assert.equal(b.name, "greeklaws-2021");
  assert.equal(b.docs.length, 5692);
  assert.equal(b.queries.length, 283);
  assert.equal(b.qrels.size, 283);
  assert.equal(b.docs[0].id, "N4765::1");
  for (const q of b.queries) assert.equal(b.qrels.get(q.id)?.size, 1, `${q.id}: one relevant article`);
  // The qrels agree with qrels/sample.tsv.
  const sample = await readQrels(path.join(dir, "qrels", "sample.tsv"));
  assert.deepEqual(b.qrels, sample);
});

test("metadata with a non-numeric number or a repeated query id is an error naming the line", async () => {
  const dir = beirDir({ meta: ['{"id": "q1", "area": "civil", "number": "three"}'] });
  await rejectsData(readBeir(dir), /meta\.jsonl:1: "number" of query 'q1' is not a number/);
  const dup = beirDir({ meta: ['{"id": "q1", "area": "civil"}', '{"id": "q1", "area": "public"}'] });
  await rejectsData(readBeir(dup), /meta\.jsonl:2: duplicate metadata for query 'q1'/);
});

test("issue 22, item 19: a relative --data path given from the repository's root also works from notebooks/", async () => {
  const { loadBenchmark } = await import("../../../lib/data/source.js");
  const { PACKAGE_ROOT } = await import("../../../lib/config.js");
  const here = process.cwd();
  process.chdir(path.join(PACKAGE_ROOT, "notebooks"));
  try {
    const loaded = await loadBenchmark("data/sample");
    assert.equal(loaded.dir, path.join(PACKAGE_ROOT, "data", "sample"));
    assert.ok(loaded.benchmark.docs.length > 0);
    await assert.rejects(loadBenchmark("data/nowhere"), /--data data\/nowhere: .* does not exist/);
  } finally {
    process.chdir(here);
  }
});
