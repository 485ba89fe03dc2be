import type { AreaStats, DatasetStats } from "../data/stats";
import { notEvaluatedNote } from "../types";
import { formatFixed } from "../util/format-fixed";
import { areaLabel, columnLabel } from "../figures/labels";
import { formatTable } from "../util/text-table";

export function formatStats(name: string, t1: DatasetStats, t6: AreaStats[]): string {
  const pct = (x: number) => `${formatFixed(100 * x, 2)}%`;
  const rows1 = [
    [columnLabel("queries"), String(t1.queries)],
    [columnLabel("articles"), String(t1.articles)],
    [columnLabel("sources"), String(t1.sources)],
    [columnLabel("judgments"), String(t1.judgments)],
    [columnLabel("distinctRelevant"), `${t1.distinctRelevant} (${pct(t1.relevantShareOfPool)} of the pool)`],
    [columnLabel("goldPerQuery"), formatFixed(t1.goldPerQuery, 2)],
    [columnLabel("multiGoldShare"), pct(t1.multiGoldShare)],
    [columnLabel("medianArticleWords"), String(t1.medianArticleWords)],
    [columnLabel("medianQueryWords"), String(t1.medianQueryWords)],
  ];
  // Queries without an area get the report's one name for them, as in the HTML report.
  const rows6 = t6.map((r) => [areaLabel(r.area), String(r.queries), String(r.goldArticles), formatFixed(r.relevantPerQuery, 2), String(r.medianGoldWords)]);
  return (
    `Table 1 — ${name}\n` +
    formatTable(["statistic", "value"], rows1) +
    (t1.unjudged ? `${notEvaluatedNote(t1.unjudged)}; the gold figures and Table 6 are of the other ${t1.queries - t1.unjudged}\n` : "") +
    `\nTable 6 — per legal area\n` +
    formatTable(["area", "queries", "goldArticles", "relevantPerQuery", "medianGoldWords"].map(columnLabel), rows6)
  );
}

