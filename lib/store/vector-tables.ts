/** A LanceDB connection's tables: long-lived handles, the keys known to be stored, each table's lock (`FileLocks`). */
import path from "node:path";
import { fileURLToPath } from "node:url";
import type * as lancedb from "@lancedb/lancedb";
import { FileLocks } from "../util/file-lock";
import { isDamage, namedLanceError, noVersion } from "./lance-errors";
import { fallBack } from "./vector-recovery";

/** The tables of one connection, shared by the cache, provenance and recovery. */
export class VectorTables {
  private readonly locks = new FileLocks();
  private readonly open = new Map<string, lancedb.Table>();
  readonly keyCache = new Map<string, { version: number; keys: Set<string> }>();
  /** A fallback from an unreadable latest version in progress, per table: concurrent openers share it. */
  readonly fallingBack = new Map<string, Promise<lancedb.Table | undefined>>();
  /** Undefined for an object store (no lock files). */
  readonly localDir: string | undefined;

  constructor(readonly uri: string, readonly db: lancedb.Connection, readonly log: (message: string) => void) {
    if (uri.startsWith("file://")) this.localDir = fileURLToPath(uri);
    else if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(uri)) this.localDir = path.resolve(uri);
  }

  where(name: string): string {
    return this.localDir ? path.join(this.localDir, `${name}.lance`) : `${this.uri.replace(/\/+$/, "")}/${name}.lance`;
  }

  /** Runs `fn` holding `<uri>/.locks/<table>.lock`: "exclusive" takes turns in this process, "shared" joins a hold. */
  locked<T>(name: string, fn: () => Promise<T>, inProcess: "shared" | "exclusive" = "exclusive"): Promise<T> {
    const lock = path.join(this.localDir ?? this.uri, ".locks", `${name}.lock`);
    return this.locks.run(lock, fn, { what: `the vector table ${this.where(name)}`, log: this.log, inProcess, fileless: !this.localDir });
  }

  async guard<T>(where: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      throw namedLanceError(where, err);
    }
  }

  async exists(name: string): Promise<boolean> {
    return (await this.db.tableNames()).includes(name);
  }

  forget(name: string): void {
    this.open.get(name)?.close();
    this.open.delete(name);
    this.keyCache.delete(name);
  }

  adopt(table: lancedb.Table, keys?: { version: number; keys: Set<string> }): void {
    this.open.set(table.name, table);
    if (keys) this.keyCache.set(table.name, keys);
  }

  /** An open handle, falling back to the newest readable version if the latest is not. */
  async table(name: string): Promise<lancedb.Table | undefined> {
    const cached = this.open.get(name);
    if (cached) return cached;
    // tableNames, not a failed openTable: an absent table is the normal case for a new preset.
    if (!(await this.exists(name))) return undefined;
    let t: lancedb.Table | undefined;
    try {
      t = await this.openChecked(name);
    } catch (err) {
      if (!isDamage(err)) throw err;
      t = await fallBack(this, name, err);
    }
    if (!t) return undefined;
    this.open.set(name, t);
    return t;
  }

  /** Opens a table and reads its latest manifest (schema and row count come from it, no data file is read); undefined while none is committed. */
  async openChecked(name: string): Promise<lancedb.Table | undefined> {
    const t = await this.db.openTable(name).catch((err: unknown) => (noVersion(err) ? undefined : Promise.reject(err)));
    if (!t) return undefined;
    try {
      await t.countRows();
      await t.schema();
      return t;
    } catch (err) {
      t.close();
      throw err;
    }
  }

  close(): void {
    for (const t of this.open.values()) t.close();
    this.open.clear();
    this.db.close();
  }
}
