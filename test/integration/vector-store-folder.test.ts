/**
 * A vector cache folder written by the code before the vector store joined lib/store (test/fixtures/vector-cache, its
 * README says how) keeps working: every vector and token count reads back to the bit, its provenance is read, the ANN
 * copy that version made is left alone, and it takes new rows.
 */
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { openVectorStore } from "../../lib/store/vector-store";
import { vectorDims, vectorTables } from "../helpers/lance-folder";

const FIXTURE = path.join(__dirname, "..", "fixtures", "vector-cache", "lancedb");
const FP = "openai:fixture-model@4|doc:{text}|q:{text}";
const tmp = mkdtempSync(path.join(os.tmpdir(), "gbr-vector-folder-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** The fixture's vector i, as its writer computed it. */
const vec = (i: number) => Float32Array.from({ length: 4 }, (_, j) => Math.sin(i * 4 + j + 1));
const bits = (v: Float32Array | undefined) => (v ? [...new Uint32Array(v.buffer, v.byteOffset, v.length)] : undefined);

test("a vector cache written before the move: vectors, tokens and provenance read as written; new rows are added", async () => {
  // A copy: the test writes to it, and the repository must stay as it is.
  const dir = path.join(tmp, "lancedb");
  cpSync(FIXTURE, dir, { recursive: true });
  const logs: string[] = [];
  const store = await openVectorStore(dir, { log: (m) => logs.push(m) });
  try {
    assert.equal(await store.count(FP, "document"), 260);
    assert.equal(await store.count(FP, "query"), 1);
    assert.equal(await vectorDims(dir, FP), 4);
    assert.equal((await vectorTables(dir)).length, 1);
    const keys = [...Array.from({ length: 260 }, (_, i) => `k${String(i).padStart(3, "0")}`), "q0"];
    const got = await store.get(FP, keys);
    assert.equal(got.size, 261);
    for (let i = 0; i < 260; i++) {
      const hit = got.get(keys[i]);
      assert.deepEqual(bits(hit?.vector), bits(vec(i)), `vector of ${keys[i]}`);
      assert.equal(hit?.tokens, i % 7 === 0 ? undefined : i % 13, `tokens of ${keys[i]}`);
    }
    assert.deepEqual(bits(got.get("q0")?.vector), bits(vec(1000)));
    assert.equal(got.get("q0")?.tokens, 5);
    assert.deepEqual(await store.provenance(FP), { servedModels: ["fixture-model"], standIn: true });

    await store.put(FP, [{ key: "k260", id: "d260", side: "document", vector: vec(260), tokens: 3 }]);
    assert.equal(await store.count(FP, "document"), 261);
    assert.equal((await store.get(FP, ["k260"])).get("k260")?.tokens, 3);
    await store.noteProvenance(FP, { servedModels: ["other-model"], standIn: false });
    assert.deepEqual(await store.provenance(FP), { servedModels: ["fixture-model", "other-model"], standIn: true });
    assert.deepEqual(logs, [], "nothing to repair");
  } finally {
    store.close();
  }
});
