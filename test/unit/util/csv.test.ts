import { test, describe, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { readTable } from "../../../lib/data/tabular";
import { parseDelimited } from "../../../lib/util/csv";
import { parseCsvRecords, readCsvIfExists } from "../../../lib/util/csv";
import { csvText, toCsv } from "../../../lib/util/csv";
import { dataErrorAt } from "../../helpers/assertions";

// The csv readers over csv-parse: the grammar, the line each row starts on (what errors point
// at), and the "<file>:<line>: …" errors, for the Hub's data files and the report's inputs.

const TMP = mkdtempSync(path.join(os.tmpdir(), "gbr-csv-test-"));
after(() => rmSync(TMP, { recursive: true, force: true }));

describe("parseDelimited", () => {
  test("quoted commas, doubled quotes, line breaks in quotes, CRLF then LF, trailing blank lines", () => {
    const { rows, lines } = parseDelimited('a,b\r\n1,"x, y"\r\n2,"he said ""hi"""\r\n3,"multi\nline"\n4,\n\n');
    assert.deepEqual(rows, [
      { a: "1", b: "x, y" },
      { a: "2", b: 'he said "hi"' },
      { a: "3", b: "multi\nline" },
      { a: "4", b: "" },
    ]);
    assert.deepEqual(lines, [2, 3, 4, 6]);
  });

  test("a CRLF inside a quoted field is one line, and later rows keep their lines", () => {
    const { rows, lines } = parseDelimited('a,b\r\n1,"x\r\ny"\r\n\r\n2,z\r\n3,"p\rq"\r\n4,w');
    assert.deepEqual(rows.map((r) => r.b), ["x\r\ny", "z", "p\rq", "w"]);
    assert.deepEqual(lines, [2, 5, 6, 8]);
    assert.throws(() => parseDelimited('a,b\r\n1,"x\r\ny"\r\n2\r\n', "f.csv"), dataErrorAt("f.csv", 4, /^expected 2 fields \(as in the header\), found 1$/));
  });

  test("blank lines are not rows but still count; lone CR ends a line too", () => {
    assert.deepEqual(parseDelimited('a,b\n\n\n1,2\n\n3,"4\n\n5"\n\n6,7\n').lines, [4, 6, 10]);
    const cr = parseDelimited("a,b\r1,2\r\r3,4");
    assert.deepEqual(cr.rows, [{ a: "1", b: "2" }, { a: "3", b: "4" }]);
    assert.deepEqual(cr.lines, [2, 4]);
  });

  test("a byte-order mark is not part of the first column's name; header names are trimmed", () => {
    assert.deepEqual(parseDelimited("\ufeffid, text \nq1,α\n").rows, [{ id: "q1", text: "α" }]);
  });

  test("an empty file or a header alone has no rows", () => {
    assert.deepEqual(parseDelimited(""), { rows: [], lines: [] });
    assert.deepEqual(parseDelimited("\n\n"), { rows: [], lines: [] });
    assert.deepEqual(parseDelimited("a,b\n"), { rows: [], lines: [] });
  });

  test("cells are kept verbatim: spaces, a quote inside an unquoted field, text after a closing quote", () => {
    assert.deepEqual(parseDelimited('a,b\n 1 ,5" screen\n"x"y,z\n').rows, [
      { a: " 1 ", b: '5" screen' },
      { a: '"x"y', b: "z" },
    ]);
  });

  test("errors name the file and the line the record starts on", () => {
    assert.throws(() => parseDelimited("a,b\n1,2,3\n", "f.csv"), dataErrorAt("f.csv", 2, /^expected 2 fields \(as in the header\), found 3$/));
    assert.throws(() => parseDelimited('a,b\n1,2\n\n3,"open\n\nstill open', "f.csv"), dataErrorAt("f.csv", 4, /^unterminated quoted field/));
    assert.throws(() => parseDelimited("\n\nid,x,id\n1,2,3\n", "f.csv"), dataErrorAt("f.csv", 3, /^duplicate column 'id' in the header$/));
    assert.throws(() => parseDelimited("a,b\n1,2,3\n"), dataErrorAt("<csv>", 2, /found 3/));
  });

  test("whatever toCsv writes reads back, each row on the line it starts on", () => {
    const cell = fc.array(fc.constantFrom("a", "α", " ", ",", '"', "\n", "\r", "\r\n", "\t", "x y", "=", "+", "-", "@", "'", "1"), { maxLength: 6 }).map((parts) => parts.join(""));
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 4 }), fc.array(fc.array(cell, { minLength: 4, maxLength: 4 }), { maxLength: 8 }), (width, cells) => {
        const header = Array.from({ length: width }, (_, i) => `c${i}`);
        const rows = cells.map((r) => r.slice(0, width));
        const { rows: back, lines } = parseDelimited(toCsv(header, rows));
        assert.deepEqual(back.map((r) => header.map((h) => csvText(r[h]))), rows);
        let line = 2;
        rows.forEach((r, i) => {
          assert.equal(lines[i], line);
          // Per cell: "\r" ending one cell and "\n" starting the next are two line ends.
          for (const c of r) line += c.split(/\r\n|\r|\n/).length - 1;
          line += 1;
        });
      }),
    );
  });
});

describe("toCsv: what a spreadsheet would evaluate is written as text", () => {
  test("issue 29: a text cell starting with = + - @, a tab or CR gets a leading ', numbers stay numbers, and it reads back", () => {
    const header = ["query", "area", "nDCG@10", "delta"];
    const rows = [
      ["=HYPERLINK(\"http://x\")", "-civil", 0.5, -0.154],
      ["+Q1", "@SUM(A1)", "0.25", "-0.154"],
      ["\tQ2", "\rQ3", "-", "'=already"],
      ["Q4", "'plain", "1e-5", "-1e-5"],
    ];
    const text = toCsv(header, rows);
    assert.equal(
      text,
      [
        "query,area,nDCG@10,delta",
        `"'=HYPERLINK(""http://x"")",'-civil,0.5,-0.154`,
        "'+Q1,'@SUM(A1),0.25,-0.154",
        `'\tQ2,"'\rQ3",'-,''=already`,
        "Q4,'plain,1e-5,-1e-5",
        "",
      ].join("\n"),
    );
    assert.deepEqual(
      parseCsvRecords(text).map((r) => header.map((h) => r[h])),
      rows.map((r) => r.map(String)),
      "the project's reader takes the ' off again; a cell that began with ' keeps it",
    );
  });
});

describe("readTable (csv files)", () => {
  test("quoted fields may hold commas and line ends; rows know their line", async () => {
    const file = path.join(TMP, "qrels.csv");
    writeFileSync(file, 'query-id,corpus-id,note\nq1,ΑΚ::914,"a,b"\nq2,ΠΚ::375,"two\nlines"\nq3,ΑΚ::932,\n');
    const t = await readTable(file);
    assert.deepEqual(t.rows, [
      { "query-id": "q1", "corpus-id": "ΑΚ::914", note: "a,b" },
      { "query-id": "q2", "corpus-id": "ΠΚ::375", note: "two\nlines" },
      { "query-id": "q3", "corpus-id": "ΑΚ::932", note: "" },
    ]);
    assert.deepEqual([0, 1, 2].map((i) => t.lineOf(i)), [2, 3, 5]);
    assert.equal(t.describe(2), "line 5");
  });

  test("a csv file with a BOM and CRLF; a malformed one fails with its path and line", async () => {
    const good = path.join(TMP, "meta.csv");
    writeFileSync(good, "\ufeffid,area\r\nq1,civil\r\n");
    assert.deepEqual((await readTable(good)).rows, [{ id: "q1", area: "civil" }]);
    const bad = path.join(TMP, "bad.csv");
    writeFileSync(bad, 'id,area\r\nq1,"civil\r\nlaw"\r\nq2\r\n');
    await assert.rejects(readTable(bad), dataErrorAt(bad, 4, /^expected 2 fields/));
  });
});

describe("report csv records", () => {
  test("records are strings; a BOM is ignored", () => {
    assert.deepEqual(parseCsvRecords('\ufeffexperiment,Recall@100,reason\nbm25,0.9576,"a, ""b""\nc"\n'), [
      { experiment: "bm25", "Recall@100": "0.9576", reason: 'a, "b"\nc' },
    ]);
  });

  test('errors read "<file>:<line>: …"', () => {
    assert.throws(() => parseCsvRecords("experiment,seconds\nbm25,1\nlsi\n", "summary.csv"), dataErrorAt("summary.csv", 3, /^expected 2 fields \(as in the header\), found 1$/));
    assert.throws(() => parseCsvRecords('experiment,reason\nbm25,"never closed\n', "summary.csv"), dataErrorAt("summary.csv", 2, /^unterminated quoted field/));
  });

  test("readCsvIfExists names the file of a malformed csv; only a missing one is undefined", async () => {
    const file = path.join(TMP, "per-query.csv");
    writeFileSync(file, "experiment,query\nbm25,Q1,extra\n");
    await assert.rejects(readCsvIfExists(file), dataErrorAt(file, 2, /found 3/));
    assert.equal(await readCsvIfExists(path.join(TMP, "cost.csv")), undefined);
    const ok = path.join(TMP, "table1.csv");
    writeFileSync(ok, "a,b\r\n1,2\r\n");
    assert.deepEqual(await readCsvIfExists(ok), [{ a: "1", b: "2" }]);
  });
});
