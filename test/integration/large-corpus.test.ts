/**
 * Issue 22, item 4: a valid corpus past V8's string limit (about 512 M characters) was reported as "invalid UTF-8 at
 * byte 0". It loads now (read in pieces cut at line ends); a single line past the limit is an error that says so.
 */
import assert from "node:assert/strict";
import { constants } from "node:buffer";
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { loadBenchmark } from "../../lib/data/source";
import { DataError } from "../../lib/util/errors";

const TMP = mkdtempSync(path.join(os.tmpdir(), "gbr-large-corpus-"));
after(() => rmSync(TMP, { recursive: true, force: true }));

const LIMIT = constants.MAX_STRING_LENGTH; // 536,870,888 on 64-bit V8
const PER_DOC = 1 << 20;

/** A BEIR folder whose corpus is `docs` articles of `chars` ASCII characters each (one line per article). */
async function folder(name: string, docs: number, chars: number): Promise<string> {
  const dir = path.join(TMP, name);
  mkdirSync(path.join(dir, "qrels"), { recursive: true });
  const out = createWriteStream(path.join(dir, "corpus.jsonl"));
  const write = async (text: string) => {
    if (!out.write(text)) await new Promise<void>((r) => out.once("drain", () => r()));
  };
  // Written a megabyte at a time: a line past the limit cannot be one string here either.
  const block = "a ".repeat(PER_DOC / 2);
  for (let i = 0; i < docs; i++) {
    await write(`{"_id": "D::${i}", "title": "", "text": "`);
    for (let left = chars; left > 0; left -= block.length) await write(left >= block.length ? block : block.slice(0, left));
    await write('"}\n');
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  writeFileSync(path.join(dir, "queries.jsonl"), '{"_id": "q1", "text": "a"}\n');
  writeFileSync(path.join(dir, "qrels", "test.tsv"), "query-id\tcorpus-id\tscore\nq1\tD::0\t1\n");
  return dir;
}

test("a corpus of more characters than one JavaScript string holds loads, every article whole", async () => {
  const docs = Math.ceil(LIMIT / PER_DOC) + 4;
  const dir = await folder("many-lines", docs, PER_DOC);
  const loaded = await loadBenchmark(dir, { log: () => {} });
  const chars = loaded.benchmark.docs.reduce((n, d) => n + d.text.length, 0);
  assert.equal(loaded.benchmark.docs.length, docs);
  assert.ok(chars > LIMIT, `${chars} characters, the limit is ${LIMIT}`);
  assert.ok(loaded.benchmark.docs.every((d) => d.text.length === PER_DOC));
});

test("one line past the limit is an error naming the file and line and saying why, not invalid UTF-8", async () => {
  const dir = await folder("one-line", 1, LIMIT + 2);
  await assert.rejects(loadBenchmark(dir, { log: () => {} }), (e: unknown) => {
    assert.ok(e instanceof DataError, String(e));
    assert.match(e.message, /corpus\.jsonl:1: the line is longer than 536,870,888 bytes, more than one JavaScript string holds/);
    assert.doesNotMatch(e.message, /invalid UTF-8/);
    return true;
  });
});
