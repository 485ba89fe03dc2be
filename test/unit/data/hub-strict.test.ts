import { test, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { benchmarkFromCache } from "../../../lib/data/hub-benchmark";
import type { Manifest } from "../../../lib/data/hub-manifest";
import { readTable } from "../../../lib/data/tabular";
import { dataErrorAt } from "../../helpers/assertions";

// Issue 10, "strict input", for the Hub's cached files: the same rules as the BEIR folder
// (UTF-8 only, plain integer scores, ids verbatim, no empty config), read straight from a cache.

const TMP = mkdtempSync(path.join(os.tmpdir(), "gbr-hub-strict-"));
after(() => rmSync(TMP, { recursive: true, force: true }));

const CORPUS = '{"id": "ΑΚ::914", "text": "Όποιος ζημιώσει άλλον"}\n{"id": "ΠΚ::375", "text": "Όποιος ιδιοποιείται"}\n';
const QUERIES = '[{"id": "q1", "text": "Ποια αξίωση;"}, {"id": "q2", "text": "Τι αδίκημα;"}]';
const QRELS = "query-id,corpus-id,score\nq1,ΑΚ::914,1\nq2,ΠΚ::375,1\n";

let n = 0;
/** A pull's cache folder holding corpus.jsonl, queries.json and qrels.csv, and its manifest. */
function cache(files: { corpus?: string | Buffer; queries?: string | Buffer; qrels?: string | Buffer } = {}) {
  const dir = path.join(TMP, `cache${++n}`);
  mkdirSync(path.join(dir, "files"), { recursive: true });
  writeFileSync(path.join(dir, "files", "corpus.jsonl"), files.corpus ?? CORPUS);
  writeFileSync(path.join(dir, "files", "queries.json"), files.queries ?? QUERIES);
  writeFileSync(path.join(dir, "files", "qrels.csv"), files.qrels ?? QRELS);
  const manifest: Manifest = {
    repo: "test/strict",
    revision: "v0",
    sha: "0".repeat(40),
    configs: { corpus: ["corpus.jsonl"], queries: ["queries.json"], qrels: ["qrels.csv"] },
    files: [],
    fetchedAt: "2026-01-01T00:00:00Z",
  };
  const file = (name: string) => path.join(dir, "files", name);
  const load = (configs: Partial<Manifest["configs"]> = {}) => benchmarkFromCache(dir, { ...manifest, configs: { ...manifest.configs, ...configs } as Manifest["configs"] }, () => {});
  return { load, file };
}

test("the strict toy cache loads", async () => {
  const b = await cache().load();
  assert.deepEqual(b.docs.map((d) => d.id), ["ΑΚ::914", "ΠΚ::375"]);
  assert.deepEqual([...b.qrels.keys()], ["q1", "q2"]);
});

test("invalid UTF-8 in a cached csv, jsonl or json file is an error naming the file, line and byte offset", async () => {
  const bad = (text: string, bytes: number[]) => {
    const [a, b] = text.split("\u0000");
    return Buffer.concat([Buffer.from(a), Buffer.from(bytes), Buffer.from(b)]);
  };
  const csv = cache({ qrels: bad("query-id,corpus-id,score\nq1,ΑΚ::914,1\nq2,\u0000K::375,1\n", [0xd0]) });
  await assert.rejects(csv.load(), dataErrorAt(csv.file("qrels.csv"), 3, /^invalid UTF-8 at byte offset 43 \(bytes 0xD0 0x4B/));
  const jsonl = cache({ corpus: bad('{"id": "a", "text": "x"}\r\n{"id": "b", "text": "\u0000"}\r\n', [0xe1, 0xe1]) });
  await assert.rejects(jsonl.load(), dataErrorAt(jsonl.file("corpus.jsonl"), 2, /^invalid UTF-8 at byte offset 47 \(bytes 0xE1 0xE1/));
  const json = cache({ queries: bad('[\n{"id": "q1", "text": "\u0000"}]', [0xff]) });
  await assert.rejects(json.load(), dataErrorAt(json.file("queries.json"), 2, /^invalid UTF-8 at byte offset 24 \(bytes 0xFF/));
  // readTable is where the Hub's files are decoded.
  const other = path.join(TMP, "x.csv");
  writeFileSync(other, Buffer.concat([Buffer.from("a,b\n1,"), Buffer.from([0x80]), Buffer.from("\n")]));
  await assert.rejects(readTable(other), dataErrorAt(other, 2, /^invalid UTF-8 at byte offset 6 /));
});

for (const [label, score, detail] of [
  ["an empty score", "", /^score is empty; write relevance as a plain integer/],
  ["a hexadecimal score (was: 0x10 counted as 16)", "0x10", /^score '0x10' is not a plain integer/],
  ["a decimal score", "1.5", /^score '1\.5' is not a plain integer/],
  ["an exponent score (was: 1e2 counted as 100)", "1e2", /^score '1e2' is not a plain integer/],
  ["a score with a leading space (was: trimmed)", " 1", /^score ' 1' is not a plain integer/],
  ["a score with a plus sign", "+1", /^score '\+1' is not a plain integer/],
] as const) {
  test(`Hub qrels csv: ${label} is an error naming the file and line`, async () => {
    const c = cache({ qrels: `query-id,corpus-id,score\nq1,ΑΚ::914,1\nq2,ΠΚ::375,${score}\n` });
    await assert.rejects(c.load(), dataErrorAt(c.file("qrels.csv"), 3, detail));
  });
}

test("Hub qrels jsonl: a JSON number that is not an integer is an error naming the line", async () => {
  const c = cache();
  writeFileSync(c.file("qrels.csv"), "query-id,corpus-id,score\nq1,ΑΚ::914,1\nq2,ΠΚ::375,2\n");
  assert.deepEqual([...(await c.load()).qrels.keys()], ["q1", "q2"], "graded integers are fine");
  const j = cache();
  writeFileSync(j.file("qrels.csv"), "");
  writeFileSync(j.file("qrels.jsonl"), '{"query-id": "q1", "corpus-id": "ΑΚ::914", "score": 1}\n{"query-id": "q2", "corpus-id": "ΠΚ::375", "score": 0.5}\n');
  await assert.rejects(j.load({ qrels: ["qrels.jsonl"] }), dataErrorAt(j.file("qrels.jsonl"), 2, /^score 0\.5 is not a plain integer/));
});

test("Hub qrels: a query id with leading whitespace is an error naming the line", async () => {
  const c = cache({ qrels: "query-id,corpus-id,score\nq1,ΑΚ::914,1\n q2,ΠΚ::375,1\n" });
  await assert.rejects(c.load(), dataErrorAt(c.file("qrels.csv"), 3, /^query id ' q2' is empty or contains whitespace: it has leading or trailing whitespace/));
});

test("Hub: an empty corpus, an empty query set or qrels without a judgment is an error naming the file", async () => {
  const corpus = cache({ corpus: "\n" });
  await assert.rejects(corpus.load(), dataErrorAt(corpus.file("corpus.jsonl"), undefined, /^the corpus is empty: the 'corpus' config has no row/));
  const queries = cache({ queries: "[]" });
  await assert.rejects(queries.load(), dataErrorAt(queries.file("queries.json"), undefined, /^no queries: the 'queries' config has no row/));
  const qrels = cache({ qrels: "query-id,corpus-id,score\n" });
  await assert.rejects(qrels.load(), dataErrorAt(qrels.file("qrels.csv"), undefined, /^no judgments: the 'qrels' config has no row/));
  const zero = cache({ qrels: "query-id,corpus-id,score\nq1,ΑΚ::914,0\nq2,ΠΚ::375,0\n" });
  await assert.rejects(zero.load(), dataErrorAt(zero.file("qrels.csv"), undefined, /^no relevant judgment: all 2 judgments have a score <= 0/));
});

test("issue 28, item 1: a Hub query without judgments is loaded, to be searched and not evaluated; a qrels row of an unknown query is an error naming its line", async () => {
  const withExtra = cache({ queries: '[{"id": "q1", "text": "Ποια αξίωση;"}, {"id": "q2", "text": "Τι αδίκημα;"}, {"id": "q3", "text": "Χωρίς κρίση;"}]' });
  const b = await withExtra.load();
  assert.deepEqual(b.queries.map((q) => q.id), ["q1", "q2", "q3"]);
  assert.deepEqual([...b.qrels.keys()], ["q1", "q2"]);
  const unknown = cache({ qrels: `${QRELS}q9,ΑΚ::914,1\n` });
  await assert.rejects(unknown.load(), dataErrorAt(unknown.file("qrels.csv"), 4, /^qrels name query 'q9', which is not in the queries config/));
});
