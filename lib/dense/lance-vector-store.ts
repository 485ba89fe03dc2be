/**
 * The LanceDB `VectorStore`. Writes hold the table's cross-process lock (`<uri>/.locks/<table>.lock`; none for object
 * stores) and its in-process queue. A damaged table is rebuilt atomically from its readable rows; lost ones re-embed.
 */
import { promises as fsp } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type * as lancedb from "@lancedb/lancedb";
import { FileLocks } from "../util/file-lock";
import { lancedbSdk } from "../util/sdk";
import { mergeProvenance, type CachedVector, type EmbeddingProvenance } from "./types";
import type { Side } from "../models/embed";
import { clearCommand, clearHint, fromLanceDb, isDamage, lanceFailure, lanceReason } from "./lance-errors";
import { listManifests, putBack, setAside, type SetAside } from "./lance-manifests";
import {
  collect,
  DOCS_SUFFIX,
  salvageRows,
  sqlString,
  tableDims,
  tableName,
  tableShape,
  toArrow,
  validateRow,
  validateVector,
  VectorStoreError,
} from "./lance-table";
import type { AnnIndexOptions, AnnResult, AnnSearchOptions, VectorRow, VectorStore } from "./vector-store";

/**
 * Above this many keys `get` scans the whole table instead of an `IN` filter. On 6,308 × 1,024 vectors in 99
 * puts: a full read 180–420 ms, an `IN` lookup ~40 ms for 64 keys and ~125 ms for 512.
 */
const SCAN_ALL_ABOVE = 512;
/** Keys per SQL `IN (…)` list (keeps the generated SQL a reasonable size). */
const IN_CHUNK = 512;

export interface LanceVectorStoreOptions {
  /** Where repairs and waits for other processes are reported (default: a line on stderr). */
  log?: (message: string) => void;
}

/** The embedding cache on one LanceDB connection; built by `openVectorStore`. */
export class LanceVectorStore implements VectorStore {
  private readonly locks = new FileLocks();
  /** Open handles by table name (LanceDB tables are meant to be long-lived). */
  private readonly open = new Map<string, lancedb.Table>();
  /** Per-table tail of the write queue. */
  private readonly queues = new Map<string, Promise<unknown>>();
  /** Keys known to be stored, with the table version they reflect. */
  private readonly keyCache = new Map<string, { version: number; keys: Set<string> }>();
  /** A fallback from an unreadable latest version in progress, per table: concurrent openers share it. */
  private readonly fallingBack = new Map<string, Promise<lancedb.Table | undefined>>();
  private readonly log: (message: string) => void;
  /** Undefined for an object store (no locks). */
  private readonly localDir: string | undefined;

  constructor(
    readonly uri: string,
    private readonly db: lancedb.Connection,
    opts: LanceVectorStoreOptions = {},
  ) {
    this.log = opts.log ?? ((m) => process.stderr.write(`vector store: ${m}\n`));
    if (uri.startsWith("file://")) this.localDir = fileURLToPath(uri);
    else if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(uri)) this.localDir = path.resolve(uri);
  }

  private where(name: string): string {
    return this.localDir ? path.join(this.localDir, `${name}.lance`) : `${this.uri.replace(/\/+$/, "")}/${name}.lance`;
  }

  private locked<T>(name: string, fn: () => Promise<T>): Promise<T> {
    if (!this.localDir) return fn();
    return this.locks.run(path.join(this.localDir, ".locks", `${name}.lock`), fn, { what: `the vector table ${this.where(name)}`, log: this.log });
  }

  private forget(name: string): void {
    this.open.get(name)?.close();
    this.open.delete(name);
    this.keyCache.delete(name);
  }

  exclusive<T>(fingerprint: string, fn: () => Promise<T>): Promise<T> {
    return this.locked(tableName(fingerprint), fn);
  }

  /** Runs a read; on damage repairs the table and reads once more. `absent` answers for a missing table. */
  private async reading<R>(fingerprint: string, name: string, absent: () => R, op: (table: lancedb.Table) => Promise<R>): Promise<R> {
    const table = await this.table(name);
    if (!table) return absent();
    try {
      return await op(table);
    } catch (err) {
      if (!isDamage(err)) throw err;
      await this.locked(name, () => this.serial(name, () => this.heal(fingerprint, name, err)));
    }
    const again = await this.table(name);
    if (!again) return absent();
    try {
      return await op(again);
    } catch (err) {
      throw this.stillDamaged(name, err);
    }
  }

  /** The error for a table a rebuild did not make readable (a non-damage error passes unchanged). */
  private stillDamaged(name: string, err: unknown): unknown {
    if (!isDamage(err)) return err;
    const where = this.where(name);
    return new VectorStoreError(`vector store: ${where} is still unreadable after rebuilding it (${lanceReason(err)})`, "DAMAGED", {
      cause: err,
      hint: clearHint(where),
    });
  }

  /**
   * A LanceDB error as a `VectorStoreError` naming the table (or store) and a remedy, so no raw native message reaches
   * the user; the toolkit's own errors pass unchanged.
   */
  private named(where: string, err: unknown): unknown {
    if (!fromLanceDb(err)) return err;
    const reason = lanceReason(err);
    const opts = { cause: err };
    switch (lanceFailure(err)) {
      case "missing":
      case "unreadable":
        return new VectorStoreError(`vector store: ${where} is damaged (${reason})`, "DAMAGED", {
          ...opts,
          hint: clearHint(where),
        });
      case "environment":
        return new VectorStoreError(`vector store: cannot use ${where} (${reason})`, "FAILED", {
          ...opts,
          hint: "check that it can be read and written and that its disk has free space, then run again",
        });
      default:
        return new VectorStoreError(`vector store: LanceDB failed on ${where} (${reason})`, "FAILED", {
          ...opts,
          hint: `run again; if it fails the same way, clear the table with ${clearCommand(where)} (its vectors will be embedded again)`,
        });
    }
  }

  /** Runs a public operation, its LanceDB errors named (see `named`). */
  private async guard<T>(where: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      throw this.named(where, err);
    }
  }

  /** Rebuilds a damaged table from its readable rows (holding its lock, in its queue); no-op if whole or gone. */
  private async heal(fingerprint: string, name: string, cause: unknown): Promise<void> {
    const where = this.where(name);
    if (!(await this.db.tableNames()).includes(name)) {
      this.forget(name);
      return;
    }
    let table = await this.table(name);
    if (!table) return;
    if (!(await manifestReadable(table))) {
      // The latest version went bad after the handle was opened: open again, falling back to a readable version.
      this.forget(name);
      table = await this.table(name);
      if (!table) return;
    }
    let salvage;
    let shape;
    try {
      shape = await tableShape(table);
      salvage = await salvageRows(table);
    } catch (err) {
      throw new VectorStoreError(`vector store ${fingerprint}: ${where} is damaged (${lanceReason(cause)}) and what is left could not be read (${lanceReason(err)})`, "DAMAGED", {
        cause: err,
        hint: clearHint(where),
      });
    }
    if (salvage.cause === undefined) return;
    const { rows, lost } = salvage;
    this.log(
      `${where} is damaged (${damageInWords(salvage.cause)}); rebuilding it from the ${rows.length} vectors that can still be read; ` +
        `the rest (${lost} of ${salvage.total} rows) will be embedded again`,
    );
    this.forget(name);
    if (rows.length === 0) {
      await this.db.dropTable(name);
      return;
    }
    // "overwrite" is atomic: a crash leaves the damaged version and the next read tries again.
    const rebuilt = await this.db.createTable(name, toArrow(rows, shape.dims, shape.tokens), { mode: "overwrite" });
    this.open.set(name, rebuilt);
    this.keyCache.set(name, { version: await rebuilt.version(), keys: new Set(rows.map((r) => r.key)) });
  }

  /**
   * An open handle, its latest version checked readable. When it is not, the table falls back to its newest readable
   * version (`fallBack`), except with `fallback` false (the ANN copy, which is dropped instead).
   */
  private async table(name: string, fallback = true): Promise<lancedb.Table | undefined> {
    const cached = this.open.get(name);
    if (cached) return cached;
    // tableNames, not a failed openTable: an absent table is the normal case for a new preset.
    if (!(await this.db.tableNames()).includes(name)) return undefined;
    let t: lancedb.Table | undefined;
    try {
      t = await this.openChecked(name);
    } catch (err) {
      if (!fallback || !isDamage(err)) throw err;
      t = await this.fallBack(name, err);
      if (!t) return undefined;
    }
    this.open.set(name, t);
    return t;
  }

  /** Opens a table and reads its latest manifest (schema and row count come from it, no data file is read). */
  private async openChecked(name: string): Promise<lancedb.Table> {
    const t = await this.db.openTable(name);
    try {
      await t.countRows();
      await t.schema();
      return t;
    } catch (err) {
      t.close();
      throw err;
    }
  }

  /** One fallback per table at a time, holding its lock: concurrent openers wait for it and share its result. */
  private fallBack(name: string, cause: unknown): Promise<lancedb.Table | undefined> {
    const running = this.fallingBack.get(name);
    if (running) return running;
    const run = this.locked(name, () => this.fallBackNow(name, cause)).finally(() => this.fallingBack.delete(name));
    this.fallingBack.set(name, run);
    return run;
  }

  /**
   * Sets unreadable manifests aside, newest first, until a version opens: that version becomes the latest, and the
   * vectors written after it are missing, so they are embedded again. LanceDB's checkout and restore cannot do this
   * (opening an older version, and every commit, read the latest manifest first). Nothing changes unless it helps:
   * when no version opens every manifest goes back, and the error names the table and the command that clears it.
   */
  private async fallBackNow(name: string, cause: unknown): Promise<lancedb.Table | undefined> {
    if (!(await this.db.tableNames()).includes(name)) return undefined;
    try {
      // Another process may have done it while this one waited for the lock.
      return await this.openChecked(name);
    } catch (err) {
      if (!isDamage(err)) throw err;
    }
    const where = this.where(name);
    if (!this.localDir) {
      throw new VectorStoreError(`vector store: the latest version of ${where} cannot be read (${lanceReason(cause)})`, "DAMAGED", {
        cause,
        hint: `${clearCommand(where)} (its vectors will be embedded again), or delete its newest manifest in ${where}/_versions`,
      });
    }
    const moved: SetAside[] = [];
    try {
      for (const manifest of await listManifests(where)) {
        moved.push(await setAside(where, manifest));
        const t = await this.openChecked(name).catch((err: unknown) => (isDamage(err) ? undefined : Promise.reject(err)));
        if (!t) continue;
        this.log(await fallbackReport(where, t, moved, cause));
        return t;
      }
    } catch (err) {
      // A move or an open that failed for another reason (permissions, say): leave the folder as it was found.
      await putBack(moved);
      throw err;
    }
    await putBack(moved);
    throw new VectorStoreError(`vector store: ${where} is damaged and no version of it can be read (${manifestReason(cause)})`, "DAMAGED", {
      cause,
      hint: clearHint(where),
    });
  }

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
    const name = tableName(fingerprint);
    return this.guard(this.where(name), () => this.reading(fingerprint, name, () => new Map<string, CachedVector>(), (table) => this.getFrom(table, keys)));
  }

  private async getFrom(table: lancedb.Table, keys: readonly string[]): Promise<Map<string, CachedVector>> {
    const out = new Map<string, CachedVector>();
    if (keys.length === 0) return out;
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
    // Lock and queue: two overlapping puts must not both see a key as new.
    return this.guard(this.where(name), () => this.locked(name, () => this.serial(name, () => this.putNow(fingerprint, name, rows))));
  }

  private async putNow(fingerprint: string, name: string, rows: readonly VectorRow[], healed = false): Promise<void> {
    let table = await this.table(name);
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
        table = await this.db.createTable(name, toArrow(fresh, dims, true), { mode: "create" });
        this.open.set(name, table);
        this.keyCache.set(name, { version: await table.version(), keys: seen });
        return;
      } catch (err) {
        // Another process may have created it meanwhile: fall through to an append.
        table = await this.table(name);
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
      if (healed || !isDamage(err)) throw this.stillDamaged(name, err);
      await this.heal(fingerprint, name, err);
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

  private provenanceFile(name: string): string | undefined {
    return this.localDir ? path.join(this.localDir, ".provenance", `${name}.json`) : undefined;
  }

  async provenance(fingerprint: string): Promise<EmbeddingProvenance> {
    const file = this.provenanceFile(tableName(fingerprint));
    const none: EmbeddingProvenance = { servedModels: [], standIn: false };
    if (!file) return none;
    let text: string;
    try {
      text = await fsp.readFile(file, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return none;
      throw err;
    }
    try {
      const j = JSON.parse(text) as Partial<EmbeddingProvenance>;
      return {
        servedModels: Array.isArray(j.servedModels) ? j.servedModels.filter((m): m is string => typeof m === "string") : [],
        standIn: j.standIn === true,
      };
    } catch {
      this.log(`${file} is not valid JSON; the provenance of ${this.where(tableName(fingerprint))} is unknown`);
      return none;
    }
  }

  async noteProvenance(fingerprint: string, p: EmbeddingProvenance): Promise<void> {
    const name = tableName(fingerprint);
    const file = this.provenanceFile(name);
    if (!file || (p.servedModels.length === 0 && !p.standIn)) return;
    await this.locked(name, async () => {
      const old = await this.provenance(fingerprint);
      const merged = mergeProvenance(old, p);
      if (merged.standIn === old.standIn && merged.servedModels.length === old.servedModels.length) return;
      await fsp.mkdir(path.dirname(file), { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      await fsp.writeFile(tmp, JSON.stringify(merged) + "\n");
      await fsp.rename(tmp, file);
    });
  }

  async count(fingerprint: string, side?: Side): Promise<number> {
    const name = tableName(fingerprint);
    return this.guard(this.where(name), () =>
      this.reading(fingerprint, name, () => 0, (table) => (side === undefined ? table.countRows() : table.countRows(`side = ${sqlString(side)}`))),
    );
  }

  async dims(fingerprint: string): Promise<number | undefined> {
    const name = tableName(fingerprint);
    return this.guard(this.where(name), async () => {
      const table = await this.table(name);
      return table ? tableDims(table) : undefined;
    });
  }

  async tables(): Promise<string[]> {
    return this.guard(this.uri, async () => (await this.db.tableNames()).filter((n) => !n.endsWith(DOCS_SUFFIX)));
  }

  async drop(fingerprint: string): Promise<void> {
    const name = tableName(fingerprint);
    await this.guard(this.where(name), () =>
      this.locked(name, () =>
        this.serial(name, async () => {
          const names = await this.db.tableNames();
          for (const n of [name, name + DOCS_SUFFIX]) {
            this.forget(n);
            if (names.includes(n)) await this.db.dropTable(n);
          }
        }),
      ),
    );
  }

  async buildAnnIndex(fingerprint: string, opts: AnnIndexOptions = {}): Promise<void> {
    const name = tableName(fingerprint);
    await this.guard(this.where(name), () => this.locked(name, () => this.serial(name, () => this.buildAnnNow(fingerprint, name, opts))));
  }

  private async buildAnnNow(fingerprint: string, name: string, opts: AnnIndexOptions): Promise<void> {
    const readDocs = async () => {
      const table = await this.table(name);
      if (!table) throw new Error(`vector store ${fingerprint}: no vectors stored, nothing to index`);
      return { table, docs: await table.query().where("side = 'document'").select(["key", "id", "vector"]).toArrow() };
    };
    let read;
    try {
      read = await readDocs();
    } catch (err) {
      if (!isDamage(err)) throw err;
      await this.heal(fingerprint, name, err);
      read = await readDocs().catch((e: unknown) => Promise.reject(this.stillDamaged(name, e)));
    }
    const { table, docs } = read;
    const dims = await tableDims(table);
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
    // Re-encoded: the query result's schema may differ in nullability.
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
    // Not mode "overwrite": overwriting a table that does not exist makes LanceDB warn on stderr.
    if ((await this.db.tableNames()).includes(docsName)) await this.db.dropTable(docsName);
    // No tokens column: searches read only key, id and vector.
    const docsTable = await this.db.createTable(docsName, toArrow(rows, dims, false), { mode: "create" });
    this.open.set(docsName, docsTable);
    await docsTable.createIndex("vector", {
      // LanceDB defaults to L2; the index and the search must agree.
      config: lancedbSdk().Index.ivfPq({ distanceType: "dot", numPartitions: partitions, numSubVectors: subVectors }),
      replace: true,
    });
  }

  async hasCurrentAnnIndex(fingerprint: string): Promise<boolean> {
    const name = tableName(fingerprint);
    return this.guard(this.where(name + DOCS_SUFFIX), async () => {
      let docs;
      try {
        docs = await this.annCopy(fingerprint, name);
      } catch (err) {
        if (!(err instanceof VectorStoreError && err.code === "ANN_DAMAGED")) throw err;
        // The caller builds it again on a false answer: told, not thrown.
        this.log(err.message);
        return false;
      }
      if (!docs) return false;
      const stored = await this.reading(fingerprint, name, () => undefined, (main) => main.countRows("side = 'document'"));
      return stored !== undefined && (await docs.countRows()) === stored;
    });
  }

  async annSearch(fingerprint: string, queries: readonly Float32Array[], k: number, opts: AnnSearchOptions = {}): Promise<AnnResult[]> {
    if (!(Number.isInteger(k) && k > 0)) throw new Error(`annSearch: k must be a positive integer, got ${k}`);
    const name = tableName(fingerprint);
    return this.guard(this.where(name + DOCS_SUFFIX), () => this.annSearchNow(fingerprint, name, queries, k, opts));
  }

  private async annSearchNow(fingerprint: string, name: string, queries: readonly Float32Array[], k: number, opts: AnnSearchOptions): Promise<AnnResult[]> {
    const docs = await this.annCopy(fingerprint, name);
    const stored = docs ? await this.reading(fingerprint, name, () => undefined, (main) => main.countRows("side = 'document'")) : undefined;
    if (!docs || stored === undefined) throw new Error(`vector store ${fingerprint}: no ANN index; call buildAnnIndex first`);
    const indexed = await docs.countRows();
    if (indexed !== stored) {
      throw new Error(`vector store ${fingerprint}: the ANN index covers ${indexed} documents but ${stored} are stored; call buildAnnIndex again`);
    }
    for (const knob of ["nprobes", "refineFactor"] as const) {
      const v = opts[knob];
      // LanceDB's native layer would reject it with an opaque conversion error.
      if (v != null && !(Number.isInteger(v) && v > 0)) throw new Error(`annSearch: ${knob} must be a positive integer, got ${v}`);
    }
    const dims = await tableDims(docs);
    queries.forEach((q, i) => validateVector(fingerprint, `query #${i}`, q, dims));
    try {
      return await this.searchAnn(docs, queries, k, opts);
    } catch (err) {
      if (!isDamage(err)) throw err;
      throw await this.dropAnnCopy(fingerprint, name, err);
    }
  }

  /** The ANN copy, if any; a damaged one (its latest version or a file) is dropped and reported as ANN_DAMAGED. */
  private async annCopy(fingerprint: string, name: string): Promise<lancedb.Table | undefined> {
    try {
      return await this.table(name + DOCS_SUFFIX, false);
    } catch (err) {
      if (!isDamage(err)) throw err;
      throw await this.dropAnnCopy(fingerprint, name, err);
    }
  }

  /** Drops a damaged ANN copy; it is derived, and only the caller knows the partitions to build it again with. */
  private async dropAnnCopy(fingerprint: string, name: string, err: unknown): Promise<VectorStoreError> {
    const docsName = name + DOCS_SUFFIX;
    await this.locked(name, () =>
      this.serial(name, async () => {
        this.forget(docsName);
        if ((await this.db.tableNames()).includes(docsName)) await this.db.dropTable(docsName);
      }),
    );
    return new VectorStoreError(`vector store ${fingerprint}: the ANN copy ${this.where(docsName)} was damaged (${lanceReason(err)}) and has been dropped`, "ANN_DAMAGED", {
      cause: err,
      hint: "call buildAnnIndex again (an ann: retriever does so by itself on its next run)",
    });
  }

  private searchAnn(docs: lancedb.Table, queries: readonly Float32Array[], k: number, opts: AnnSearchOptions): Promise<AnnResult[]> {
    return Promise.all(
      queries.map(async (q) => {
        // Without "_distance" LanceDB logs a deprecation warning on every query.
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

/** Whether a handle's latest manifest can be read (an error other than damage passes). */
async function manifestReadable(table: lancedb.Table): Promise<boolean> {
  try {
    await table.countRows();
    return true;
  } catch (err) {
    if (!isDamage(err)) throw err;
    return false;
  }
}

/** A data file's damage in plain words, then LanceDB's reason. */
function damageInWords(err: unknown): string {
  const what = lanceFailure(err) === "missing" ? "a data file is missing" : "a data file is unreadable";
  return `${what}: ${lanceReason(err)}`;
}

/** Why a manifest cannot be read; LanceDB's path for it (relative, its leading slash lost) adds nothing to the table's. */
function manifestReason(err: unknown): string {
  return lanceReason(err).replace(/^Encountered corrupt file \S+: /, "");
}

/** The one line told when a table went back to an older version. */
async function fallbackReport(where: string, table: lancedb.Table, moved: readonly SetAside[], cause: unknown): Promise<string> {
  const versions = moved.map((m) => String(m.manifest.version));
  const which = versions.length === 1 ? `its latest version, ${versions[0]}, cannot` : `its latest versions, ${versions.join(", ")}, cannot`;
  return (
    `${where} is damaged (${which} be read: ${manifestReason(cause)}); going back to version ${await table.version()}, the newest readable ` +
    `one, with its ${await table.countRows()} vectors; the vectors written after it will be embedded again ` +
    `(the unreadable manifest${moved.length === 1 ? " is" : "s are"} kept in ${path.dirname(moved[0].to)})`
  );
}
