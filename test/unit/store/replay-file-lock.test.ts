/**
 * The cross-process lock (lib/util/file-lock.ts) within one process: shared holds run together,
 * exclusive ones take turns (also without a lock file), a failing holder releases, a folder that cannot hold locks runs the
 * work unlocked with one message; and two replay cache objects of one process on one file make a
 * call once.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, test } from "node:test";
import { FileLocks } from "../../../lib/util/file-lock";

const locks = new FileLocks();
const withFileLock: FileLocks["run"] = (lockPath, fn, opts) => locks.run(lockPath, fn, opts);
import { openReplayCache, withReplay } from "../../../lib/store";
import type { ChatModel } from "../../../lib/models/chat";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gbr-lock-"));
  dirs.push(dir);
  return dir;
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("shared holds of one process run together; exclusive ones take turns; the lock is gone afterwards", async () => {
  const lock = path.join(tempDir(), "nested", "t.lock");
  let inside = 0;
  let most = 0;
  const work = async () => {
    inside++;
    most = Math.max(most, inside);
    assert.ok(fs.existsSync(lock), "held while working");
    await sleep(30);
    inside--;
  };
  await Promise.all([withFileLock(lock, work), withFileLock(lock, work), withFileLock(lock, work)]);
  assert.equal(most, 3);
  assert.equal(fs.existsSync(lock), false);
  most = 0;
  await Promise.all([1, 2, 3].map(() => withFileLock(lock, work, { inProcess: "exclusive" })));
  assert.equal(most, 1);
  assert.equal(fs.existsSync(lock), false);
});

test("fileless (an object store): exclusive callers take turns, a turn inside a shared hold does not wait for it, and nothing is written", async () => {
  const dir = path.join(tempDir(), "bucket");
  const lock = path.join(dir, ".locks", "t.lock");
  let inside = 0;
  let most = 0;
  const work = async () => {
    inside++;
    most = Math.max(most, inside);
    await sleep(20);
    inside--;
  };
  await Promise.all([1, 2, 3].map(() => withFileLock(lock, work, { inProcess: "exclusive", fileless: true })));
  assert.equal(most, 1);
  // The vector store's pattern: a caller holds the table shared, and writes inside it take their turns.
  const nested = await withFileLock(lock, () => withFileLock(lock, async () => "written", { inProcess: "exclusive", fileless: true }), { fileless: true });
  assert.equal(nested, "written");
  assert.equal(fs.existsSync(dir), false, "no lock folder or file");
});

test("a failing holder passes its error through and releases the lock", async () => {
  const lock = path.join(tempDir(), "t.lock");
  await assert.rejects(
    withFileLock(lock, async () => {
      throw new Error("provider down");
    }),
    /provider down/,
  );
  assert.equal(fs.existsSync(lock), false);
  assert.equal(await withFileLock(lock, async () => 42), 42);
});

test("where no lock can be made the work runs unlocked, reported once per folder", async () => {
  // A file where the locks' folder should be: no lock can be made there, even by root.
  const blocked = path.join(tempDir(), "blocked");
  fs.writeFileSync(blocked, "");
  const logs: string[] = [];
  const got = await Promise.all([1, 2].map((i) => withFileLock(path.join(blocked, `${i}.lock`), async () => i, { log: (m) => logs.push(m) })));
  assert.deepEqual(got, [1, 2]);
  assert.equal(logs.length, 1, logs.join("\n"));
  assert.match(logs[0], /cannot lock .* going on without locks/);
});

test("two replay cache objects of one process asking the same new call at once make it once", async () => {
  const data = tempDir();
  let calls = 0;
  const model: ChatModel = {
    id: "openai:m",
    complete: async (req) => {
      calls++;
      await sleep(50);
      return { text: `απάντηση: ${req.user}`, raw: `απάντηση: ${req.user}`, usage: { input: 3, output: 2 }, seconds: 0.05 };
    },
  };
  const [a, b] = await Promise.all([openReplayCache({ dataDir: data }), openReplayCache({ dataDir: data })]);
  const req = { system: "s", user: "Μισθωτής δεν πληρώνει." };
  const [ra, rb] = await Promise.all([withReplay(model, a).complete(req), withReplay(model, b).complete(req)]);
  assert.equal(calls, 1);
  assert.equal(ra.text, rb.text);
  assert.deepEqual([ra.replayed, rb.replayed].sort(), [false, true]);
  assert.equal(fs.readdirSync(path.join(data, "store", "chat")).length, 1);
});
