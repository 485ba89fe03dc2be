/** What the report and notebooks call things: queries without an area, oracle and cross-validated rows, stand-ins. */
import { UNKNOWN_GROUP } from "../eval/breakdown";
import { NO_AREA } from "../types";

/** An area as shown: blanks and UNKNOWN_GROUP read `NO_AREA`, so one set of queries has one name everywhere. */
export function areaLabel(area: unknown): string {
  const s = area === undefined || area === null ? "" : String(area).trim();
  return s === "" || s === UNKNOWN_GROUP ? NO_AREA : s;
}

export const ORACLE_LABEL = "oracle: tuned for Recall@100 on the test queries";

export const TUNED_LABEL = "5-fold cross-validated";

export const STAND_IN_LABEL = "stand-in";

export const BEYOND_LABEL = "beyond the authors";

export const STAND_IN_BANNER = "These numbers come from the project's test doubles: they show the mechanics, not results";

export type TuningKind = "oracle" | "tuned";

/** What a report knows about each experiment beyond its numbers: its tuning kind and whether it is a stand-in. */
export interface RowMarks {
  tuning(id: string): TuningKind | undefined;
  standIn(id: string): boolean;
  /** Why the row is beyond the authors' experiment list, or undefined (one of theirs, or a folder without `list`). */
  beyond(id: string): string | undefined;
  readonly anyStandIn: boolean;
}

/** Whether a `standIn` cell (summary.csv, reproduction.csv) or field (metadata.json) says stand-in. */
export function isStandInValue(value: unknown): boolean {
  return value === true || (typeof value === "string" && value.trim().toLowerCase() === STAND_IN_LABEL);
}

export function rowMarks(summaryRows: readonly Readonly<Record<string, unknown>>[]): RowMarks {
  const standIns = new Set(summaryRows.filter((r) => isStandInValue(r.standIn)).map((r) => String(r.experiment ?? "")));
  const beyond = new Map<string, string>();
  for (const r of summaryRows) {
    const list = typeof r.list === "string" ? r.list : "";
    if (list.startsWith(BEYOND_LABEL)) beyond.set(String(r.experiment ?? ""), list.slice(BEYOND_LABEL.length).replace(/^:\s*/, ""));
  }
  return {
    beyond: (id) => beyond.get(id),
    tuning: (id) => (id.startsWith("oracle:") ? "oracle" : id.startsWith("tuned:") ? "tuned" : undefined),
    standIn: (id) => standIns.has(id),
    anyStandIn: standIns.size > 0,
  };
}

export function tuningLabel(kind: TuningKind): string {
  return kind === "oracle" ? ORACLE_LABEL : TUNED_LABEL;
}

/** An id with its marks in words, for plain-text places (figure legends, hover text) where a badge cannot go. */
export function markedName(id: string, marks: RowMarks): string {
  const kind = marks.tuning(id);
  const extra = [kind ? tuningLabel(kind) : "", marks.standIn(id) ? `${STAND_IN_LABEL} (test doubles)` : "", marks.beyond(id) !== undefined ? BEYOND_LABEL : ""].filter(Boolean);
  return extra.length ? `${id} — ${extra.join(", ")}` : id;
}

/** What a column is called where people read it; CSV and JSON files keep the code keys, which scripts rely on. */
export const COLUMN_LABELS: Readonly<Record<string, string>> = {
  queries: "queries",
  unjudged: "queries without judgments (not evaluated)",
  articles: "articles",
  sources: "sources (statutes)",
  judgments: "relevance judgments",
  distinctRelevant: "distinct relevant articles",
  relevantShareOfPool: "relevant share of the pool (distinct relevant / articles)",
  goldPerQuery: "gold articles per query",
  multiGoldShare: "share of judged queries with more than one gold article",
  medianArticleWords: "median article length (words)",
  medianQueryWords: "median query length (words)",
  area: "area",
  goldArticles: "distinct gold articles",
  relevantPerQuery: "gold articles per query",
  medianGoldWords: "median gold length (words)",
  method: "method",
  callsPerQuery: "calls / query",
  llmTokensPerQuery: "LLM tokens / query",
  embeddingTokensPerQuery: "embedding tokens / query",
  embeddingTokensSource: "embedding token source",
  rerankPairsPerQuery: "rerank pairs / query",
  secondsPerQuery: "seconds / query",
  costPerQuery: "USD / query",
  oneTimeCalls: "one-time calls",
  oneTimeTokens: "one-time tokens",
  oneTimeSeconds: "one-time seconds",
  oneTimeCost: "one-time USD",
  round: "round",
  keptRecall100: "kept Recall@100",
  candidateRecall100: "candidate-pool recall",
  missedGoldPairs: "gold retrieved, never kept",
  missedGoldQueries: "queries affected",
  tokensPerQuery: "tokens / query",
  inputTokensPerQuery: "input tokens / query",
  outputTokensPerQuery: "output tokens / query",
  query: "query",
  article: "article",
  firstRetrievedRound: "first retrieved in round",
  bestRank: "best BM25 rank",
  roundsRetrieved: "rounds retrieved",
};

/** A column as people read it: its label, or the name itself when it is not a code key (already words, a metric). */
export function columnLabel(key: string): string {
  return Object.prototype.hasOwnProperty.call(COLUMN_LABELS, key) ? COLUMN_LABELS[key] : key;
}
