/**
 * Issue 29, row 5: a line past V8's string limit aborted Node (corpus.jsonl, a replay import) and a long import line was
 * called "not valid UTF-8". Lines are now counted in bytes while read (one reader, lib/util/line-pieces.ts) and a line
 * past the limit is a DataError naming the file and line; the limit is a parameter, so small limits stand in here.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { readTextLines } from "../../../lib/data/beir";
import { importFile, readLines } from "../../../lib/store/jsonl";
import { openStore, type RecordKind } from "../../../lib/store";
import { dataErrorAt } from "../../helpers/assertions";

const TMP = mkdtempSync(path.join(os.tmpdir(), "gbr-line-limit-"));
after(() => rmSync(TMP, { recursive: true, force: true }));
let k = 0;
const fileOf = (bytes: Buffer | string) => {
  const file = path.join(TMP, `f-${k++}.txt`);
  writeFileSync(file, bytes);
  return file;
};

/** The reference: the 1-based number of the first LF-separated line longer than `max` bytes, or undefined. */
function firstLongLine(bytes: Buffer, max: number): number | undefined {
  let start = 0;
  for (let line = 1; ; line++) {
    const nl = bytes.indexOf(0x0a, start);
    const end = nl < 0 ? bytes.length : nl;
    if (end - start > max) return line;
    if (nl < 0) return undefined;
    start = nl + 1;
  }
}

test("readTextLines: the first line past the limit is a DataError naming it, whatever the piece size; shorter lines read as without a limit", async () => {
  const fc = (await import("fast-check")).default;
  // No lone CR: it ends a line for readTextLines but not for a byte count, and the reference counts LF lines.
  const parts = fc.constantFrom("a", "Άρθρο ", "😀", "\n", "\r\n", " ", "\n\n", "bbbbbbbb");
  await fc.assert(
    fc.asyncProperty(fc.array(parts, { maxLength: 30 }), fc.integer({ min: 1, max: 9 }), fc.integer({ min: 0, max: 20 }), async (texts, pieceBytes, max) => {
      const bytes = Buffer.from(texts.join(""), "utf8");
      const file = fileOf(bytes);
      const long = firstLongLine(bytes, max);
      if (long === undefined) {
        assert.deepEqual(await readTextLines(file, undefined, pieceBytes, max), await readTextLines(file));
      } else {
        await assert.rejects(readTextLines(file, undefined, pieceBytes, max), dataErrorAt(file, long, /line is longer than [\d,]+ bytes/));
      }
    }),
    { numRuns: 400 },
  );
});

test("readLines (the store's import): the same limit, the line named, the lines before it yielded", async () => {
  const file = fileOf("{}\n{}\n" + "x".repeat(100) + "\n{}\n");
  const seen: string[] = [];
  await assert.rejects(
    (async () => {
      for await (const { line } of readLines(file, 50)) seen.push(line.toString());
    })(),
    dataErrorAt(file, 3, /line is longer than 50 bytes, more than one JavaScript string holds/),
  );
  assert.deepEqual(seen, ["{}", "{}"]);
});

interface Note {
  key: string;
  text: string;
}
const NOTE: RecordKind<Note> = {
  name: "note",
  keyOf: (r) => keyOf(r.text),
  problem: (v) => (typeof (v as Note)?.text === "string" ? undefined : "no text"),
};
const keyOf = (text: string) => createHash("sha256").update(text).digest("hex");
const note = (text: string) => JSON.stringify({ key: keyOf(text), text });

test("importFile: a line past the limit stops the import with a DataError naming it; the records before it are kept", async () => {
  const store = await openStore(path.join(TMP, "store-a"), { log: () => {} });
  const file = fileOf(`${note("one")}\n${note("x".repeat(200))}\n${note("two")}\n`);
  await assert.rejects(importFile(store, NOTE, file, { maxLineBytes: 100 }), dataErrorAt(file, 2, /line is longer than 100 bytes/));
  assert.equal((await store.get(NOTE, keyOf("one")))?.text, "one");
  assert.equal(store.has(NOTE, keyOf("two")), false);
});

test("importFile (converted lines): a skipped line says 'not valid UTF-8' only when its bytes are not, 'not valid JSON' otherwise", async () => {
  const store = await openStore(path.join(TMP, "store-b"), { log: () => {} });
  const file = fileOf(Buffer.concat([Buffer.from(`${note("one")}\n{"key": oops}\n`), Buffer.from([0x7b, 0xff, 0x7d, 0x0a]), Buffer.from(`${note("two")}\n`)]));
  const log: string[] = [];
  const convert = async function* (values: AsyncIterable<unknown>) {
    for await (const v of values) yield v as Note;
  };
  const got = await importFile(store, NOTE, file, { log: (m) => log.push(m), convert });
  assert.deepEqual(got, { added: 2, skipped: 0, damaged: 2 });
  assert.deepEqual(log, [`${file}: skipping line 2 (not valid JSON)`, `${file}: skipping line 3 (not valid UTF-8)`]);
});
