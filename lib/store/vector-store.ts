/**
 * The embedding cache in LanceDB: a table per preset fingerprint, a row per rendered-text hash; a resolved `put` is
 * committed, so a killed run loses only what was in flight. Writes to a table take turns and hold its lock across
 * processes (vector-tables.ts); a damaged table is repaired on the way (vector-recovery.ts); IVF_PQ is optional
 * (vector-ann.ts: exact in-memory search is faster); who embedded is kept beside it (vector-provenance.ts).
 */
import type * as lancedb from "@lancedb/lancedb";
import { lancedbSdk } from "../util/sdk";
import type { Side } from "../models/embed";
import { isDamage } from "./lance-errors";
import { annIsCurrent, annSearch, buildAnn } from "./vector-ann";
import { collect, DOCS_SUFFIX, sqlString, tableName, tableShape, toArrow, validateRow } from "./vector-layout";
import { noteProvenance, readProvenance, type EmbeddingProvenance } from "./vector-provenance";
import { heal, reading, stillDamaged } from "./vector-recovery";
import { VectorTables } from "./vector-tables";

export { VectorStoreError } from "./lance-errors";
export { tableName } from "./vector-layout";
export { mergeProvenance, type EmbeddingProvenance } from "./vector-provenance";

/**
 * Above this many keys `get` scans the whole table instead of an `IN` filter. On 6,308 × 1,024 vectors in 99
 * puts: a full read 180–420 ms, an `IN` lookup ~40 ms for 64 keys and ~125 ms for 512.
 */
const SCAN_ALL_ABOVE = 512;
/** Keys per SQL `IN (…)` list (keeps the generated SQL a reasonable size). */
const IN_CHUNK = 512;

/** A cached vector, with its share of the batch's reported tokens when known. */
export interface CachedVector {
  vector: Float32Array;
  tokens?: number;
}

export interface VectorRow {
  /** `textKey(rendered text)`; a key already stored is never written again. */
  key: string;
  /** Article or query id the vector was first computed for (informational; ANN returns it). */
  id: string;
  side: Side;
  vector: Float32Array;
  /** This text's share of the batch's reported tokens, when known. */
  tokens?: number;
}

export interface AnnIndexOptions {
  /** IVF partitions (default: about √(documents), at most documents / 40 so k-means has data). */
  partitions?: number;
}

export interface AnnSearchOptions {
  /** IVF partitions probed per query (LanceDB's default is 20). */
  nprobes?: number;
  /** Re-rank `k × refineFactor` PQ candidates by their exact dot product (unset: no re-rank). */
  refineFactor?: number;
}

/** One query's approximate top k, best first. */
export interface AnnResult {
  ids: string[];
  /** Cache keys of the same rows; articles with identical rendered texts share one row (the id stored first). */
  keys: string[];
  /** Dot products (exact when `refineFactor` is set, PQ estimates otherwise). */
  scores: number[];
}

/**
 * Opens (creating on first write) the embedding cache at a local directory or object-store URI (`s3://`, `gs://`,
 * `az://`); LanceDB reads object-store credentials from the environment (`AWS_*`, `GOOGLE_*`, `AZURE_*`). Repairs and
 * waits for other processes are told to `log` (default: a line on stderr).
 *
 * @example
 * const store = await openVectorStore("data/lancedb");
 * await store.put("fp", [{ key: "k", id: "d1", side: "document", vector: Float32Array.of(1, 0) }]);
 * (await store.get("fp", ["k"])).get("k")?.vector; // Float32Array [1, 0]
 */
export async function openVectorStore(uri: string, opts: { log?: (message: string) => void } = {}): Promise<VectorStore> {
  // 0: every read sees other processes' commits; a cheap directory read locally, one request on an object store.
  const db = await lancedbSdk().connect(uri, { readConsistencyInterval: 0 });
  return new VectorStore(new VectorTables(uri, db, opts.log ?? ((m) => process.stderr.write(`vector store: ${m}\n`))));
}

/** The embedding cache. The fingerprint (`presetFingerprint(preset)`) names the table, so spaces never mix. */
export class VectorStore {
  /** Use `openVectorStore`. */
  constructor(private readonly t: VectorTables) {}

  /**
   * Runs `fn` holding the fingerprint's cross-process write lock (shared within this process; puts inside it
   * do not wait). A killed process's lock is taken over at 10 s old; object stores have no lock.
   */
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

  /**
   * Keys stored in a table, read once, kept up to date by our puts and re-read when the version shows another
   * writer. An `IN` query per put rescans every fragment (6,308 vectors in batches of 64 took ~1.6× as long).
   */
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

  /** Who embedded the vectors (in `<uri>/.provenance/`; a test-double row marks the whole table); empty if unknown. */
  async provenance(fingerprint: string): Promise<EmbeddingProvenance> {
    return readProvenance(this.t, tableName(fingerprint));
  }

  /** Adds to the provenance (a union: a stand-in mark is never removed). */
  async noteProvenance(fingerprint: string, p: EmbeddingProvenance): Promise<void> {
    return noteProvenance(this.t, tableName(fingerprint), p);
  }

  /** Rows stored, optionally of one side only (0 when there is no table). */
  async count(fingerprint: string, side?: Side): Promise<number> {
    const name = tableName(fingerprint);
    return this.t.guard(this.t.where(name), () =>
      reading(this.t, fingerprint, name, () => 0, (table) => (side === undefined ? table.countRows() : table.countRows(`side = ${sqlString(side)}`))),
    );
  }

  /** IVF_PQ ("dot") over a `<table>__docs` copy of the documents (no side filter); stale once documents are added. */
  async buildAnnIndex(fingerprint: string, opts: AnnIndexOptions = {}): Promise<void> {
    const name = tableName(fingerprint);
    return this.t.guard(this.t.where(name), () => this.t.locked(name, () => buildAnn(this.t, fingerprint, name, opts)));
  }

  /** Whether an ANN index exists and covers every stored document vector. */
  async hasCurrentAnnIndex(fingerprint: string): Promise<boolean> {
    const name = tableName(fingerprint);
    return this.t.guard(this.t.where(name + DOCS_SUFFIX), () => annIsCurrent(this.t, fingerprint, name));
  }

  async annSearch(fingerprint: string, queries: readonly Float32Array[], k: number, opts: AnnSearchOptions = {}): Promise<AnnResult[]> {
    if (!(Number.isInteger(k) && k > 0)) throw new Error(`annSearch: k must be a positive integer, got ${k}`);
    const name = tableName(fingerprint);
    return this.t.guard(this.t.where(name + DOCS_SUFFIX), () => annSearch(this.t, fingerprint, name, queries, k, opts));
  }

  /** Optional: also freed when collected. */
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
