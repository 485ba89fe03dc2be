/**
 * Issue 28, item 7: a disk that refuses a write is named with the folder and what to do, whatever the reason (full,
 * over quota, read-only, no permission); a store refused once makes no further record (its calls would be lost).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { GbrError, writeFault } from "../../../lib/util/errors";
import { openStore, type RecordKind } from "../../../lib/store";
import { writeTrace, type ReactTrace } from "../../../lib/llm/react-traces";

const sysErr = (code: string) => Object.assign(new Error(`${code}: refused, open '/x/y.tmp'`), { code });

test("writeFault names the folder and the setting for each refusal, and passes anything else through", () => {
  const cases: [string, string, string][] = [
    ["ENOSPC", "DISK_FULL", "no space left on the disk holding /data (ENOSPC)"],
    ["EDQUOT", "DISK_FULL", "the disk quota is exhausted for /data (EDQUOT)"],
    ["EROFS", "UNWRITABLE", "a read-only file system holds /data (EROFS)"],
    ["EACCES", "UNWRITABLE", "no permission to write to /data (EACCES)"],
    ["EPERM", "UNWRITABLE", "no permission to write to /data (EPERM)"],
  ];
  for (const [code, kind, message] of cases) {
    const e = writeFault(sysErr(code), "/data", "GBR_DATA_DIR");
    assert.ok(e instanceof GbrError, code);
    assert.equal(e.code, kind);
    assert.equal(e.message, message);
    assert.match(e.hint ?? "", /\(or give GBR_DATA_DIR another folder\), then run again$/);
  }
  const other = sysErr("ENOENT");
  assert.equal(writeFault(other, "/data", "GBR_DATA_DIR"), other);
});

interface Note {
  key: string;
}
const NOTE: RecordKind<Note> = { name: "note", keyOf: (r) => r.key, problem: () => undefined };
const KEY = (c: string) => c.repeat(64);

test("a store whose disk refused one record claims no other: make is not called again", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gbr-write-fault-"));
  const open = fs.promises.open;
  fs.promises.open = (async (file: fs.PathLike, ...rest: unknown[]) => {
    if (String(file).endsWith(".tmp")) throw sysErr("EROFS");
    return (open as (...a: unknown[]) => Promise<fs.promises.FileHandle>)(file, ...rest);
  }) as typeof open;
  try {
    const store = await openStore(dir, { log: () => {} });
    let made = 0;
    const make = (key: string) => async () => (made++, { key });
    await assert.rejects(store.produce(NOTE, KEY("a"), make(KEY("a"))), { code: "UNWRITABLE", message: `a read-only file system holds ${store.dir} (EROFS)` });
    await assert.rejects(store.produce(NOTE, KEY("b"), make(KEY("b"))), { code: "UNWRITABLE" });
    assert.equal(made, 1, "the second record was not made");
  } finally {
    fs.promises.open = open;
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a REACT trace onto a full disk fails naming its folder, and leaves no temporary file", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gbr-write-fault-"));
  const open = fs.promises.open;
  fs.promises.open = (async (file: fs.PathLike, ...rest: unknown[]) => {
    const fh = await (open as (...a: unknown[]) => Promise<fs.promises.FileHandle>)(file, ...rest);
    if (!String(file).endsWith(".tmp")) return fh;
    await fh.writeFile("{\"half\":");
    await fh.close();
    throw sysErr("ENOSPC");
  }) as typeof open;
  try {
    await assert.rejects(writeTrace(path.join(dir, "Q01.json"), {} as ReactTrace), { code: "DISK_FULL", message: `no space left on the disk holding ${dir} (ENOSPC)` });
  } finally {
    fs.promises.open = open;
  }
  assert.deepEqual(fs.readdirSync(dir), []);
  fs.rmSync(dir, { recursive: true, force: true });
});
