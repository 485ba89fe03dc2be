/** A reproduce's tables, built once for the CSV files and the notebooks' DataFrames, so the two cannot disagree. */
import { fileNameOf } from "../util/file-name";
import { listOf } from "./authors-list";
import { NO_AREA, sourceOf, type Benchmark, type DocId, type QueryId } from "../types";
import { dedupeCut, METRICS } from "../eval/metrics";
import { MISSED_GOLD_COLUMNS } from "../eval/react-missed";
import type { LoadedBenchmark } from "../data/source";
import type { Assessment } from "./assess";
import type { ExperimentRecord } from "./run-experiments";
import { describeProvenance } from "./setup";

/** A table: column names and rows of cells (numbers stay numbers; "" or null for no value). */
export type Table = { columns: string[]; rows: unknown[][] };

/** Every table; `cost` and the `react*` ones only when non-empty. */
export type OutputTables = ReturnType<typeof outputTables>;

export const TABLE_FILES: Readonly<Record<keyof OutputTables, string>> = {
  summary: "summary.csv",
  perQuery: "per-query.csv",
  goldRanks: "gold-ranks.csv",
  table1: "table1.csv",
  table6: "table6.csv",
  reproduction: "reproduction.csv",
  cost: "cost.csv",
  reactRounds: "react-rounds.csv",
  reactMissed: "react-missed.csv",
};

/** Rows of objects as a table, columns in the first row's key order. */
const fromObjects = (rows: readonly object[]): Table => ({
  columns: Object.keys(rows[0] ?? {}),
  rows: rows.map((r) => Object.values(r)),
});

/** A query's gold articles' statutes, distinct and sorted, separated by spaces (ids never hold one). */
function goldSources(qrels: Benchmark["qrels"], qid: QueryId): string {
  return [...new Set([...(qrels.get(qid) ?? [])].map(sourceOf))].sort().join(" ");
}

export function outputTables(loaded: LoadedBenchmark, records: readonly ExperimentRecord[], a: Assessment) {
  const bench = loaded.benchmark;
  const area = (qid: QueryId) => bench.meta.get(qid)?.area || NO_AREA;
  const session = (qid: QueryId) => bench.meta.get(qid)?.date ?? "";
  const perQuery: unknown[][] = [];
  const goldRanks: unknown[][] = [];
  for (const r of records) {
    for (const [s, sample] of r.samples.entries()) {
      for (const [qid, m] of sample.perQuery) {
        perQuery.push([r.experiment.id, s, qid, area(qid), ...METRICS.map((k) => m[k]), session(qid), goldSources(bench.qrels, qid)]);
      }
      if (s > 0) continue; // sample 0 stands for the experiment, as in the significance tests
      for (const qid of sample.perQuery.keys()) {
        const top = dedupeCut(sample.result.run.rankings.get(qid) ?? []);
        const rank = new Map<DocId, number>(top.map((id, i) => [id, i + 1]));
        for (const doc of [...(bench.qrels.get(qid) ?? [])].sort()) goldRanks.push([r.experiment.id, qid, area(qid), doc, sourceOf(doc), rank.get(doc) ?? ""]);
      }
    }
  }
  const t6Columns = ["area", "queries", "goldArticles", "relevantPerQuery", "medianGoldWords"] as const;
  return {
    summary: {
      columns: ["experiment", "section", "status", ...METRICS, "samples", ...METRICS.map((m) => `sd ${m}`), "seconds", "ranAt", "reason", "setup", "standIn", "provenance", "list", "runFile"],
      rows: a.outcomes.map((o) => [
        o.id,
        o.section,
        o.status,
        ...METRICS.map((m) => o.mean?.[m] ?? ""),
        o.samples ?? "",
        ...METRICS.map((m) => o.sd?.[m] ?? ""),
        o.seconds ?? "",
        o.ranAt ?? "",
        o.reason ?? "",
        o.setup ?? "",
        o.standIn ? "stand-in" : "",
        describeProvenance(o.provenance ?? []),
        listOf(o.beyond),
        // runs/<runFile>.trec and .json (".s0", ".s1" … before the extension with --repeat); the id itself may hold ":".
        o.status === "ok" ? fileNameOf(o.id) : "",
      ]),
    },
    perQuery: { columns: ["experiment", "sample", "query", "area", ...METRICS, "session", "goldSources"], rows: perQuery },
    goldRanks: { columns: ["experiment", "query", "area", "article", "source", "rank"], rows: goldRanks },
    table1: fromObjects([a.table1]),
    table6: { columns: [...t6Columns], rows: a.table6.map((r) => t6Columns.map((c) => r[c])) },
    reproduction: fromObjects(a.reproduction),
    ...(a.cost.length ? { cost: fromObjects(a.cost) } : {}),
    ...(a.react
      ? {
          reactRounds: fromObjects(a.react.rounds),
          reactMissed: { columns: [...MISSED_GOLD_COLUMNS], rows: a.react.missed.pairs.map((p) => MISSED_GOLD_COLUMNS.map((c) => p[c])) },
        }
      : {}),
  };
}

