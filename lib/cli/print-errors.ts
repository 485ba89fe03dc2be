/** The `gbr errors` text: win/tie/loss counts, the largest per-query differences, first-gold ranks. */
import { NO_AREA } from "../types";
import type { ErrorAnalysis, GoldRankPair } from "../eval/error-analysis";
import { formatFixed } from "../util/format-fixed";
import { formatTable } from "../util/text-table";
import { printable } from "../util/printable";

/** Three tables, 4 decimals half to even as `gbr eval`; gold outside the top 100 shows ">100"; areas only if any. */
export function formatErrorAnalysis(e: ErrorAnalysis): string {
  const { total, byArea, tie } = e.winLoss;
  const out: string[] = [];
  out.push(
    `${e.metric}: ${printable(e.a)} (A, mean ${formatFixed(e.means.a, 4)}) against ${printable(e.b)} (B, mean ${formatFixed(e.means.b, 4)}), ` +
      `${total.queries} queries; a tie is |A − B| ≤ ${tie}`,
    "",
  );
  const counts = (group: string, c: { queries: number; wins: number; ties: number; losses: number }) => [group, String(c.queries), String(c.wins), String(c.ties), String(c.losses)];
  const rows = [counts("(all)", total), ...(byArea ?? []).map((g) => counts(g.group, g))];
  out.push(formatTable([byArea ? "area" : "", "queries", "A better", "tie", "B better"], rows));

  const showArea = e.largestDifferences.some((d) => d.area !== NO_AREA);
  const rank = (r: number | null) => (r === null ? ">100" : String(r));
  const gold = (g: readonly GoldRankPair[]) => g.map((x) => `${x.article} (${rank(x.rankA)}, ${rank(x.rankB)})`).join(", ");
  out.push(`Largest differences (Δ = A − B; gold: rank in A, rank in B)`, "");
  if (e.largestDifferences.length === 0) out.push(`(none: the runs tie on every query)\n`);
  else {
    const header = ["query", ...(showArea ? ["area"] : []), "A", "B", "Δ", "gold"];
    const diffRows = e.largestDifferences.map((d) => [d.query, ...(showArea ? [d.area] : []), formatFixed(d.a, 4), formatFixed(d.b, 4), formatFixed(d.delta, 4), gold(d.gold)]);
    out.push(formatTable(header, diffRows));
  }

  const dist = e.firstGoldRanks;
  out.push("Rank of the first gold article (queries)", "");
  out.push(formatTable(["rank", ...dist.runs.map((r, i) => ["A", "B"][i] ?? r.name)], dist.buckets.map((b, i) => [b, ...dist.runs.map((r) => String(r.counts[i]))])));
  return out.join("\n");
}
