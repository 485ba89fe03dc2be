/** The embedding cache in LanceDB: a table per preset fingerprint, a row per text hash; a resolved `put` is committed. */
import type * as lancedb from "@lancedb/lancedb";
import { lancedbSdk } from "../util/sdk";
import type { Side } from "../models/embed";
import { isDamage } from "./lance-errors";
import { collect, sqlString, tableName, tableShape, toArrow, validateRow } from "./vector-layout";
import { noteProvenance, readProvenance, type EmbeddingProvenance } from "./vector-provenance";
import { heal, reading, stillDamaged } from "./vector-recovery";
import { VectorTables } from "./vector-tables";

export { VectorStoreError } from "./lance-errors";
export { tableName } from "./vector-layout";
export { mergeProvenance, type EmbeddingProvenance } from "./vector-provenance";

// Above this many keys `get` scans the whole table: on 6,308 × 1,024 vectors a full read took 180–420 ms, `IN` 125 ms.
const SCAN_ALL_ABOVE = 512;
const IN_CHUNK = 512;

export type CachedVector = { vector: Float32Array; tokens?: number };

export interface VectorRow {
  /** `textKey(rendered text)`. */
  key: string;
  /** The article or query id it was first computed for. */
  id: string;
  side: Side;
  vector: Float32Array;
  /** This text's share of the batch's reported tokens, when known. */
  tokens?: number;
}

/** Opens the embedding cache at a folder or object-store URI (LanceDB reads its credentials from the environment). */
export async function openVectorStore(uri: string, opts: { log?: (message: string) => void } = {}): Promise<VectorStore> {
  // 0: every read sees other processes' commits.
  const db = await lancedbSdk().connect(uri, { readConsistencyInterval: 0 });
  return new VectorStore(new VectorTables(uri, db, opts.log ?? ((m) => process.stderr.write(`vector store: ${m}\n`))));
}

/** The embedding cache; the fingerprint (`presetFingerprint(preset)`) names the table, so spaces never mix. */
export class VectorStore {
  constructor(private readonly t: VectorTables) {}

  /** Runs `fn` holding the fingerprint's cross-process write lock (shared in this process: puts inside do not wait). */
  exclusive<T>(fingerprint: string, fn: () => Promise<T>): Promise<T> {
    return this.t.locked(tableName(fingerprint), fn, "shared");
  }

  /** Vectors stored for those keys; a damaged table is first rebuilt from what is readable, else `VectorStoreError`. */
  async get(fingerprint: string, keys: readonly string[]): Promise<Map<string, CachedVector>> {
    const name = tableName(fingerprint);
    return this.t.guard(this.t.where(name), () => reading(this.t, fingerprint, name, () => new Map<string, CachedVector>(), (table) => getFrom(table, keys)));
  }

  /** Appends rows with new keys, resolving once committed; one invalid row (named) rejects the whole batch. */
  put(fingerprint: string, rows: readonly VectorRow[]): Promise<void> {
    const name = tableName(fingerprint);
    if (rows.length === 0) return Promise.resolve();
    // A turn of the table's lock: two overlapping puts must not both see a key as new.
    return this.t.guard(this.t.where(name), () => this.t.locked(name, () => this.putNow(fingerprint, name, rows)));
  }

  private async putNow(fingerprint: string, name: string, rows: readonly VectorRow[], healed = false): Promise<void> {
    const t = this.t;
    let table = await t.table(name);
    const shape = table ? await tableShape(table) : { dims: rows[0].vector?.length ?? 0, tokens: true };
    const { dims } = shape;
    // Validate all first, so a bad vector leaves no partial batch.
    const fresh: VectorRow[] = [];
    const seen = new Set<string>();
    for (const r of rows) {
      validateRow(fingerprint, r, dims);
      if (seen.has(r.key)) continue;
      seen.add(r.key);
      fresh.push(r);
    }
    if (!table) {
      try {
        table = await t.db.createTable(name, toArrow(fresh, dims, true), { mode: "create" });
        t.adopt(table, { version: await table.version(), keys: seen });
        return;
      } catch (err) {
        // Another process may have created it meanwhile: fall through to an append.
        table = await t.table(name);
        if (!table) throw err;
        const existing = await tableShape(table);
        if (existing.dims !== dims) {
          throw new Error(`vector store ${fingerprint}: vector for id '${rows[0].id}' has ${dims} dimensions, the table has ${existing.dims}`, { cause: err });
        }
        shape.tokens = existing.tokens;
      }
    }
    let stored: { version: number; keys: Set<string> };
    try {
      stored = await this.storedKeys(table);
    } catch (err) {
      if (healed || !isDamage(err)) throw stillDamaged(t, name, err);
      await heal(t, fingerprint, name, err);
      return this.putNow(fingerprint, name, rows, true);
    }
    const toWrite = fresh.filter((r) => !stored.keys.has(r.key));
    if (toWrite.length === 0) return;
    // An old table without the tokens column keeps its schema (not migrated): its new rows have unknown tokens.
    const { version } = await table.add(toArrow(toWrite, dims, shape.tokens));
    // Only our own commit in between: the key set stays exact without a re-read.
    if (version === stored.version + 1) {
      for (const r of toWrite) stored.keys.add(r.key);
      stored.version = version;
    }
  }

  /** Keys stored, read once and kept by our puts until another writer's version shows (an `IN` per put took ~1.6×). */
  private async storedKeys(table: lancedb.Table): Promise<{ version: number; keys: Set<string> }> {
    const version = await table.version();
    const cached = this.t.keyCache.get(table.name);
    if (cached && cached.version === version) return cached;
    const keys = new Set<string>();
    for (const batch of (await table.query().select(["key"]).toArrow()).batches) {
      for (const k of batch.getChild("key") ?? []) keys.add(k as string);
    }
    const fresh = { version, keys };
    this.t.keyCache.set(table.name, fresh);
    return fresh;
  }

  async provenance(fingerprint: string): Promise<EmbeddingProvenance> {
    return readProvenance(this.t, tableName(fingerprint));
  }

  async noteProvenance(fingerprint: string, p: EmbeddingProvenance): Promise<void> {
    return noteProvenance(this.t, tableName(fingerprint), p);
  }

  async count(fingerprint: string, side?: Side): Promise<number> {
    const name = tableName(fingerprint);
    return this.t.guard(this.t.where(name), () =>
      reading(this.t, fingerprint, name, () => 0, (table) => (side === undefined ? table.countRows() : table.countRows(`side = ${sqlString(side)}`))),
    );
  }

  close(): void {
    this.t.close();
  }
}

async function getFrom(table: lancedb.Table, keys: readonly string[]): Promise<Map<string, CachedVector>> {
  const out = new Map<string, CachedVector>();
  if (keys.length === 0) return out;
  const { dims, tokens } = await tableShape(table);
  // Selecting a column an old table lacks would fail the query: ask only for what is there.
  const columns = tokens ? ["key", "vector", "tokens"] : ["key", "vector"];
  const wanted = new Set(keys);
  if (wanted.size > SCAN_ALL_ABOVE) {
    collect((await table.query().select(columns).toArrow()).batches, dims, wanted, out);
    return out;
  }
  const list = [...wanted];
  for (let i = 0; i < list.length; i += IN_CHUNK) {
    const chunk = list.slice(i, i + IN_CHUNK);
    const found = await table.query().where(`key IN (${chunk.map(sqlString).join(", ")})`).select(columns).toArrow();
    collect(found.batches, dims, undefined, out);
  }
  return out;
}
