/** Quality against cost per method: what a cost counts, the words for it, and the Pareto front (pure; from cost.csv rows). */
import { formatFixed } from "../util/format-fixed";
import { toNumber, type RowLike } from "../util/csv";

/** A method placed by cost (to minimise) and quality (to maximise). */
export type QualityCostPoint = { name: string; cost: number; quality: number };

export type CostMeasure = "usd" | "tokens" | "calls" | "seconds";

/** A point of cost.csv's data: its cost under `measure`, and that cost in words with its unit. */
type MeasuredPoint = QualityCostPoint & { measure: CostMeasure; costText: string };

/** Two significant digits, no trailing zeros; whole numbers from 100 on (toPrecision would print 1.5e+2). */
const short = (v: number) => (v === 0 ? "0" : v >= 100 ? Math.round(v).toLocaleString("en-US") : v.toPrecision(2).replace(/(\.\d*?)0+(e|$)/, "$1$2").replace(/\.(e|$)/, "$1"));

const TEXT: Record<CostMeasure, (v: number) => string> = {
  usd: (v) => `$${short(v)} per query`,
  tokens: (v) => `${Math.round(v)} tokens per query`,
  calls: (v) => `${formatFixed(v, 2).replace(/\.?0+$/, "")} calls per query`,
  seconds: (v) => `${short(v)} s per query`,
};

/** The words for a cost under a measure, e.g. "$0.00019 per query", "2 calls per query". */
export const costText = (value: number, measure: CostMeasure): string => TEXT[measure](value);

/** A method's cost.csv row under a measure, or undefined when unknown (rerank pairs have no price nor token count). */
export function costValue(row: RowLike | undefined, measure: CostMeasure): number | undefined {
  if (!row) return undefined;
  const unpriced = (toNumber(row.rerankPairsPerQuery) ?? 0) > 0;
  if (measure === "usd") return unpriced ? undefined : toNumber(row.costPerQuery);
  if (measure === "tokens") {
    const llm = toNumber(row.llmTokensPerQuery);
    const embedding = toNumber(row.embeddingTokensPerQuery);
    return unpriced || llm === undefined || embedding === undefined ? undefined : llm + embedding;
  }
  return toNumber(measure === "calls" ? row.callsPerQuery : row.secondsPerQuery);
}

/**
 * The cost axis: USD when some method costs more than 0, else tokens, else calls; wall time only when no method calls
 * a model (answers replayed from the cache take no time). Undefined when every known value is 0.
 */
export function costMeasure(costRows: readonly RowLike[]): CostMeasure | undefined {
  for (const m of ["usd", "tokens", "calls", "seconds"] as const) if (costRows.some((r) => (costValue(r, m) ?? 0) > 0)) return m;
  return undefined;
}

/** Each method that ran, placed by `costMeasure`'s cost; `unknown`: no known cost, `unpriced` of them: rerank pairs. */
export function qualityCostData(summaryRows: readonly RowLike[], costRows: readonly RowLike[], quality: string) {
  const byMethod = new Map(costRows.map((r) => [String(r.method ?? ""), r]));
  const ran = summaryRows
    .filter((r) => r.status === undefined || r.status === "ok")
    .map((r) => ({ name: String(r.experiment ?? ""), quality: toNumber(r[quality]), row: byMethod.get(String(r.experiment ?? "")) }))
    .filter((r): r is { name: string; quality: number; row: RowLike | undefined } => r.quality !== undefined);
  const m = costMeasure(ran.flatMap((r) => (r.row ? [r.row] : [])));
  const points: MeasuredPoint[] = [];
  const unknown: string[] = [];
  const unpriced: string[] = [];
  for (const r of ran) {
    const cost = m && costValue(r.row, m);
    if (m && cost !== undefined) points.push({ name: r.name, cost, quality: r.quality, measure: m, costText: costText(cost, m) });
    else {
      unknown.push(r.name);
      if ((toNumber(r.row?.rerankPairsPerQuery) ?? 0) > 0) unpriced.push(r.name);
    }
  }
  return { measure: m, points, unknown, unpriced };
}

/** The points none dominates (costs no more, scores no less, better in one), by cost then quality; ties all kept. */
export function paretoFront<P extends QualityCostPoint>(points: readonly P[]): P[] {
  const dominated = (p: P) =>
    points.some((q) => q.cost <= p.cost && q.quality >= p.quality && (q.cost < p.cost || q.quality > p.quality));
  return points.filter((p) => !dominated(p)).sort((a, b) => a.cost - b.cost || a.quality - b.quality);
}

/**
 * The methods on the quality–cost Pareto front, cheapest first, each with its cost in words (`costText`); the cost
 * is what the figure's x axis shows (USD when any method costs anything), empty when no cost is known.
 *
 * @example
 * const f = resultFrames(result);
 * qualityCostFront(frameRows(f.summary), f.cost ? frameRows(f.cost) : [], "Recall@100").map((p) => `${p.name} ${p.costText}`);
 */
export function qualityCostFront(summaryRows: readonly RowLike[], costRows: readonly RowLike[], quality: "Recall@100" | "nDCG@10" = "Recall@100"): MeasuredPoint[] {
  return paretoFront(qualityCostData(summaryRows, costRows, quality).points);
}
