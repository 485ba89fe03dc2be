/**
 * The LanceDB embedding cache on a real local database, a fresh temporary directory per test:
 * exact round trips, persistence across opens, idempotent puts, all-or-nothing validation, one
 * table per fingerprint, resuming after a crash (simulated and with a SIGKILLed writer), and the
 * IVF_PQ search measured against brute-force exact search.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, test } from "node:test";
import * as lancedb from "@lancedb/lancedb";
import { Field, FixedSizeList, Float32, makeData, RecordBatch, Schema, Struct, Table as ArrowTable, Utf8, vectorFromArray } from "apache-arrow";
import { openVectorStore, tableName, type VectorRow, type VectorStore } from "../../lib/store/vector-store";
import { vectorDims, vectorTables } from "../helpers/lance-folder";

const dirs: string[] = [];
const stores: VectorStore[] = [];

/** A new empty directory, removed after the test. */
function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gbr-vectors-"));
  dirs.push(dir);
  return dir;
}

async function open(dir: string): Promise<VectorStore> {
  const s = await openVectorStore(dir);
  stores.push(s);
  return s;
}

afterEach(() => {
  for (const s of stores.splice(0)) s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Deterministic xorshift generator, so failures reproduce. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 2 ** 32;
  };
}

/** A random unit vector (Gaussian components, normalised). */
function unitVector(next: () => number, dims: number): Float32Array {
  const v = new Float32Array(dims);
  let norm = 0;
  for (let j = 0; j < dims; j++) {
    v[j] = Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
    norm += v[j] * v[j];
  }
  norm = Math.sqrt(norm);
  for (let j = 0; j < dims; j++) v[j] /= norm;
  return v;
}

function rows(n: number, dims: number, opts: { seed?: number; prefix?: string; side?: VectorRow["side"] } = {}): VectorRow[] {
  const next = rng(opts.seed ?? 1);
  const prefix = opts.prefix ?? "d";
  return Array.from({ length: n }, (_, i) => ({
    key: `${prefix}-key-${i}`,
    id: `${prefix}${i}`,
    side: opts.side ?? "document",
    vector: unitVector(next, dims),
  }));
}

/** Bit-exact comparison (so -0 vs 0 and float32 rounding would show). */
function assertSameVector(actual: Float32Array | undefined, expected: Float32Array, what: string): void {
  assert.ok(actual instanceof Float32Array, `${what}: missing or not a Float32Array`);
  assert.equal(actual.length, expected.length, `${what}: length`);
  assert.deepEqual(new Uint32Array(actual.buffer, actual.byteOffset, actual.length), new Uint32Array(expected.buffer, expected.byteOffset, expected.length), `${what}: values`);
}

describe("vector store", () => {
  test("put then get returns the exact float32 values, and nothing for unknown keys", async () => {
    const dir = tempDir();
    const store = await open(dir);
    const data = rows(50, 16);
    // Awkward values must survive bit for bit: -0, subnormal, extremes, a non-representable decimal.
    data[0].vector.set([-0, 1e-45, 3.4028234663852886e38, -3.4028234663852886e38, 0.1]);
    await store.put("fp-a", data);
    assert.equal(await store.count("fp-a"), 50);
    assert.equal(await vectorDims(dir, "fp-a"), 16);

    const got = await store.get("fp-a", [...data.map((r) => r.key), "absent-key"]);
    assert.equal(got.size, 50);
    assert.equal(got.has("absent-key"), false);
    for (const r of data) assertSameVector(got.get(r.key)?.vector, r.vector, r.id);

    // A few keys go through the IN-filter path, thousands through the full read: same answer.
    const few = await store.get("fp-a", [data[3].key, data[49].key]);
    assert.deepEqual([...few.keys()].sort(), [data[3].key, data[49].key].sort());
    assertSameVector(few.get(data[3].key)?.vector, data[3].vector, "few");

    assert.equal((await store.get("fp-never-written", [data[0].key])).size, 0);
    assert.equal(await store.count("fp-never-written"), 0);
    assert.equal(await vectorDims(dir, "fp-never-written"), undefined);
    assert.equal((await store.get("fp-a", [])).size, 0);
  });

  test("token counts are stored per row and given back by get; unknown counts stay unknown", async () => {
    const store = await open(tempDir());
    const data = rows(6, 8).map((r, i) => (i % 3 === 2 ? r : { ...r, tokens: 100 + i }));
    data[0].tokens = 0; // a real zero is not an unknown count
    await store.put("fp", data);
    for (const keys of [data.map((r) => r.key), [data[1].key, data[2].key]]) {
      const got = await store.get("fp", keys);
      for (const k of keys) {
        const r = data.find((x) => x.key === k)!;
        assert.equal(got.get(k)?.tokens, r.tokens, r.id);
        assert.equal("tokens" in got.get(k)!, r.tokens !== undefined, `${r.id}: no tokens property when unknown`);
      }
    }
    // The full-scan path (more keys than the IN-filter limit) reads them too.
    const many = rows(600, 4, { prefix: "m" }).map((r, i) => ({ ...r, tokens: i }));
    await store.put("fp-many", many);
    const all = await store.get("fp-many", many.map((r) => r.key));
    assert.equal(all.get(many[599].key)?.tokens, 599);

    const bad = rows(2, 8, { prefix: "bad" });
    bad[1] = { ...bad[1], id: "ΑΚ::57", tokens: -1 };
    await assert.rejects(store.put("fp", bad), /'ΑΚ::57'.*tokens -1/);
    await assert.rejects(store.put("fp", [{ ...bad[0], tokens: 1.5 }]), /tokens 1\.5/);
    assert.equal(await store.count("fp"), 6);
  });

  test("a table written before the tokens column is read and appended to, in its own schema", async () => {
    const dir = tempDir();
    const dims = 8;
    // The schema every table had before token counts were stored: key, id, side, vector.
    const oldSchema = new Schema([
      new Field("key", new Utf8(), false),
      new Field("id", new Utf8(), false),
      new Field("side", new Utf8(), false),
      new Field("vector", new FixedSizeList(dims, new Field("item", new Float32(), true)), false),
    ]);
    const old = rows(5, dims, { prefix: "old" });
    const flat = new Float32Array(old.length * dims);
    old.forEach((r, i) => flat.set(r.vector, i * dims));
    const strings = (pick: (r: VectorRow) => string) => vectorFromArray(old.map(pick), new Utf8()).data[0];
    const vectors = makeData({
      type: oldSchema.fields[3].type as FixedSizeList<Float32>,
      length: old.length,
      nullCount: 0,
      child: makeData({ type: new Float32(), length: flat.length, data: flat }),
    });
    const batch = new RecordBatch(
      oldSchema,
      makeData({ type: new Struct(oldSchema.fields), length: old.length, nullCount: 0, children: [strings((r) => r.key), strings((r) => r.id), strings((r) => r.side), vectors] }),
    );
    const db = await lancedb.connect(dir);
    try {
      (await db.createTable("fp-old", new ArrowTable([batch]), { mode: "create" })).close();
    } finally {
      db.close();
    }

    const store = await open(dir);
    const got = await store.get("fp-old", old.map((r) => r.key));
    assert.equal(got.size, 5);
    for (const r of old) {
      assertSameVector(got.get(r.key)?.vector, r.vector, r.id);
      assert.equal(got.get(r.key)?.tokens, undefined);
    }
    // Appending rows that carry counts works; the table keeps its schema, so their counts are unknown.
    const fresh = rows(3, dims, { prefix: "new", seed: 5 }).map((r) => ({ ...r, tokens: 12 }));
    await store.put("fp-old", [...fresh, old[0]]);
    assert.equal(await store.count("fp-old"), 8);
    const after = await store.get("fp-old", [...old, ...fresh].map((r) => r.key));
    assert.equal(after.size, 8);
    for (const r of fresh) {
      assertSameVector(after.get(r.key)?.vector, r.vector, r.id);
      assert.equal(after.get(r.key)?.tokens, undefined);
    }
    const check = await lancedb.connect(dir);
    try {
      const table = await check.openTable("fp-old");
      assert.deepEqual((await table.schema()).fields.map((f) => f.name), ["key", "id", "side", "vector"], "the old table was not rewritten");
      table.close();
    } finally {
      check.close();
    }
    // A new table gets the tokens column.
    await store.put("fp-new", fresh);
    assert.equal((await store.get("fp-new", [fresh[0].key])).get(fresh[0].key)?.tokens, 12);
  });

  test("get of more keys than the in-filter limit reads the table once and filters in memory", async () => {
    const store = await open(tempDir());
    const data = rows(1500, 8);
    for (let i = 0; i < data.length; i += 500) await store.put("fp", data.slice(i, i + 500));
    const wanted = [...data.slice(0, 700).map((r) => r.key), ...Array.from({ length: 100 }, (_, i) => `nope-${i}`)];
    const got = await store.get("fp", wanted);
    assert.equal(got.size, 700);
    for (const r of data.slice(0, 700)) assertSameVector(got.get(r.key)?.vector, r.vector, r.id);
  });

  test("a second open of the same directory sees the data", async () => {
    const dir = tempDir();
    const first = await open(dir);
    const data = rows(20, 12);
    await first.put("fp", data);
    first.close();

    const second = await open(dir);
    assert.deepEqual(await vectorTables(dir), ["fp"]);
    assert.equal(await second.count("fp"), 20);
    const got = await second.get("fp", data.map((r) => r.key));
    for (const r of data) assertSameVector(got.get(r.key)?.vector, r.vector, r.id);
  });

  test("putting keys already present, or repeated within a batch, adds no rows", async () => {
    const dir = tempDir();
    const store = await open(dir);
    const data = rows(30, 8);
    await store.put("fp", data.slice(0, 20));
    await store.put("fp", data.slice(10, 30)); // 10 old, 10 new
    assert.equal(await store.count("fp"), 30);
    await store.put("fp", data);
    await store.put("fp", [data[0], data[0], data[1]]);
    assert.equal(await store.count("fp"), 30);

    // Repeats inside the very first put (the one that creates the table).
    await store.put("fp-2", [data[0], data[0], data[1], data[1]]);
    assert.equal(await store.count("fp-2"), 2);

    // Concurrent puts through one store are serialised, so they cannot both insert a key.
    const extra = rows(40, 8, { prefix: "x" });
    await Promise.all([store.put("fp", extra), store.put("fp", extra.slice(0, 20)), store.put("fp", extra.slice(20))]);
    assert.equal(await store.count("fp"), 70);

    // Another store object on the same directory (another process, in effect) writes too: its
    // commit must invalidate our cached key set, and its keys must not be written twice.
    const other = await open(dir);
    const more = rows(10, 8, { prefix: "y" });
    await other.put("fp", more);
    await store.put("fp", [...more, ...data.slice(0, 5)]);
    assert.equal(await store.count("fp"), 80);
    assert.equal(await other.count("fp"), 80);
  });

  test("a wrong dimension, NaN or Infinity rejects the batch, names the id, and writes none of it", async () => {
    const dir = tempDir();
    const store = await open(dir);

    // On the first put (no table yet) nothing may be created.
    const first = rows(5, 8);
    first[3] = { ...first[3], id: "ΑΚ::914", vector: new Float32Array(7) };
    await assert.rejects(store.put("fp", first), (err: Error) => /ΑΚ::914/.test(err.message) && /7 dimensions/.test(err.message) && /8/.test(err.message));
    assert.deepEqual(await vectorTables(dir), []);

    await store.put("fp", rows(5, 8, { prefix: "ok" }));
    const batch = rows(6, 8, { prefix: "new" });
    batch[4] = { ...batch[4], id: "ΠΚ::375", vector: new Float32Array(16) };
    await assert.rejects(store.put("fp", batch), /ΠΚ::375.*16 dimensions.*8/);
    assert.equal(await store.count("fp"), 5);

    const nan = rows(6, 8, { prefix: "nan" });
    nan[5].vector[2] = NaN;
    nan[5].id = "ΚΠολΔ::216";
    await assert.rejects(store.put("fp", nan), /ΚΠολΔ::216.*NaN at position 2/);

    const inf = rows(6, 8, { prefix: "inf" });
    inf[1].vector[0] = -Infinity;
    await assert.rejects(store.put("fp", inf), /'inf1'.*-Infinity/);

    const notTyped = rows(2, 8, { prefix: "arr" });
    (notTyped[1] as { vector: unknown }).vector = Array.from(notTyped[1].vector);
    await assert.rejects(store.put("fp", notTyped), /'arr1'.*Float32Array/);

    assert.equal(await store.count("fp"), 5);
    const got = await store.get("fp", [...batch, ...nan, ...inf].map((r) => r.key));
    assert.equal(got.size, 0);
  });

  test("two fingerprints are separate tables", async () => {
    const dir = tempDir();
    const store = await open(dir);
    const a = rows(10, 8, { seed: 1 });
    const b = rows(10, 24, { seed: 2 }); // same keys, other model: other vectors, other size
    await store.put("qwen3-8b-aaaaaaaaaaaa", a);
    await store.put("gemini-001-bbbbbbbbbbbb", b);
    assert.deepEqual(await vectorTables(dir), ["gemini-001-bbbbbbbbbbbb", "qwen3-8b-aaaaaaaaaaaa"]);
    assert.equal(await vectorDims(dir, "qwen3-8b-aaaaaaaaaaaa"), 8);
    assert.equal(await vectorDims(dir, "gemini-001-bbbbbbbbbbbb"), 24);
    const fromA = await store.get("qwen3-8b-aaaaaaaaaaaa", [a[0].key]);
    const fromB = await store.get("gemini-001-bbbbbbbbbbbb", [a[0].key]);
    assertSameVector(fromA.get(a[0].key)?.vector, a[0].vector, "a");
    assertSameVector(fromB.get(a[0].key)?.vector, b[0].vector, "b");
  });

  test("fingerprints outside LanceDB's name alphabet are sanitised without collisions", async () => {
    assert.equal(tableName("qwen3-8b-3f2a9c1e0b7d"), "qwen3-8b-3f2a9c1e0b7d");
    assert.match(tableName("my model/v2"), /^my_model_v2-[0-9a-f]{12}$/);
    assert.notEqual(tableName("a/b"), tableName("a b"));
    assert.notEqual(tableName("a/b"), tableName("a_b"));
    assert.throws(() => tableName(""), /empty fingerprint/);

    const store = await open(tempDir());
    await store.put("a/b", rows(2, 4, { seed: 1 }));
    await store.put("a b", rows(3, 4, { seed: 2 }));
    assert.equal(await store.count("a/b"), 2);
    assert.equal(await store.count("a b"), 3);
  });

  test("resume: after a crash half-way, a reopened store returns exactly the half that was put", async () => {
    const dir = tempDir();
    const data = rows(256, 32);
    const half = data.slice(0, 128);
    let store: VectorStore | undefined = await openVectorStore(dir);
    for (let i = 0; i < half.length; i += 64) await store.put("fp", half.slice(i, i + 64));
    store = undefined; // the "crash": no close, no flush, the object is simply gone

    const reopened = await open(dir);
    const got = await reopened.get("fp", data.map((r) => r.key));
    assert.deepEqual([...got.keys()].sort(), half.map((r) => r.key).sort());
    for (const r of half) assertSameVector(got.get(r.key)?.vector, r.vector, r.id);

    // The resumed run puts only what is missing, and ends with everything exactly once.
    await reopened.put("fp", data.filter((r) => !got.has(r.key)));
    assert.equal(await reopened.count("fp"), 256);
  });

  test("resume: a writer killed with SIGKILL leaves only whole, acknowledged batches", async () => {
    const dir = tempDir();
    const batch = 64;
    const dims = 48;
    // The child writes deterministic batches forever and reports each put once it resolved.
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "-e",
        `const { openVectorStore } = require(process.argv[1]);
        (async () => {
          const store = await openVectorStore(process.argv[2]);
          for (let b = 0; b < 500; b++) {
            const rows = [];
            for (let i = 0; i < ${batch}; i++) {
              const v = new Float32Array(${dims});
              for (let j = 0; j < ${dims}; j++) v[j] = Math.sin(b * 1000 + i * 10 + j);
              rows.push({ key: "k-" + b + "-" + i, id: "a" + (b * ${batch} + i), side: "document", vector: v });
            }
            await store.put("fp", rows);
            process.stdout.write("committed " + b + "\\n");
          }
        })();`,
        path.resolve(__dirname, "../../lib/store/vector-store.ts"),
        dir,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let acknowledged = -1;
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`child made no progress: ${stderr}`)), 60_000);
      child.stdout.on("data", (d: Buffer) => {
        for (const m of d.toString().matchAll(/committed (\d+)/g)) acknowledged = Math.max(acknowledged, Number(m[1]));
        if (acknowledged >= 5) {
          clearTimeout(timer);
          child.kill("SIGKILL"); // most likely in the middle of the next put
          resolve();
        }
      });
      child.on("exit", () => acknowledged < 5 && reject(new Error(`child exited early: ${stderr}`)));
    });
    await exited;

    const store = await open(dir);
    const n = await store.count("fp");
    assert.ok(n >= (acknowledged + 1) * batch, `${n} rows but ${acknowledged + 1} batches were acknowledged`);
    assert.equal(n % batch, 0, "a partial batch was stored");
    const keys: string[] = [];
    for (let b = 0; b < n / batch; b++) for (let i = 0; i < batch; i++) keys.push(`k-${b}-${i}`);
    const got = await store.get("fp", keys);
    assert.equal(got.size, n);
    const expected = new Float32Array(dims);
    for (let j = 0; j < dims; j++) expected[j] = Math.sin(3 * 1000 + 7 * 10 + j);
    assertSameVector(got.get("k-3-7")?.vector, expected, "k-3-7");
    // And writing continues where it stopped.
    await store.put("fp", [{ key: "after", id: "after", side: "document", vector: expected }]);
    assert.equal(await store.count("fp"), n + 1);
  });
});
