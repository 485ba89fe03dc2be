import { test, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { decodeUtf8, parseScore, readBeir, readJsonl, readTextLines } from "../../../lib/data/beir";
import { readQrels } from "../../../lib/data/qrels";
import { DataError } from "../../../lib/util/errors";
import { dataErrorAt } from "../../helpers/assertions";

// Issue 10, "strict input": the BEIR loaders and qrels readers refuse invalid UTF-8, loose
// scores, padded ids, unchecked score-0 judgments and empty files, naming file and line.

const TMP = mkdtempSync(path.join(os.tmpdir(), "gbr-beir-strict-"));
after(() => rmSync(TMP, { recursive: true, force: true }));

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Asserts that `p` rejects with `dataErrorAt(file, line, rest)`. */
async function rejectsAt(p: Promise<unknown>, file: string, line: number | undefined, rest: RegExp): Promise<void> {
  await assert.rejects(p, dataErrorAt(file, line, rest));
}

const CORPUS = ['{"id": "d1", "text": "Άρθρο 1."}', '{"id": "d2", "text": "Δεύτερο"}'];
const QUERIES = ['{"id": "q1", "text": "ερώτηση ένα"}', '{"id": "q2", "text": "ερώτηση δύο"}'];
const QRELS = ["query-id\tcorpus-id\tscore", "q1\td1\t1", "q2\td2\t1"];

let n = 0;
type Content = string[] | string | Buffer;
/** A BEIR folder; line arrays are joined with "\n" and end with one, strings and buffers are written as they are. */
function beirDir(files: { corpus?: Content; queries?: Content; qrels?: Content; meta?: Content } = {}): string {
  const dir = path.join(TMP, `set${++n}`);
  mkdirSync(path.join(dir, "qrels"), { recursive: true });
  const body = (v: Content) => (Array.isArray(v) ? v.join("\n") + "\n" : v);
  writeFileSync(path.join(dir, "corpus.jsonl"), body(files.corpus ?? CORPUS));
  writeFileSync(path.join(dir, "queries.jsonl"), body(files.queries ?? QUERIES));
  writeFileSync(path.join(dir, "qrels", "test.tsv"), body(files.qrels ?? QRELS));
  if (files.meta !== undefined) writeFileSync(path.join(dir, "meta.jsonl"), body(files.meta));
  return dir;
}
const corpusOf = (dir: string) => path.join(dir, "corpus.jsonl");
const queriesOf = (dir: string) => path.join(dir, "queries.jsonl");
const qrelsOf = (dir: string) => path.join(dir, "qrels", "test.tsv");
const metaOf = (dir: string) => path.join(dir, "meta.jsonl");

/** UTF-8 text with raw bytes spliced in where `\u0000` stands. */
function withBytes(text: string, bytes: number[]): Buffer {
  const [before, afterIt] = text.split("\u0000");
  return Buffer.concat([Buffer.from(before, "utf8"), Buffer.from(bytes), Buffer.from(afterIt, "utf8")]);
}

// ---------------------------------------------------------------------------------------------
// Invalid UTF-8: the file, the line and the byte offset of the first bad sequence

test("decodeUtf8 names the line and byte offset of the first ill-formed sequence", () => {
  const cases: [string, number[], number, number][] = [
    // text with \u0000 where the bytes go, the bytes, expected line, expected offset
    ["ab\n\u0000", [0xff], 2, 3], // a byte that never starts a sequence
    ["α\r\nβ\r\u0000x", [0xe1, 0x41], 3, 7], // a lead byte without its continuation; CRLF and CR both end lines
    ["\u0000", [0xc0, 0x80], 1, 0], // an overlong NUL
    ["x\u0000", [0xed, 0xa0, 0x80], 1, 1], // a UTF-16 surrogate
    ["x\u0000", [0xf4, 0x90, 0x80, 0x80], 1, 1], // above U+10FFFF
    ["xyz\u0000", [0xf0, 0x9f, 0x98], 1, 3], // a 4-byte sequence cut short at the end of the file
  ];
  for (const [text, bytes, line, offset] of cases) {
    const buf = withBytes(text, bytes);
    assert.throws(
      () => decodeUtf8(buf, "f.jsonl"),
      (e: unknown) => {
        assert.ok(e instanceof DataError, String(e));
        assert.equal(e.line, line, `${JSON.stringify(text)}: ${e.message}`);
        assert.match(e.message, new RegExp(`^f\\.jsonl:${line}: invalid UTF-8 at byte offset ${offset} \\(bytes 0x`), e.message);
        return true;
      },
    );
  }
  // Valid text, 4-byte characters and a BOM included, comes back unchanged (the BOM too).
  const good = "\uFEFFΆρθρο 😀 \u00a0 end";
  assert.equal(decodeUtf8(Buffer.from(good, "utf8"), "f"), good);
});

test("invalid UTF-8 in corpus.jsonl is an error naming the file, line and byte offset, not U+FFFD", async () => {
  // Two ids that differ only in their bad byte: a lenient decode made them one id.
  const corpus = withBytes('{"id": "d1", "text": "α"}\n{"id": "d\u0000", "text": "β"}\n', [0xe1]);
  const offset = Buffer.byteLength('{"id": "d1", "text": "α"}\n{"id": "d');
  const dir = beirDir({ corpus });
  await rejectsAt(readBeir(dir), corpusOf(dir), 2, new RegExp(`^invalid UTF-8 at byte offset ${offset} \\(bytes 0xE1 0x22`));
});

test("invalid UTF-8 in queries.jsonl, qrels/test.tsv and meta.jsonl is an error naming each file", async () => {
  // Greek in Windows-1253, as a spreadsheet on a Greek Windows saves it: 0xE5 is 'ε'.
  const q = beirDir({ queries: withBytes(`${QUERIES[0]}\n{"id": "q2", "text": "\u0000"}\n`, [0xe5]) });
  await rejectsAt(readBeir(q), queriesOf(q), 2, /^invalid UTF-8 at byte offset \d+ .*iconv/);
  const r = beirDir({ qrels: withBytes(`${QRELS.join("\n")}\nq2\td\u0000\t1\n`, [0xe5]) });
  await rejectsAt(readBeir(r), qrelsOf(r), 4, /^invalid UTF-8 at byte offset/);
  const m = beirDir({ meta: withBytes('{"id": "q1", "area": "\u0000"}\n', [0xc1, 0xf3]) });
  await rejectsAt(readBeir(m), metaOf(m), 1, /^invalid UTF-8 at byte offset 22 /);
});

test("invalid UTF-8 in TREC qrels (readQrels) is an error naming the line", async () => {
  const file = path.join(TMP, "latin1.qrels");
  writeFileSync(file, withBytes("q1 0 d1 1\nq2 0 caf\u0000 1\n", [0xe9]));
  await rejectsAt(readQrels(file), file, 2, /^invalid UTF-8 at byte offset 18 \(bytes 0xE9 0x20 0x31\)/);
});

// ---------------------------------------------------------------------------------------------
// Qrels scores: plain integers only

test("parseScore: plain integers, negative ones included; everything else is refused with what to do", () => {
  assert.equal(parseScore("1", "score"), 1);
  assert.equal(parseScore("0", "score"), 0);
  assert.equal(parseScore("2", "score"), 2);
  assert.equal(parseScore("-1", "score"), -1);
  assert.match(String(parseScore("", "score")), /^score is empty; write relevance as a plain integer/);
  for (const bad of ["0x10", "1.5", "1e2", " 1", "1 ", "+1", "1.0", "0b1"]) {
    assert.equal(typeof parseScore(bad, "score"), "string", bad);
    assert.match(String(parseScore(bad, "score")), new RegExp(`^score '${esc(bad)}' is not a plain integer; `), bad);
  }
  assert.match(String(parseScore("yes", "relevance")), /^relevance 'yes' is not a number; /);
  assert.match(String(parseScore("Infinity", "score")), /^score 'Infinity' is not a number; /);
});

for (const [label, score, detail] of [
  ["an empty score (was: the judgment silently dropped)", "", /^score is empty/],
  ["a hexadecimal score (was: 0x10 counted as 16)", "0x10", /^score '0x10' is not a plain integer/],
  ["a decimal score", "1.5", /^score '1\.5' is not a plain integer/],
  ["an exponent score", "1e2", /^score '1e2' is not a plain integer/],
  ["a score with a leading space", " 1", /^score ' 1' is not a plain integer/],
  ["a score with a plus sign", "+1", /^score '\+1' is not a plain integer/],
] as const) {
  test(`qrels TSV: ${label} is an error naming the line`, async () => {
    const dir = beirDir({ qrels: [QRELS[0], QRELS[1], `q2\td2\t${score}`] });
    await rejectsAt(readBeir(dir), qrelsOf(dir), 3, detail);
    await rejectsAt(readQrels(qrelsOf(dir)), qrelsOf(dir), 3, detail);
    await rejectsAt(readQrels(qrelsOf(dir)), qrelsOf(dir), 3, detail);
  });
}

test("TREC qrels: a hexadecimal, decimal, exponent or signed relevance is an error naming the line", async () => {
  const file = path.join(TMP, "loose.qrels");
  for (const rel of ["0x10", "1.5", "1e2", "+1"]) {
    writeFileSync(file, `q1 0 d1 1\nq2 0 d2 ${rel}\n`);
    await rejectsAt(readQrels(file), file, 2, new RegExp(`^relevance '${esc(rel)}' is not a plain integer; write relevance as a plain integer`));
  }
});

test("a negative integer score is read as not relevant, in both qrels forms", async () => {
  const tsv = path.join(TMP, "neg.tsv");
  writeFileSync(tsv, "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t-1\nq2\td3\t-2\n");
  assert.deepEqual([...(await readQrels(tsv))].map(([q, s]) => [q, [...s]]), [["q1", ["d1"]]]);
  const trec = path.join(TMP, "neg.qrels");
  writeFileSync(trec, "q1 0 d1 1\nq1 0 d2 -1\n");
  assert.deepEqual([...(await readQrels(trec))].map(([q, s]) => [q, [...s]]), [["q1", ["d1"]]]);
});

// ---------------------------------------------------------------------------------------------
// Ids are taken verbatim: leading or trailing whitespace is an error, not trimmed

test("qrels TSV: a query id with leading whitespace is an error (was: trimmed into another query's id)", async () => {
  const dir = beirDir({ qrels: [QRELS[0], QRELS[1], " q2\td2\t1"] });
  await rejectsAt(readBeir(dir), qrelsOf(dir), 3, /^query id ' q2' is empty or contains whitespace: it has leading or trailing whitespace, which is not trimmed/);
});

test("qrels TSV: a corpus id with trailing whitespace is an error naming the line", async () => {
  const dir = beirDir({ qrels: [QRELS[0], "q1\td1 \t1", QRELS[2]] });
  await rejectsAt(readQrels(qrelsOf(dir)), qrelsOf(dir), 2, /^corpus id 'd1 ' is empty or contains whitespace: it has leading or trailing whitespace/);
});

test("meta.jsonl: an id with trailing whitespace is an error naming the line", async () => {
  const dir = beirDir({ meta: ['{"id": "q1", "area": "Αστικό"}', '{"id": "q2 ", "area": "Ποινικό"}'] });
  await rejectsAt(readBeir(dir), metaOf(dir), 2, /^id 'q2 ' is empty or contains whitespace: it has leading or trailing whitespace/);
  // With --queries the unknown-query check is off, so before this only the id check could catch it.
  const sub = path.join(dir, "sub.jsonl");
  writeFileSync(sub, `${QUERIES[0]}\n`);
  await rejectsAt(readBeir(dir, { queriesFile: sub }), metaOf(dir), 2, /^id 'q2 ' is empty or contains whitespace/);
});

test("corpus.jsonl: an id with leading whitespace says what is wrong and what to do", async () => {
  const dir = beirDir({ corpus: [CORPUS[0], '{"id": " d2", "text": "Δεύτερο"}'] });
  await rejectsAt(readBeir(dir), corpusOf(dir), 2, /^id ' d2' is empty or contains whitespace: it has leading or trailing whitespace, which is not trimmed \(ids are compared exactly\); remove it$/);
});

test("a record whose id is not a string is an error naming the line", async () => {
  const dir = beirDir({ corpus: [CORPUS[0], '{"id": {"n": 2}, "text": "Δεύτερο"}'] });
  await rejectsAt(readBeir(dir), corpusOf(dir), 2, /^id \{"n":2\} is not a string/);
});

test("issue 22, item 5: a numeric id is refused, not coerced: 1.0 would become 1, two 20-digit ids one", async () => {
  for (const raw of ["12345", "1.0", "12345678901234567890"]) {
    const dir = beirDir({ corpus: [CORPUS[0], `{"id": ${raw}, "text": "Δεύτερο"}`] });
    await rejectsAt(readBeir(dir), corpusOf(dir), 2, /^id [0-9.e+]+ is a JSON number: write ids as strings/);
  }
});

// ---------------------------------------------------------------------------------------------
// Every judgment is checked against the corpus and the queries, score 0 included

test("a score-0 judgment naming an article missing from the corpus is an error (was: dropped unchecked)", async () => {
  const dir = beirDir({ qrels: [...QRELS, "q1\tN4765::999\t0"] });
  await rejectsAt(readBeir(dir), qrelsOf(dir), undefined, new RegExp(`^qrels name article 'N4765::999' \\(query 'q1'\\), which is not in ${esc(corpusOf(dir))} \\(line 4\\)$`));
});

test("a score-0 judgment naming a query missing from queries.jsonl is an error naming its line", async () => {
  const dir = beirDir({ qrels: [...QRELS, "q9\td1\t0"] });
  await rejectsAt(readBeir(dir), qrelsOf(dir), undefined, new RegExp(`^qrels name query 'q9', which is not in ${esc(queriesOf(dir))} \\(line 4\\)$`));
});

test("with --queries, judgments of other queries are still checked against the corpus", async () => {
  const dir = beirDir({ qrels: [...QRELS, "q7\tgone\t1"] });
  const sub = path.join(dir, "sub.jsonl");
  writeFileSync(sub, `${QUERIES[0]}\n`);
  await rejectsAt(readBeir(dir, { queriesFile: sub }), qrelsOf(dir), undefined, /^qrels name article 'gone' \(query 'q7'\)/);
});

// ---------------------------------------------------------------------------------------------
// Empty inputs

test("an empty corpus is an error naming corpus.jsonl (was: a qrels error about some article)", async () => {
  const dir = beirDir({ corpus: "" });
  await rejectsAt(readBeir(dir), corpusOf(dir), undefined, /^the corpus is empty \(no article\)/);
  const blank = beirDir({ corpus: "\n  \n" });
  await rejectsAt(readBeir(blank), corpusOf(blank), undefined, /^the corpus is empty/);
});

test("an empty query set is an error naming the queries file, the --queries override included", async () => {
  const dir = beirDir({ queries: "" });
  await rejectsAt(readBeir(dir), queriesOf(dir), undefined, /^no queries \(the file has no record\)/);
  const other = beirDir();
  const sub = path.join(other, "none.jsonl");
  writeFileSync(sub, "\n");
  await rejectsAt(readBeir(other, { queriesFile: sub }), sub, undefined, /^no queries/);
});

test("qrels with a header and no judgment are an error naming the qrels file (was: blamed on a query)", async () => {
  const dir = beirDir({ qrels: [QRELS[0]] });
  await rejectsAt(readBeir(dir), qrelsOf(dir), undefined, /^no judgments: the file has no "query-id<TAB>corpus-id<TAB>score" line after the header/);
  await rejectsAt(readQrels(qrelsOf(dir)), qrelsOf(dir), undefined, /^no judgments/);
});

test("an empty TREC qrels file is an error naming it (was: an empty qrels map, every mean 0)", async () => {
  const file = path.join(TMP, "empty.qrels");
  writeFileSync(file, "\n");
  await rejectsAt(readQrels(file), file, undefined, /^no judgments: the file is empty/);
});

test("qrels whose judgments are all score <= 0 are an error naming the file", async () => {
  const file = path.join(TMP, "none-relevant.qrels");
  writeFileSync(file, "q1 0 d1 0\nq2 0 d2 -1\n");
  await rejectsAt(readQrels(file), file, undefined, /^no relevant judgment: all 2 judgments have a score <= 0/);
  const dir = beirDir({ qrels: [QRELS[0], "q1\td1\t0", "q2\td2\t0"] });
  await rejectsAt(readBeir(dir), qrelsOf(dir), undefined, /^no relevant judgment: all 2 judgments/);
});

test("readJsonl still reads a valid UTF-8 file with a BOM and 4-byte characters", async () => {
  const file = path.join(TMP, "ok.jsonl");
  writeFileSync(file, '\uFEFF{"id": "a", "text": "😀 Άρθρο"}\n');
  assert.deepEqual(await readJsonl(file, ["id"]), [{ line: 1, value: { id: "a", text: "😀 Άρθρο" } }]);
});

// ---------------------------------------------------------------------------------------------
// Issue 22, item 4: files are decoded in pieces cut at line ends (a corpus past V8's string limit
// reads; test/integration/large-corpus.test.ts reads one). The pieces must not show.

test("readTextLines reads a file piece by piece exactly as whole: lines, warnings, and each error's line and offset", async () => {
  const fc = (await import("fast-check")).default;
  const parts = fc.constantFrom("a", "Άρθρο ", "😀", "\n", "\r\n", "\r", " ", "x\ty", "\uFEFF");
  const bad = fc.constantFrom([0xff], [0xe1, 0x41], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf0, 0x9f, 0x98]);
  const content = fc.tuple(fc.array(parts, { maxLength: 30 }), fc.option(fc.tuple(fc.nat(30), bad), { nil: undefined }));
  let k = 0;
  const outcome = async (file: string, pieceBytes?: number) => {
    const warnings: string[] = [];
    try {
      return { lines: await readTextLines(file, (m) => warnings.push(m), pieceBytes), warnings };
    } catch (e) {
      // Read in pieces, a BOM or CRLF before the bad bytes is warned about before the error; read whole, it is not.
      return { error: (e as Error).message, line: (e as DataError).line };
    }
  };
  await fc.assert(
    fc.asyncProperty(content, fc.integer({ min: 1, max: 9 }), async ([texts, invalid], pieceBytes) => {
      const chunks = texts.map((t) => Buffer.from(t, "utf8"));
      if (invalid) chunks.splice(Math.min(invalid[0], chunks.length), 0, Buffer.from(invalid[1]));
      const file = path.join(TMP, `pieces-${k++}.txt`);
      writeFileSync(file, Buffer.concat(chunks));
      assert.deepEqual(await outcome(file, pieceBytes), await outcome(file));
    }),
    { numRuns: 300 },
  );
});

// ---------------------------------------------------------------------------------------------
// Issue 29, row 11: ids with control characters (U+001C–U+001F, U+0085: Python's str.split() splits there, JavaScript's
// \s does not) and areas that are not strings or are blank.

test("an id holding a control character is refused in every file, naming the file, line and character", async () => {
  for (const ch of ["\u001c", "\u001f", "\u0085", "\u0000", "\u007f", "\u009f"]) {
    const code = `U\\+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
    const id = JSON.stringify(`d${ch}1`);
    const corpus = beirDir({ corpus: [`{"id": ${id}, "text": "x"}`, ...CORPUS], qrels: QRELS });
    await rejectsAt(readBeir(corpus), corpusOf(corpus), 1, new RegExp(`^id .* contains the control character ${code}`, "s"));
    const queries = beirDir({ queries: [QUERIES[0], `{"_id": ${JSON.stringify(`q${ch}`)}, "text": "x"}`] });
    await rejectsAt(readBeir(queries), queriesOf(queries), 2, new RegExp(`contains the control character ${code}`, "s"));
    const qrels = beirDir({ qrels: [...QRELS, `q1\td${ch}2\t1`] });
    await rejectsAt(readBeir(qrels), qrelsOf(qrels), 4, new RegExp(`^corpus id .* contains the control character ${code}`, "s"));
    const meta = beirDir({ meta: [`{"id": ${JSON.stringify(`q1${ch}`)}, "area": "Αστικό"}`] });
    await rejectsAt(readBeir(meta), metaOf(meta), 1, new RegExp(`contains the control character ${code}`, "s"));
  }
});

test("the line and paragraph separators are whitespace to ids", async () => {
  for (const ch of ["\u2028", "\u2029"]) {
    const dir = beirDir({ corpus: [`{"id": ${JSON.stringify(`d${ch}1`)}, "text": "x"}`, ...CORPUS] });
    await rejectsAt(readBeir(dir), corpusOf(dir), 1, /is empty or contains whitespace: ids end up in whitespace-separated run files/);
  }
});

test("a TREC run's ids are checked the same way", async () => {
  const { readTrec } = await import("../../../lib/data/runs.js");
  const file = path.join(TMP, "control.trec");
  writeFileSync(file, "q1 Q0 d1 1 2.0 t\nq1 Q0 d\u001c2 2 1.0 t\n");
  await rejectsAt(readTrec(file), file, 2, /^document id .* contains the control character U\+001C/);
});

test("an area must be a string; it is trimmed, and empty or blank means no area (one '(no area)' row)", async () => {
  const { areaStats } = await import("../../../lib/data/stats.js");
  for (const bad of ["3", "true", '["Αστικό"]', '{"name": "Αστικό"}']) {
    const dir = beirDir({ meta: [`{"id": "q1", "area": ${bad}}`] });
    await rejectsAt(readBeir(dir), metaOf(dir), 1, /^"area" of query 'q1' is .*, not a string/);
  }
  const queries = ['{"id": "q1", "text": "α"}', '{"id": "q2", "text": "β"}', '{"id": "q3", "text": "γ"}', '{"id": "q4", "text": "δ"}'];
  const qrels = ["query-id\tcorpus-id\tscore", "q1\td1\t1", "q2\td1\t1", "q3\td2\t1", "q4\td2\t1"];
  const meta = ['{"id": "q1", "area": ""}', '{"id": "q2", "area": "   "}', '{"id": "q3", "area": " Αστικό "}', '{"id": "q4", "area": null}'];
  const b = await readBeir(beirDir({ queries, qrels, meta }));
  assert.deepEqual([...b.meta.values()].map((m) => m.area), [undefined, undefined, "Αστικό", undefined]);
  assert.deepEqual(areaStats(b).map((r) => [r.area, r.queries]), [["(no area)", 3], ["Αστικό", 1]]);
});
