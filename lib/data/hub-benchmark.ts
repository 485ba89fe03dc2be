/** A pull's cached files read as a Benchmark, checked so every error names its file and line. */
import type { Benchmark, Doc, DocId, Query, QueryId, QueryMeta } from "../types";
import { DataError } from "../util/errors";
import type { Manifest } from "./hub-manifest";
import { HUB_CONFIGS, localPath } from "./hub-settings";
import { readTable, type Table } from "./tabular";
import { areaOf, idProblem, parseScore } from "./beir";

/** The benchmark in a pull's cache, in file order; `log` hears of metadata rows that match no query. */
export async function benchmarkFromCache(cacheDir: string, manifest: Manifest, log: (msg: string) => void): Promise<Benchmark> {
  const tables = async (config: string) =>
    Promise.all((manifest.configs[config] ?? []).map((p) => readTable(localPath(cacheDir, p))));

  const corpusTables = await tables(HUB_CONFIGS.corpus);
  const docs = toItems(corpusTables, "corpus");
  if (docs.length === 0) throw new DataError(`the corpus is empty: the '${HUB_CONFIGS.corpus}' config has no row`, filesOf(corpusTables));
  const queryTables = await tables(HUB_CONFIGS.queries);
  const queries = toItems(queryTables, "queries");
  if (queries.length === 0) throw new DataError(`no queries: the '${HUB_CONFIGS.queries}' config has no row`, filesOf(queryTables));
  const qrelTables = await tables(HUB_CONFIGS.qrels);
  const qrels = toQrels(qrelTables, docs, queries);

  const meta = manifest.configs[HUB_CONFIGS.meta]
    ? toMeta(await tables(HUB_CONFIGS.meta), new Set(queries.map((q) => q.id)), log)
    : new Map<QueryId, QueryMeta>();

  return { name: manifest.repo, revision: manifest.revision, docs, queries, qrels, meta };
}

function fail(t: Table, i: number, detail: string): never {
  throw new DataError(`${detail} (${t.describe(i)})`, t.file, t.lineOf(i));
}

function field(t: Table, i: number, names: string[], what: string): unknown {
  const row = t.rows[i];
  for (const n of names) if (row[n] !== undefined && row[n] !== null) return row[n];
  return fail(t, i, `missing ${what} field ${names.map((n) => `"${n}"`).join(" or ")}`);
}

function idOf(t: Table, i: number, names: string[], what = "id"): string {
  const v = field(t, i, names, what);
  if (typeof v !== "string" && typeof v !== "number" && typeof v !== "bigint") fail(t, i, `${what} is not a string or number`);
  const id = String(v);
  const bad = idProblem(what, id);
  if (bad) fail(t, i, bad);
  return id;
}

/** Docs or queries in file order, `text` verbatim as the paper indexes it (a `title` prepended changes BM25 scores). */
function toItems(tables: Table[], what: string) {
  const items: { id: string; text: string }[] = [];
  const where = new Map<string, { table: Table; i: number }>();
  for (const t of tables) {
    for (let i = 0; i < t.rows.length; i++) {
      const id = idOf(t, i, ["id", "_id"]);
      const row = t.rows[i];
      const text = row.text;
      if (text === undefined || text === null) fail(t, i, `missing field "text" for ${what} id '${id}'`);
      if (typeof text !== "string") fail(t, i, `field "text" of ${what} id '${id}' is not a string`);
      if (text.trim() === "") fail(t, i, `empty text for ${what} id '${id}'`);
      const first = where.get(id);
      if (first) fail(t, i, `duplicate ${what} id '${id}' (first at ${first.table.file}, ${first.table.describe(first.i)})`);
      where.set(id, { table: t, i });
      items.push({ id, text });
    }
  }
  return items;
}

function toQrels(tables: Table[], docs: Doc[], queries: Query[]): Map<QueryId, Set<DocId>> {
  const docIds = new Set(docs.map((d) => d.id));
  const queryIds = new Set(queries.map((q) => q.id));
  const pairs = new Map<QueryId, Set<DocId>>();
  let judged = 0;
  for (const t of tables) {
    for (let i = 0; i < t.rows.length; i++) {
      judged++;
      const qid = idOf(t, i, ["query-id", "query_id"], "query id");
      const did = idOf(t, i, ["corpus-id", "corpus_id"], "corpus id");
      const score = scoreOf(t, i, field(t, i, ["score"], "relevance"));
      if (!queryIds.has(qid)) fail(t, i, `qrels name query '${qid}', which is not in the queries config`);
      if (!docIds.has(did)) fail(t, i, `qrels name article '${did}', which is not in the corpus config`);
      if (score <= 0) continue;
      let set = pairs.get(qid);
      if (!set) pairs.set(qid, (set = new Set()));
      set.add(did);
    }
  }
  if (judged === 0) throw new DataError(`no judgments: the '${HUB_CONFIGS.qrels}' config has no row`, filesOf(tables));
  if (pairs.size === 0) throw new DataError(`no relevant judgment: all ${judged} judgments have a score <= 0 (a relevant article has score >= 1)`, filesOf(tables));
  // Map order follows the queries, so anything that iterates qrels sees the benchmark's order.
  const ordered = new Map<QueryId, Set<DocId>>();
  for (const q of queries) if (pairs.has(q.id)) ordered.set(q.id, pairs.get(q.id)!);
  return ordered;
}

/** A relevance score from a JSON/parquet integer or plain-integer text (csv); see parseScore. */
function scoreOf(t: Table, i: number, raw: unknown): number {
  if (typeof raw === "number") {
    if (Number.isSafeInteger(raw)) return raw;
    return fail(t, i, `score ${raw} is not a plain integer; write relevance as a plain integer such as 0, 1 or 2`);
  }
  const score = typeof raw === "string" ? parseScore(raw, "score") : `score ${JSON.stringify(raw)} is not a number`;
  if (typeof score === "string") fail(t, i, score);
  return score;
}

const filesOf = (tables: Table[]): string => tables.map((t) => t.file).join(", ");

/** Area, session and number per query from `greekbarbench`; rows of no query (held-out 2024 exams) are skipped. */
function toMeta(tables: Table[], queryIds: Set<string>, log: (msg: string) => void): Map<QueryId, QueryMeta> {
  const meta = new Map<QueryId, QueryMeta>();
  let unmatched = 0;
  for (const t of tables) {
    for (let i = 0; i < t.rows.length; i++) {
      const row = t.rows[i];
      const id = idOf(t, i, ["id", "_id"]);
      for (const key of ["area", "date", "number"]) if (!(key in row)) fail(t, i, `missing field "${key}" for id '${id}'`);
      if (!queryIds.has(id)) {
        unmatched++;
        continue;
      }
      if (meta.has(id)) fail(t, i, `duplicate id '${id}'`);
      const m: QueryMeta = {};
      const area = areaOf(typeof row.area === "number" && Number.isNaN(row.area) ? undefined : row.area);
      if (typeof area === "object") fail(t, i, `area of id '${id}' ${area.problem}`);
      if (area !== undefined) m.area = area;
      if (present(row.date)) m.date = row.date instanceof Date ? row.date.toISOString().slice(0, 10) : String(row.date).trim();
      if (present(row.number)) {
        const n = Number(row.number);
        if (!Number.isFinite(n)) fail(t, i, `number ${JSON.stringify(row.number)} of id '${id}' is not a number`);
        m.number = n;
      }
      meta.set(id, m);
    }
  }
  if (unmatched > 0) log(`hub: ${unmatched} ${HUB_CONFIGS.meta} rows match no query of the retrieval subset; skipped`);
  return meta;
}

function present(v: unknown): boolean {
  return v !== undefined && v !== null && !(typeof v === "string" && v.trim() === "") && !(typeof v === "number" && Number.isNaN(v));
}
