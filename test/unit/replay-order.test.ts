// The replay cache's lines of one run end in key order, whatever order the calls finished in;
// lines of another process in between leave the file as it is; a crash during the ordering is
// finished (or undone) on the next open; readers that indexed the file before still read right.
import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { openReplayCache } from "../../lib/cache/replay-file";
import { orderReplayTails } from "../../lib/cache/replay-order";
import { encodeRecord, replayKey, type ReplayRecord } from "../../lib/cache/replay-record";

function record(i: number, at = "2026-12-01T00:00:00.000Z"): ReplayRecord {
  const request = { system: "σύστημα", user: `ερώτηση ${i}`, temperature: 0.2 };
  return {
    key: replayKey("openai:m", request, 0),
    provider: "openai",
    model: "m",
    request,
    sample: 0,
    response: { text: `απάντηση ${i}`, raw: `απάντηση ${i}`, usage: { input: i, output: 1 }, seconds: 0.5 },
    at,
  };
}

const keysOf = (file: string) => readFileSync(file, "utf8").trim().split("\n").map((l) => (JSON.parse(l) as { key: string }).key);

function shuffled<T>(xs: T[], seed: number): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const j = seed % (i + 1);
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

test("a run's lines end in key order: the same file whatever order the calls finished in", async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gbr-replay-order-"));
  try {
    const files: string[] = [];
    for (const seed of [1, 2, 3]) {
      const file = path.join(dir, `calls-${seed}.jsonl`);
      files.push(file);
      // Something from an earlier run stays where it is.
      writeFileSync(file, encodeRecord(record(999)));
      const cache = await openReplayCache(file, { log: () => {} });
      const reader = await openReplayCache(file, { log: () => {} });
      // Finishing in a different order each time, several at once.
      const order = shuffled(Array.from({ length: 30 }, (_, i) => i), seed);
      await Promise.all(order.slice(0, 29).map((i) => cache.put(record(i))));
      await reader.refresh(); // another reader has indexed all but the last line
      await cache.put(record(order[29]));
      const done = await orderReplayTails();
      // Where it stopped indexing is no longer a line start: it must notice and index anew.
      await reader.refresh();
      for (let i = 0; i < 30; i++) assert.ok(reader.has(record(i).key), `the reader knows record ${i} after the ordering`);
      assert.equal(done.get(path.resolve(file)), 30);
      const keys = keysOf(file);
      assert.equal(keys[0], record(999).key, "the earlier line keeps its place");
      assert.deepEqual(keys.slice(1), [...keys.slice(1)].sort(), "this run's lines in key order");
      // Objects that indexed the file before the ordering still read every record right.
      for (const c of [cache, reader]) for (let i = 0; i < 30; i++) assert.equal((await c.get(record(i).key))?.response.text, `απάντηση ${i}`);
      assert.ok(!existsSync(`${file}.reorder`), "no journal left");
    }
    const [a, b, c] = files.map((f) => readFileSync(f, "utf8"));
    assert.equal(a, b);
    assert.equal(b, c);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("lines of another process between ours: the order is left as it is", async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gbr-replay-order-"));
  try {
    const file = path.join(dir, "calls.jsonl");
    const cache = await openReplayCache(file, { log: () => {} });
    await cache.put(record(2));
    appendFileSync(file, encodeRecord(record(50))); // another process's line
    await cache.put(record(1));
    await cache.put(record(3));
    const before = readFileSync(file, "utf8");
    const done = await orderReplayTails();
    assert.equal(done.size, 0);
    assert.equal(readFileSync(file, "utf8"), before);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a crash during the ordering: a complete journal is copied on the next open, a cut one dropped", async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gbr-replay-order-"));
  try {
    const file = path.join(dir, "calls.jsonl");
    const lines = [0, 1, 2, 3, 4].map((i) => encodeRecord(record(i)));
    const original = Buffer.concat(lines);
    const ordered = Buffer.concat([...lines].sort((x, y) => (x.toString() < y.toString() ? -1 : 1)));
    const journal = Buffer.concat([Buffer.from(JSON.stringify({ start: 0, length: original.length }) + "\n"), ordered]);

    // Crashed half-way through the copy: the region is half new, half old.
    writeFileSync(file, Buffer.concat([ordered.subarray(0, 300), original.subarray(300)]));
    writeFileSync(`${file}.reorder`, journal);
    const messages: string[] = [];
    const cache = await openReplayCache(file, { log: (m) => messages.push(m) });
    assert.deepEqual(readFileSync(file), ordered);
    assert.ok(!existsSync(`${file}.reorder`));
    assert.ok(messages.some((m) => /finished ordering/.test(m)), messages.join("\n"));
    for (let i = 0; i < 5; i++) assert.equal((await cache.get(record(i).key))?.response.text, `απάντηση ${i}`);

    // Crashed while writing the journal: the file was not touched; the journal goes.
    writeFileSync(file, original);
    writeFileSync(`${file}.reorder`, journal.subarray(0, journal.length - 10));
    await openReplayCache(file, { log: () => {} });
    assert.deepEqual(readFileSync(file), original);
    assert.ok(!existsSync(`${file}.reorder`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
