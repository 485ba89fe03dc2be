/** Recovery from damage: a damaged table is rebuilt from its readable rows; an unreadable latest version is an error. */
import { promises as fsp } from "node:fs";
import path from "node:path";
import type * as lancedb from "@lancedb/lancedb";
import type { RecordBatch } from "apache-arrow";
import { clearCommand, damaged, isDamage, lanceFailure, lanceReason, VectorStoreError } from "./lance-errors";
import { decodeRows, tableShape, toArrow } from "./vector-layout";
import type { VectorTables } from "./vector-tables";
import type { VectorRow } from "./vector-store";

/** Runs a read; on damage repairs the table and reads once more. `absent` answers for a missing table. */
export async function reading<R>(t: VectorTables, fingerprint: string, name: string, absent: () => R, op: (table: lancedb.Table) => Promise<R>): Promise<R> {
  const table = await t.table(name);
  if (!table) return absent();
  try {
    return await op(table);
  } catch (err) {
    if (!isDamage(err)) throw err;
    await t.locked(name, () => heal(t, fingerprint, name, err));
  }
  const again = await t.table(name);
  if (!again) return absent();
  try {
    return await op(again);
  } catch (err) {
    throw stillDamaged(t, name, err);
  }
}

/** The error for a table a rebuild did not make readable. */
export function stillDamaged(t: VectorTables, name: string, err: unknown): unknown {
  if (!isDamage(err)) return err;
  const where = t.where(name);
  return damaged(`vector store: ${where} is still unreadable after rebuilding it (${lanceReason(err)})`, where, err);
}

/** Rebuilds a damaged table from its readable rows (the caller holds its lock); no-op if whole or gone. */
export async function heal(t: VectorTables, fingerprint: string, name: string, cause: unknown): Promise<void> {
  const where = t.where(name);
  // A handle to a table another process dropped is forgotten.
  if (!(await t.exists(name))) return t.forget(name);
  let table = await t.table(name);
  if (!table) return;
  try {
    await table.countRows();
  } catch (err) {
    if (!isDamage(err)) throw err;
    // The latest version went bad after the handle was opened: open again (an unreadable one is an error).
    t.forget(name);
    table = await t.table(name);
    if (!table) return;
  }
  let salvage;
  let shape;
  try {
    shape = await tableShape(table);
    salvage = await salvageRows(table);
  } catch (err) {
    throw damaged(`vector store ${fingerprint}: ${where} is damaged (${lanceReason(cause)}) and what is left could not be read (${lanceReason(err)})`, where, err);
  }
  if (salvage.cause === undefined) return;
  const { rows, lost } = salvage;
  const what = lanceFailure(salvage.cause) === "missing" ? "a data file is missing" : "a data file is unreadable";
  t.log(
    `${where} is damaged (${what}: ${lanceReason(salvage.cause)}); rebuilding it from the ${rows.length} vectors that can still be read; ` +
      `the rest (${lost} of ${salvage.total} rows) will be embedded again`,
  );
  t.forget(name);
  if (rows.length === 0) {
    await t.db.dropTable(name);
    return;
  }
  // "overwrite" is atomic: a crash leaves the damaged version and the next read tries again.
  const rebuilt = await t.db.createTable(name, toArrow(rows, shape.dims, shape.tokens), { mode: "overwrite" });
  t.adopt(rebuilt, { version: await rebuilt.version(), keys: new Set(rows.map((r) => r.key)) });
}

/**
 * The error for a table whose latest version cannot be opened. Deleting that version's manifest makes LanceDB open the
 * one before it (checkout and restore cannot: they read the latest manifest first), so the hint names the file.
 */
export async function latestUnreadable(t: VectorTables, name: string, cause: unknown): Promise<VectorStoreError> {
  const where = t.where(name);
  const reason = lanceReason(cause).replace(/^Encountered corrupt file \S+: /, "");
  const manifests = t.localDir ? await manifestsNewestFirst(where) : [];
  const none = `vector store: ${where} is damaged and no version of it can be read (${reason})`;
  if (manifests.length === 1) return damaged(none, where, cause);
  const manifest = manifests[0] ?? `its newest manifest in ${where}/_versions`;
  return new VectorStoreError(`vector store: the latest version of ${where} cannot be read (${reason})`, "DAMAGED", {
    cause,
    hint: `delete ${manifest} to go back to the version before it, or ${clearCommand(where)}; lost vectors are embedded again`,
  });
}

const U64_MAX = (1n << 64n) - 1n;

/** A local table's manifest files, newest first: Lance names version v's u64::MAX − v, older tables v itself. */
async function manifestsNewestFirst(tableDir: string): Promise<string[]> {
  const dir = path.join(tableDir, "_versions");
  const versionOf = (name: string) => {
    const n = BigInt(/^(\d+)\.manifest$/.exec(name)![1]);
    return n > U64_MAX / 2n ? U64_MAX - n : n;
  };
  const names = (await fsp.readdir(dir).catch(() => [])).filter((n) => /^\d+\.manifest$/.test(n));
  return names.sort((a, b) => (versionOf(a) < versionOf(b) ? 1 : -1)).map((n) => path.join(dir, n));
}

/**
 * Every row still readable (the first of each key), the manifest's total, the rows lost and the first error (undefined
 * when all could be read). Reads split at fragment starts, so a damaged file costs only its own rows; a fragment whose
 * first row fails is given up whole, other failing ranges are halved down to single rows, each retried once.
 */
async function salvageRows(table: lancedb.Table): Promise<{ rows: VectorRow[]; total: number; lost: number; cause?: unknown }> {
  const total = await table.countRows(); // from the manifest: no data file is read
  const { dims, tokens } = await tableShape(table);
  const columns = tokens ? ["key", "id", "side", "vector", "tokens"] : ["key", "id", "side", "vector"];
  const bounds = await fragmentBounds(table, total);
  const batches: RecordBatch[] = [];
  let lost = 0;
  let cause: unknown;
  const read = async (lo: number, hi: number): Promise<boolean> => {
    try {
      const offsets = Array.from({ length: hi - lo }, (_, i) => lo + i);
      batches.push(...(await table.takeOffsets(offsets).select(columns).toArrow()).batches);
      return true;
    } catch (err) {
      if (!isDamage(err)) throw err;
      cause ??= err;
      return false;
    }
  };
  const walk = async (lo: number, hi: number, wholeFragment: boolean): Promise<void> => {
    if (await read(lo, hi)) return;
    const inner = bounds.filter((b) => b > lo && b < hi);
    if (inner.length > 0) {
      let from = lo;
      for (const b of [...inner, hi]) {
        await walk(from, b, true);
        from = b;
      }
      return;
    }
    if (hi - lo === 1) {
      // Once more before giving the row up: a damaged file fails every time.
      if (!(await read(lo, hi))) lost++;
      return;
    }
    if (wholeFragment && !(await read(lo, lo + 1))) {
      lost += hi - lo;
      return;
    }
    const mid = lo + Math.floor((hi - lo) / 2);
    await walk(lo, mid, false);
    await walk(mid, hi, false);
  };
  if (total > 0) await walk(0, total, false);
  const seen = new Set<string>();
  const rows = decodeRows(batches, dims).filter((r) => !seen.has(r.key) && seen.add(r.key));
  return { rows, total, lost, cause };
}

/** Row offsets where fragments begin, from the row counts each version's manifest records. */
async function fragmentBounds(table: lancedb.Table, total: number): Promise<number[]> {
  const bounds = new Set<number>();
  try {
    for (const v of await table.listVersions()) {
      const n = Number((v.metadata as Record<string, string> | undefined)?.total_rows);
      // Counts from before a rebuild are not fragment starts; as extra split points they only shrink some reads.
      if (Number.isInteger(n) && n > 0 && n < total) bounds.add(n);
    }
  } catch {
    // Without the history the search halves ranges instead: slower, same result.
  }
  return [...bounds].sort((a, b) => a - b);
}
