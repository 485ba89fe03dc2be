/** A damaged table rebuilt from its readable rows, or taken back to its newest readable version; the log says what is lost. */
import path from "node:path";
import type * as lancedb from "@lancedb/lancedb";
import type { RecordBatch } from "apache-arrow";
import { clearCommand, damaged, isDamage, lanceFailure, lanceReason, VectorStoreError } from "./lance-errors";
import { listManifests, putBack, setAside, type SetAside } from "./vector-manifests";
import { decodeRows, tableShape, toArrow } from "./vector-layout";
import type { VectorTables } from "./vector-tables";

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
    // The latest version went bad after the handle was opened: open again, falling back to a readable version.
    t.forget(name);
    table = await t.table(name);
    if (!table) return;
  }
  const salvage = await salvageRows(table).catch((err: unknown) => {
    throw damaged(`vector store ${fingerprint}: ${where} is damaged (${lanceReason(cause)}) and what is left could not be read (${lanceReason(err)})`, where, err);
  });
  if (salvage.cause === undefined) return;
  const { rows, lost, dims, tokens } = salvage;
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
  const rebuilt = await t.db.createTable(name, toArrow(rows, dims, tokens), { mode: "overwrite" });
  t.adopt(rebuilt, { version: await rebuilt.version(), keys: new Set(rows.map((r) => r.key)) });
}

/** One fallback per table at a time, holding its lock: concurrent openers wait for it and share its result. */
export function fallBack(t: VectorTables, name: string, cause: unknown): Promise<lancedb.Table | undefined> {
  const running = t.fallingBack.get(name);
  if (running) return running;
  const run = t.locked(name, () => fallBackNow(t, name, cause), "shared").finally(() => t.fallingBack.delete(name));
  t.fallingBack.set(name, run);
  return run;
}

/**
 * Sets unreadable manifests aside, newest first, until a version opens (LanceDB's checkout and restore read the latest
 * manifest first, so cannot); when none opens every manifest goes back.
 */
async function fallBackNow(t: VectorTables, name: string, cause: unknown): Promise<lancedb.Table | undefined> {
  if (!(await t.exists(name))) return undefined;
  // Another process may have done it while this one waited for the lock (null: still damaged).
  const opened = await t.openChecked(name).catch((err: unknown) => (isDamage(err) ? null : Promise.reject(err)));
  if (opened !== null) return opened;
  const where = t.where(name);
  if (!t.localDir) {
    throw new VectorStoreError(`vector store: the latest version of ${where} cannot be read (${lanceReason(cause)})`, "DAMAGED", {
      cause,
      hint: `${clearCommand(where)} (its vectors will be embedded again), or delete its newest manifest in ${where}/_versions`,
    });
  }
  const manifests = await listManifests(where);
  // A table another writer is creating has no manifest yet: nothing committed, so nothing to read or lose.
  if (!manifests.length) return undefined;
  const moved: SetAside[] = [];
  try {
    for (const manifest of manifests) {
      moved.push(await setAside(where, manifest));
      const table = await t.openChecked(name).catch((err: unknown) => (isDamage(err) ? undefined : Promise.reject(err)));
      if (!table) continue;
      t.log(await fallbackReport(where, table, moved, cause));
      return table;
    }
  } catch (err) {
    // A move or an open that failed for another reason (permissions, say): leave the folder as it was found.
    await putBack(moved);
    throw err;
  }
  await putBack(moved);
  throw damaged(`vector store: ${where} is damaged and no version of it can be read (${manifestReason(cause)})`, where, cause);
}

/** Why a manifest cannot be read; LanceDB's path for it (relative, its leading slash lost) adds nothing to the table's. */
function manifestReason(err: unknown): string {
  return lanceReason(err).replace(/^Encountered corrupt file \S+: /, "");
}

async function fallbackReport(where: string, table: lancedb.Table, moved: readonly SetAside[], cause: unknown): Promise<string> {
  const versions = moved.map((m) => String(m.manifest.version));
  const which = versions.length === 1 ? `its latest version, ${versions[0]}, cannot` : `its latest versions, ${versions.join(", ")}, cannot`;
  return (
    `${where} is damaged (${which} be read: ${manifestReason(cause)}); going back to version ${await table.version()}, the newest readable ` +
    `one, with its ${await table.countRows()} vectors; the vectors written after it will be embedded again ` +
    `(the unreadable manifest${moved.length === 1 ? " is" : "s are"} kept in ${path.dirname(moved[0].to)})`
  );
}

/**
 * Every row still readable (first of each key), with the rows lost and the first error. Reads split at fragment starts;
 * a fragment whose first row fails is given up whole, other failing ranges are halved down to single rows.
 */
async function salvageRows(table: lancedb.Table) {
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
      const cuts = [lo, ...inner, hi];
      for (let i = 1; i < cuts.length; i++) await walk(cuts[i - 1], cuts[i], true);
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
  return { rows, total, lost, cause: cause as unknown, dims, tokens };
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
