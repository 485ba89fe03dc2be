/** What a local LanceDB vector folder holds, read with LanceDB itself rather than through the store under test. */
import * as lancedb from "@lancedb/lancedb";
import { DataType } from "apache-arrow";
import { tableName } from "../../lib/store/vector-layout";

async function withDb<T>(dir: string, fn: (db: lancedb.Connection) => Promise<T>): Promise<T> {
  const db = await lancedb.connect(dir);
  try {
    return await fn(db);
  } finally {
    db.close();
  }
}

/** The vector tables in `dir`, in LanceDB's order; ANN copies older versions made (`<table>__docs`) left out. */
export function vectorTables(dir: string): Promise<string[]> {
  return withDb(dir, async (db) => (await db.tableNames()).filter((n) => !n.endsWith("__docs")));
}

/** The vector size of a fingerprint's table, from its schema; undefined when there is no table. */
export function vectorDims(dir: string, fingerprint: string): Promise<number | undefined> {
  return withDb(dir, async (db) => {
    const name = tableName(fingerprint);
    if (!(await db.tableNames()).includes(name)) return undefined;
    const table = await db.openTable(name);
    try {
      const type = (await table.schema()).fields.find((f) => f.name === "vector")?.type;
      return type && DataType.isFixedSizeList(type) ? type.listSize : undefined;
    } finally {
      table.close();
    }
  });
}
