/**
 * The persistent cache of every embedding, kept in LanceDB: one table per embedding fingerprint
 * (`presetFingerprint`), one row per embedded text, keyed by the hash of the rendered text
 * (`textKey`). Embedding is the slow and paid part of dense retrieval; because every `put` is a
 * committed LanceDB version when it resolves, a run killed half-way loses at most the batch in
 * flight and the next run asks the provider only for what `get` does not return.
 *
 * Exact search is not done here (an in-memory kernel over the vectors `get` returns is faster for
 * a corpus of a few thousand articles); this module adds optional approximate search (IVF_PQ) for
 * larger corpora and for comparing ANN with exact search.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import * as lancedb from "@lancedb/lancedb";
// apache-arrow is LanceDB's peer dependency (installed with it); building the Arrow columns
// ourselves lets a batch of Float32Arrays go in as one contiguous buffer, exact to the bit,
// instead of LanceDB's row-by-row conversion of JS objects.
import { type Data, DataType, Field, FixedSizeList, Float32, Int32, makeData, RecordBatch, Schema, Struct, Table as ArrowTable, Utf8, vectorFromArray } from "apache-arrow";
import { dataDir } from "../paths";
import type { CachedVector, Side } from "./types";

/** One cached embedding. */
export interface VectorRow {
  /** `textKey(rendered text)`: the cache key; a key already stored is never written again. */
  key: string;
  /** Article or query id the vector was first computed for (informational; returned by ANN). */
  id: string;
  side: Side;
  vector: Float32Array;
  /**
   * Tokens the provider reported for this text (its share of the batch's count), when known.
   * Stored in a nullable column; tables written before the column existed keep their four
   * columns, and rows appended to them store no tokens.
   */
  tokens?: number;
}

/** Shape of the IVF_PQ index built by `buildAnnIndex`. */
export interface AnnIndexOptions {
  /** IVF partitions (default: about √(documents), at most documents / 40 so k-means has data). */
  partitions?: number;
  /** PQ sub-vectors; must divide the dimension (default dims / 16, or dims / 8, as LanceDB). */
  subVectors?: number;
}

/** Recall/latency knobs of one ANN search. */
export interface AnnSearchOptions {
  /** IVF partitions probed per query (LanceDB's default is 20). */
  nprobes?: number;
  /** Re-rank `k × refineFactor` PQ candidates by their exact dot product (unset: no re-rank). */
  refineFactor?: number;
}

/** One query's approximate top k, best first. */
export interface AnnResult {
  /** Document ids, best first. */
  ids: string[];
  /**
   * Cache keys of the same rows. Articles whose rendered texts are identical share one row (and
   * so the id stored first); a caller that needs every such article maps keys back itself.
   */
  keys: string[];
  /** Dot products (exact when `refineFactor` is set, PQ estimates otherwise). */
  scores: number[];
}

/**
 * The embedding cache. Methods take the embedding fingerprint (`presetFingerprint(preset)`), which
 * names the table, so vectors of different models or templates never mix.
 */
export interface VectorStore {
  /** The LanceDB URI the store was opened on. */
  readonly uri: string;
  /**
   * The stored vectors for those keys, each with its stored token count (absent when unknown:
   * the provider gave none, or the row predates the tokens column). Keys not stored are absent
   * from the map; an unknown fingerprint gives an empty map.
   *
   * @example
   * const cached = await store.get(fp, items.map((x) => x.key));
   * const missing = items.filter((x) => !cached.has(x.key));
   * cached.get(items[0].key)?.tokens; // 412, or undefined
   */
  get(fingerprint: string, keys: readonly string[]): Promise<Map<string, CachedVector>>;
  /**
   * Appends rows whose key is not yet stored (keys already present, and repeats within the
   * batch, are skipped). The first put creates the table with the first row's dimension. The
   * whole batch is validated before anything is written: a vector of another dimension, one
   * holding NaN or ±Infinity, or a token count that is not a non-negative integer, rejects the
   * put with an Error naming the row's id, and none of the batch is stored. Resolves once the
   * rows are committed.
   *
   * @example
   * await store.put(fp, batch.map((x, i) => ({ key: x.key, id: x.id, side: "document", vector: vectors[i], tokens: shares[i] })));
   */
  put(fingerprint: string, rows: readonly VectorRow[]): Promise<void>;
  /**
   * Rows stored under a fingerprint, optionally of one side only (0 when there is no table).
   *
   * @example
   * await store.count(fp, "document"); // 6308
   */
  count(fingerprint: string, side?: Side): Promise<number>;
  /**
   * Vector size of a fingerprint's table, or undefined when nothing is stored yet.
   *
   * @example
   * await store.dims(fp); // 1024
   */
  dims(fingerprint: string): Promise<number | undefined>;
  /**
   * Names of the stored vector tables: the fingerprints (`presetFingerprint` already yields
   * valid names; another string is stored under its sanitized form, see `tableName`).
   *
   * @example
   * await store.tables(); // ["gemini-001-9c0f3e2a71b4", "qwen3-8b-3f2a9c1e0b7d"]
   */
  tables(): Promise<string[]>;
  /**
   * Deletes a fingerprint's vectors (and its ANN table); no error when there are none.
   *
   * @example
   * await store.drop(fp);
   */
  drop(fingerprint: string): Promise<void>;
  /**
   * Builds (or rebuilds) the IVF_PQ index, distance "dot", over the document vectors. They are
   * first copied to a table of their own, `<table>__docs`, so the index is trained on documents
   * only and searches need no side filter; `annSearch` refuses to use it once documents have
   * been added after the build.
   *
   * @example
   * await store.buildAnnIndex(fp, { partitions: 64 });
   */
  buildAnnIndex(fingerprint: string, opts?: AnnIndexOptions): Promise<void>;
  /**
   * Approximate top-k documents by dot product for each query vector, best first.
   *
   * @example
   * const [hit] = await store.annSearch(fp, [queryVector], 100, { nprobes: 20, refineFactor: 10 });
   * hit.ids[0]; // best article id
   */
  annSearch(fingerprint: string, queries: readonly Float32Array[], k: number, opts?: AnnSearchOptions): Promise<AnnResult[]>;
  /**
   * Whether an ANN index exists and covers every stored document vector (so `annSearch` may
   * use it without `buildAnnIndex` first).
   *
   * @example
   * if (!(await store.hasCurrentAnnIndex(fp))) await store.buildAnnIndex(fp);
   */
  hasCurrentAnnIndex(fingerprint: string): Promise<boolean>;
  /**
   * Releases the connection and open tables (optional; they are also freed when collected).
   *
   * @example
   * store.close();
   */
  close(): void;
}

/** Suffix of the per-fingerprint table that holds document rows and the ANN index. */
export const DOCS_SUFFIX = "__docs";

/**
 * Above this many requested keys `get` reads the whole table once and filters in memory; below
 * it, an `IN` filter reads only matching rows. Measured on 6,308 × 1,024 vectors written in 99
 * puts (2 busy CPUs): a full read takes 180–420 ms whatever is asked, an `IN` lookup ~40 ms for
 * 64 keys and ~125 ms for 512.
 */
const SCAN_ALL_ABOVE = 512;
/** Keys per SQL `IN (…)` list (keeps the generated SQL a reasonable size). */
const IN_CHUNK = 512;

/**
 * Opens (creating on first write) the embedding cache at a LanceDB URI: a local directory
 * (default `<dataDir()>/lancedb`) or an object store such as `s3://bucket/prefix`,
 * `gs://bucket/prefix` or `az://container/prefix`. Object-store credentials and region are not
 * passed here: LanceDB reads them from the environment as its object_store layer does
 * (`AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` / `AWS_SESSION_TOKEN` / `AWS_REGION` /
 * `AWS_ENDPOINT`, `GOOGLE_SERVICE_ACCOUNT`, `AZURE_STORAGE_ACCOUNT_NAME` / `AZURE_STORAGE_ACCOUNT_KEY`, …).
 *
 * @example
 * const store = await openVectorStore();                         // <dataDir()>/lancedb
 * const shared = await openVectorStore("s3://my-bucket/gbr-vectors");
 */
export async function openVectorStore(uri: string = path.join(dataDir(), "lancedb")): Promise<VectorStore> {
  // readConsistencyInterval 0: every read sees versions committed by other processes (two runs
  // may share a cache). The check is a cheap directory read on a local disk; on an object store
  // it is one extra request per read, still small next to an embedding call.
  const db = await lancedb.connect(uri, { readConsistencyInterval: 0 });
  return new LanceVectorStore(uri, db);
}

/**
 * The LanceDB table name for a fingerprint. LanceDB accepts only letters, digits, `_`, `-` and
 * `.` (and panics on anything else), so other characters become `_`; a changed name gets a hash
 * of the original appended so that two fingerprints never share a table.
 *
 * @example
 * tableName("qwen3-8b-3f2a9c1e0b7d"); // "qwen3-8b-3f2a9c1e0b7d"
 * tableName("my model/v2");           // "my_model_v2-1b2c3d4e5f60"
 */
export function tableName(fingerprint: string): string {
  if (fingerprint === "") throw new Error("vector store: empty fingerprint");
  const safe = fingerprint.replace(/[^A-Za-z0-9_-]/g, "_");
  if (safe === fingerprint) return safe;
  return `${safe}-${createHash("sha256").update(fingerprint).digest("hex").slice(0, 12)}`;
}

/**
 * ANN recall against exact search: the mean over queries of |ann top k ∩ exact top k| / k
 * (1 when the ANN lists are the exact ones; 0 when there are no queries).
 *
 * @example
 * annRecallAtK([["a", "b"]], [["b", "c"]], 2); // 0.5
 */
export function annRecallAtK(exact: readonly (readonly string[])[], ann: readonly (readonly string[])[], k: number): number {
  if (!(Number.isInteger(k) && k > 0)) throw new Error(`annRecallAtK: k must be a positive integer, got ${k}`);
  if (exact.length !== ann.length) throw new Error(`annRecallAtK: ${exact.length} exact rankings but ${ann.length} ANN rankings`);
  if (exact.length === 0) return 0;
  let sum = 0;
  for (let q = 0; q < exact.length; q++) {
    const truth = new Set(exact[q].slice(0, k));
    // A Set of the ANN list too: a repeated id must not count twice.
    let hits = 0;
    for (const id of new Set(ann[q].slice(0, k))) if (truth.has(id)) hits++;
    sum += hits / k;
  }
  return sum / exact.length;
}

/**
 * The table schema: key, id, side, vector, and (unless writing to a table created before it
 * existed) a nullable int32 `tokens` column.
 */
function schemaFor(dims: number, withTokens: boolean): Schema {
  const fields: Field[] = [
    new Field("key", new Utf8(), false),
    new Field("id", new Utf8(), false),
    new Field("side", new Utf8(), false),
    // Nullable items: the type LanceDB itself gives vector columns, so its vector APIs accept it.
    new Field("vector", new FixedSizeList(dims, new Field("item", new Float32(), true)), false),
  ];
  if (withTokens) fields.push(new Field("tokens", new Int32(), true));
  return new Schema(fields);
}

/** Rows as one Arrow record batch, the vectors copied into a single Float32 buffer. */
function toArrow(rows: readonly VectorRow[], dims: number, withTokens: boolean): ArrowTable {
  const schema = schemaFor(dims, withTokens);
  const flat = new Float32Array(rows.length * dims);
  rows.forEach((r, i) => flat.set(r.vector, i * dims));
  const vectors = makeData({
    type: schema.fields[3].type as FixedSizeList<Float32>,
    length: rows.length,
    nullCount: 0,
    child: makeData({ type: new Float32(), length: flat.length, data: flat }),
  });
  const strings = (pick: (r: VectorRow) => string) => vectorFromArray(rows.map(pick), new Utf8()).data[0];
  const children: Data[] = [strings((r) => r.key), strings((r) => r.id), strings((r) => r.side), vectors];
  // null, not 0, for an unknown count: the reader must be able to tell it from a free text.
  if (withTokens) children.push(vectorFromArray(rows.map((r) => r.tokens ?? null), new Int32()).data[0]);
  const batch = new RecordBatch(
    schema,
    makeData({
      type: new Struct(schema.fields),
      length: rows.length,
      nullCount: 0,
      children,
    }),
  );
  return new ArrowTable([batch]);
}

/** What a table's schema says: the vector size, and whether it has the tokens column. */
interface TableShape {
  dims: number;
  tokens: boolean;
}

async function tableShape(table: lancedb.Table): Promise<TableShape> {
  const fields = (await table.schema()).fields;
  const type = fields.find((f) => f.name === "vector")?.type;
  // A type-id test, not instanceof: the schema comes from LanceDB's copy of apache-arrow.
  if (!type || !DataType.isFixedSizeList(type)) throw new Error(`vector store: table ${table.name} has no fixed-size vector column`);
  return { dims: type.listSize, tokens: fields.some((f) => f.name === "tokens") };
}

/** Dimension of the table's vector column. */
async function tableDims(table: lancedb.Table): Promise<number> {
  return (await tableShape(table)).dims;
}

/** SQL string literal (keys are hex, but ids and anything else must not break the query). */
function sqlString(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/**
 * Copies `key → {vector, tokens}` out of query results, keeping only wanted keys (all when
 * undefined). A result without a tokens column (an old table) gives rows without tokens.
 */
function collect(batches: Iterable<RecordBatch>, dims: number, wanted: Set<string> | undefined, out: Map<string, CachedVector>): void {
  for (const batch of batches) {
    const keys = batch.getChild("key");
    const vec = batch.getChild("vector");
    if (!keys || !vec) throw new Error("vector store: query result lacks key or vector column");
    const tokens = batch.getChild("tokens");
    const list = vec.data[0];
    const child = list.children[0];
    const values = child.values as Float32Array;
    for (let i = 0; i < batch.numRows; i++) {
      const key = keys.get(i) as string;
      if (wanted && !wanted.has(key)) continue;
      if (out.has(key)) continue; // a duplicate row (only possible after racing writers): same vector
      const start = child.offset + (list.offset + i) * dims;
      // slice, not subarray: a view would pin the whole result buffer for a few vectors.
      const entry: CachedVector = { vector: values.slice(start, start + dims) };
      const t: unknown = tokens?.get(i);
      if (typeof t === "number") entry.tokens = t;
      out.set(key, entry);
    }
  }
}

class LanceVectorStore implements VectorStore {
  /** Open table handles by table name (LanceDB tables are meant to be long-lived). */
  private readonly open = new Map<string, lancedb.Table>();
  /** Per-table tail of the write queue: puts to one table run one at a time. */
  private readonly queues = new Map<string, Promise<unknown>>();
  /** Keys known to be stored, per table name, with the table version they reflect. */
  private readonly keyCache = new Map<string, { version: number; keys: Set<string> }>();

  constructor(
    readonly uri: string,
    private readonly db: lancedb.Connection,
  ) {}

  /** The table, or undefined when it does not exist. */
  private async table(name: string): Promise<lancedb.Table | undefined> {
    const cached = this.open.get(name);
    if (cached) return cached;
    // tableNames, not a failed openTable: an absent table is the normal case for a new preset.
    if (!(await this.db.tableNames()).includes(name)) return undefined;
    const t = await this.db.openTable(name);
    this.open.set(name, t);
    return t;
  }

  /** Runs `fn` after every earlier write to the same table has settled. */
  private serial<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.queues.get(name) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const tail = next.catch(() => undefined);
    this.queues.set(name, tail);
    void tail.then(() => {
      if (this.queues.get(name) === tail) this.queues.delete(name);
    });
    return next;
  }

  async get(fingerprint: string, keys: readonly string[]): Promise<Map<string, CachedVector>> {
    const out = new Map<string, CachedVector>();
    const table = await this.table(tableName(fingerprint));
    if (!table || keys.length === 0) return out;
    const { dims, tokens } = await tableShape(table);
    // Selecting a column an old table lacks would fail the query: ask only for what is there.
    const columns = tokens ? ["key", "vector", "tokens"] : ["key", "vector"];
    const wanted = new Set(keys);
    if (wanted.size > SCAN_ALL_ABOVE) {
      const all = await table.query().select(columns).toArrow();
      collect(all.batches, dims, wanted, out);
      return out;
    }
    const list = [...wanted];
    for (let i = 0; i < list.length; i += IN_CHUNK) {
      const chunk = list.slice(i, i + IN_CHUNK);
      const found = await table
        .query()
        .where(`key IN (${chunk.map(sqlString).join(", ")})`)
        .select(columns)
        .toArrow();
      collect(found.batches, dims, undefined, out);
    }
    return out;
  }

  put(fingerprint: string, rows: readonly VectorRow[]): Promise<void> {
    const name = tableName(fingerprint);
    if (rows.length === 0) return Promise.resolve();
    // Serialised per table so that two overlapping puts cannot both see a key as new.
    return this.serial(name, () => this.putNow(fingerprint, name, rows));
  }

  private async putNow(fingerprint: string, name: string, rows: readonly VectorRow[]): Promise<void> {
    let table = await this.table(name);
    const shape = table ? await tableShape(table) : { dims: rows[0].vector?.length ?? 0, tokens: true };
    const { dims } = shape;
    // Validate everything before writing anything, so a bad vector leaves no partial batch.
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
        table = await this.db.createTable(name, toArrow(fresh, dims, true), { mode: "create" });
        this.open.set(name, table);
        this.keyCache.set(name, { version: await table.version(), keys: seen });
        return;
      } catch (err) {
        // Another process may have created it in between: fall through to an ordinary append.
        table = await this.table(name);
        if (!table) throw err;
        const existing = await tableShape(table);
        if (existing.dims !== dims) {
          throw new Error(`vector store ${fingerprint}: vector for id '${rows[0].id}' has ${dims} dimensions, the table has ${existing.dims}`, { cause: err });
        }
        shape.tokens = existing.tokens;
      }
    }
    const stored = await this.storedKeys(table);
    const toWrite = fresh.filter((r) => !stored.keys.has(r.key));
    if (toWrite.length === 0) return;
    // One add = one committed version: durable (against a killed process) when it resolves.
    // A table from before the tokens column is appended to in its own four-column schema (not
    // migrated): its new rows simply have unknown tokens.
    const { version } = await table.add(toArrow(toWrite, dims, shape.tokens));
    // Only our own commit in between: the key set stays exact without a re-read.
    if (version === stored.version + 1) {
      for (const r of toWrite) stored.keys.add(r.key);
      stored.version = version;
    }
  }

  /**
   * Keys stored in a table, read once and then kept up to date by our own puts; re-read when
   * the table's version shows a write we did not make (another process sharing the cache).
   * Checking 64 keys with an `IN` query would instead rescan the key column of every fragment on
   * each put, which made writing 6,308 vectors in batches of 64 take ~1.6 times as long.
   */
  private async storedKeys(table: lancedb.Table): Promise<{ version: number; keys: Set<string> }> {
    const version = await table.version();
    const cached = this.keyCache.get(table.name);
    if (cached && cached.version === version) return cached;
    const keys = new Set<string>();
    for (const batch of (await table.query().select(["key"]).toArrow()).batches) {
      for (const k of batch.getChild("key") ?? []) keys.add(k as string);
    }
    const fresh = { version, keys };
    this.keyCache.set(table.name, fresh);
    return fresh;
  }

  async count(fingerprint: string, side?: Side): Promise<number> {
    const table = await this.table(tableName(fingerprint));
    if (!table) return 0;
    return side === undefined ? table.countRows() : table.countRows(`side = ${sqlString(side)}`);
  }

  async dims(fingerprint: string): Promise<number | undefined> {
    const table = await this.table(tableName(fingerprint));
    return table ? tableDims(table) : undefined;
  }

  async tables(): Promise<string[]> {
    return (await this.db.tableNames()).filter((n) => !n.endsWith(DOCS_SUFFIX));
  }

  async drop(fingerprint: string): Promise<void> {
    const name = tableName(fingerprint);
    await this.serial(name, async () => {
      const names = await this.db.tableNames();
      for (const n of [name, name + DOCS_SUFFIX]) {
        this.open.get(n)?.close();
        this.open.delete(n);
        this.keyCache.delete(n);
        if (names.includes(n)) await this.db.dropTable(n);
      }
    });
  }

  async buildAnnIndex(fingerprint: string, opts: AnnIndexOptions = {}): Promise<void> {
    const name = tableName(fingerprint);
    await this.serial(name, async () => {
      const table = await this.table(name);
      if (!table) throw new Error(`vector store ${fingerprint}: no vectors stored, nothing to index`);
      const dims = await tableDims(table);
      const docs = await table.query().where("side = 'document'").select(["key", "id", "vector"]).toArrow();
      const n = docs.numRows;
      // PQ trains a 256-entry codebook per sub-vector: LanceDB refuses fewer than 256 rows.
      if (n < 256) throw new Error(`vector store ${fingerprint}: IVF_PQ needs at least 256 document vectors, have ${n}`);
      const partitions = opts.partitions ?? Math.max(1, Math.min(Math.round(Math.sqrt(n)), Math.floor(n / 40)));
      if (!(Number.isInteger(partitions) && partitions >= 1 && partitions <= n)) {
        throw new Error(`vector store ${fingerprint}: partitions must be an integer in [1, ${n}], got ${opts.partitions}`);
      }
      const subVectors = opts.subVectors ?? (dims % 16 === 0 ? dims / 16 : dims % 8 === 0 ? dims / 8 : 1);
      if (!(Number.isInteger(subVectors) && subVectors >= 1 && dims % subVectors === 0)) {
        throw new Error(`vector store ${fingerprint}: subVectors must divide the dimension ${dims}, got ${opts.subVectors}`);
      }
      const docsName = name + DOCS_SUFFIX;
      this.open.get(docsName)?.close();
      this.open.delete(docsName);
      // Re-encode through our own builder: the query result's schema may differ in nullability.
      const rows: VectorRow[] = [];
      for (const batch of docs.batches) {
        const got = new Map<string, CachedVector>();
        collect([batch], dims, undefined, got);
        const keys = batch.getChild("key")!;
        const ids = batch.getChild("id")!;
        for (let i = 0; i < batch.numRows; i++) {
          const key = keys.get(i) as string;
          rows.push({ key, id: ids.get(i) as string, side: "document", vector: got.get(key)!.vector });
        }
      }
      // Drop then create, not mode "overwrite": overwriting a table that does not exist yet makes
      // LanceDB log a warning to stderr.
      if ((await this.db.tableNames()).includes(docsName)) await this.db.dropTable(docsName);
      // The ANN copy needs no token counts (searches read only key, id and vector).
      const docsTable = await this.db.createTable(docsName, toArrow(rows, dims, false), { mode: "create" });
      this.open.set(docsName, docsTable);
      await docsTable.createIndex("vector", {
        // "dot" explicitly: LanceDB defaults to L2, and the index and the search must agree.
        config: lancedb.Index.ivfPq({ distanceType: "dot", numPartitions: partitions, numSubVectors: subVectors }),
        replace: true,
      });
    });
  }

  async hasCurrentAnnIndex(fingerprint: string): Promise<boolean> {
    const name = tableName(fingerprint);
    const docs = await this.table(name + DOCS_SUFFIX);
    const main = await this.table(name);
    if (!docs || !main) return false;
    const [indexed, stored] = await Promise.all([docs.countRows(), main.countRows("side = 'document'")]);
    return indexed === stored;
  }

  async annSearch(fingerprint: string, queries: readonly Float32Array[], k: number, opts: AnnSearchOptions = {}): Promise<AnnResult[]> {
    if (!(Number.isInteger(k) && k > 0)) throw new Error(`annSearch: k must be a positive integer, got ${k}`);
    const name = tableName(fingerprint);
    const docs = await this.table(name + DOCS_SUFFIX);
    const main = await this.table(name);
    if (!docs || !main) throw new Error(`vector store ${fingerprint}: no ANN index; call buildAnnIndex first`);
    const [indexed, stored] = await Promise.all([docs.countRows(), main.countRows("side = 'document'")]);
    if (indexed !== stored) {
      throw new Error(`vector store ${fingerprint}: the ANN index covers ${indexed} documents but ${stored} are stored; call buildAnnIndex again`);
    }
    for (const knob of ["nprobes", "refineFactor"] as const) {
      const v = opts[knob];
      // Checked here: LanceDB's native layer rejects a bad value with an opaque conversion error.
      if (v != null && !(Number.isInteger(v) && v > 0)) throw new Error(`annSearch: ${knob} must be a positive integer, got ${v}`);
    }
    const dims = await tableDims(docs);
    queries.forEach((q, i) => validateVector(fingerprint, `query #${i}`, q, dims));
    return Promise.all(
      queries.map(async (q) => {
        // "_distance" named explicitly: leaving it out makes LanceDB log a deprecation warning
        // to stderr on every query.
        let search = docs.vectorSearch(q).distanceType("dot").limit(k).select(["key", "id", "_distance"]);
        if (opts.nprobes != null) search = search.nprobes(opts.nprobes);
        if (opts.refineFactor != null) search = search.refineFactor(opts.refineFactor);
        const result = await search.toArrow();
        const ids: string[] = [];
        const keys: string[] = [];
        const scores: number[] = [];
        const idCol = result.getChild("id");
        const keyCol = result.getChild("key");
        const dist = result.getChild("_distance");
        for (let i = 0; i < result.numRows; i++) {
          ids.push(idCol!.get(i) as string);
          keys.push(keyCol!.get(i) as string);
          // LanceDB's "dot" distance is 1 − q·d; report the dot product itself.
          scores.push(1 - (dist!.get(i) as number));
        }
        return { ids, keys, scores };
      }),
    );
  }

  close(): void {
    for (const t of this.open.values()) t.close();
    this.open.clear();
    this.db.close();
  }
}

/** Throws, naming the row's id, unless the row is well formed and its vector has `dims` finite values. */
function validateRow(fingerprint: string, r: VectorRow, dims: number): void {
  const who = `vector store ${fingerprint}: row for id '${r.id}'`;
  if (typeof r.key !== "string" || r.key === "") throw new Error(`${who} has no key`);
  if (typeof r.id !== "string") throw new Error(`${who} has a non-string id`);
  if (r.side !== "query" && r.side !== "document") throw new Error(`${who} has side '${String(r.side)}', expected "query" or "document"`);
  if (r.tokens !== undefined && !(Number.isInteger(r.tokens) && r.tokens >= 0 && r.tokens <= 0x7fffffff)) {
    throw new Error(`${who} has tokens ${String(r.tokens)}, expected a non-negative 32-bit integer or none`);
  }
  validateVector(fingerprint, r.id, r.vector, dims);
}

/** Throws, naming the id, unless `vector` is a Float32Array of `dims` finite values. */
function validateVector(fingerprint: string, id: string, vector: Float32Array, dims: number): void {
  const who = `vector store ${fingerprint}: vector for id '${id}'`;
  if (!(vector instanceof Float32Array)) throw new Error(`${who} is not a Float32Array`);
  if (vector.length === 0) throw new Error(`${who} is empty`);
  if (vector.length !== dims) throw new Error(`${who} has ${vector.length} dimensions, the table has ${dims}`);
  for (let i = 0; i < vector.length; i++) {
    if (!Number.isFinite(vector[i])) throw new Error(`${who} holds ${vector[i]} at position ${i}`);
  }
}
