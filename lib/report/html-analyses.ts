/** The report's sections on analyses beyond the main table, each present when its file is. */
import { PAPER_MISSED_GOLD } from "../eval/react-missed";
import { BASELINE_RUN, missingPairs, type ComputedPaperTest, type MissingPaperTest } from "../eval/significance";
import { toNumber, type CsvRow } from "../util/csv";
import { pValueHeatmap, reactRoundsChart, sweepHeatmap, type HeatmapTest } from "../figures/figures";
import { qualityCostScatter } from "../figures/cost-figures";
import { escapeHtml } from "./html-inline";
import { badge, code, count, experimentCell, note, number, numAuto, pValue, section, table, testDeltaCell, text, type CellLike, type FigureSet, type Section } from "./html-blocks";
import { columnLabel, ORACLE_LABEL, TUNED_LABEL, type RowMarks } from "../figures/labels";
import type { ReportInputs } from "./report-inputs";

const ALPHA = 0.05;

/** A test row: `pHolm` bold below α; Δ coloured by verdict, not size (a large Δ can be noise, a small one not). */
function testRow(t: HeatmapTest, marks: RowMarks): CellLike[] {
  return [
    experimentCell(t.a, marks),
    experimentCell(t.b, marks),
    text(t.metric),
    number(t.meanA),
    number(t.meanB),
    testDeltaCell(t.delta, t.pHolm, ALPHA),
    { html: pValue(t.p), cls: "num" },
    { html: Number(t.pHolm) < ALPHA ? `<strong>${pValue(t.pHolm)}</strong>` : pValue(t.pHolm), cls: "num" },
  ];
}

function testTable(tests: readonly HeatmapTest[], marks: RowMarks): string {
  return table(
    ["A", "B", "metric", "mean A", "mean B", "Δ (A − B)", "p", "p (Holm)"],
    tests.map((t) => testRow(t, marks)),
    { numericHeader: [false, false, false, true, true, true, true, true], rowClass: (i) => (marks.standIn(tests[i].a) || marks.standIn(tests[i].b) ? "stand-in" : undefined) },
  );
}

const DELTA_LEGEND =
  `Δ (A − B): <span class="delta gain">significant gain of A over B</span> <span class="delta loss">significant loss</span> ` +
  `<span class="delta ns">not significant</span> (two-sided, p Holm &lt; ${ALPHA}).`;

function flipsAndSeed(swaps: unknown, seed: unknown): string {
  const n = toNumber(swaps);
  const s = toNumber(seed);
  return [n !== undefined ? `${n.toLocaleString("en-US")} random sign flips` : "", s !== undefined ? `seed ${s}` : ""].filter(Boolean).join(", ");
}

/** Significance: reproduce's significance.json, the paper's family of 20 first, the exploratory family apart. */
export function significanceSection(inp: ReportInputs, figs: FigureSet): Section {
  const sig = inp.significance;
  if (!sig) return section("significance", "Significance", note(`significance.json not found in ${code(inp.dir)}.`));
  const { marks } = inp;
  const queries = toNumber(sig.queries);
  const settings = [flipsAndSeed(sig.swaps, sig.seed), queries !== undefined ? `${queries} queries` : ""].filter(Boolean).join(", ");
  let body = note(`Two-sided paired randomization tests on per-query differences${settings ? ` (${settings})` : ""}. Bold: significant at 0.05 after Holm. ${DELTA_LEGEND}`);

  const paper = sig.paper;
  const computed = paper.tests.filter((t): t is ComputedPaperTest => t.status === "computed");
  const missing = paper.tests.filter((t): t is MissingPaperTest => t.status === "missing");
  const of = toNumber(paper.of) ?? paper.tests.length;
  body += `<h3>The paper's ${of} tests</h3>\n`;
  body += note(
    `${escapeHtml(toNumber(paper.computed) ?? computed.length)} of the paper's ${of} tests computed; Holm over all ${of}, missing tests counted as p = 1 ` +
      `(the largest adjusted p the missing tests could give a computed test: one significant here stays significant once all ${of} are computed).` +
      (typeof paper.stream === "string" ? ` Flips: ${escapeHtml(paper.stream)}.` : ""),
  );
  if (computed.length) {
    body += testTable(computed, marks);
    body += figs.add("p-values-paper", pValueHeatmap(paper.tests, { alpha: ALPHA, family: `The paper's ${of} tests, Holm over all ${of}`, swaps: toNumber(sig.swaps), marks }));
  }
  if (missing.length) {
    body +=
      `<h4>Missing tests (${missing.length} of ${of}, each counted as p = 1)</h4>\n` +
      table(
        ["A", "B", "metrics", "reason"],
        missingPairs(missing).map((g) => [experimentCell(g.a, marks), experimentCell(g.b, marks), text(g.metrics.join(", ")), text(g.reason ?? "", "reason")]),
      );
  }

  const base = sig.baseline;
  body += `<h3>Beyond the paper: every experiment against ${escapeHtml(base?.against ?? BASELINE_RUN)}</h3>\n`;
  if (!base) body += note(`${code(BASELINE_RUN)} did not run, so there is no exploratory family.`);
  else if (!base.tests.length) body += note(`No other experiment ran, so there is nothing to test against ${code(base.against)}.`);
  else {
    body += note(
      `Exploratory, not among the paper's claims: its own family, with Holm over these ${toNumber(base.of) ?? base.tests.length} tests only (not combined with the paper's ${of}).`,
    );
    body += testTable(base.tests, marks);
    body += figs.add("p-values-baseline", pValueHeatmap(base.tests, { alpha: ALPHA, family: `Every experiment against ${base.against} (exploratory), Holm over these ${base.tests.length} tests`, swaps: toNumber(sig.swaps), marks }));
  }
  const rerank = sig.rerank;
  if (rerank?.tests.length) {
    body += `<h3>Re-rankers against their first stage</h3>\n`;
    body += note(`Each re-ranked run against the ranking it re-ordered, its own family with Holm over these ${toNumber(rerank.of) ?? rerank.tests.length} tests only (beyond the paper).`);
    body += testTable(rerank.tests, marks);
  }
  return section("significance", "Significance", body);
}

export function sweepSection(inp: ReportInputs, figs: FigureSet): Section {
  const sw = inp.sweep;
  if (!sw) return section("sweep", "BM25 tuning sweep", note(`sweep.json not found in ${code(inp.dir)}: the k1 × b sweep has not been run for this dataset.`));
  const metric = sw.metric ?? "Recall@100";
  const ids = new Set(inp.summary.map((r) => r.experiment));
  const rowOf = (id: string) => (ids.has(id) ? ` <span class="sd">(row ${code(id)})</span>` : "");
  const rows: CellLike[][] = [];
  const point = (label: CellLike, p: { k1?: unknown; b?: unknown; value?: unknown } | undefined) => {
    if (p) rows.push([label, number(p.k1, 2), number(p.b, 2), number(p.value)]);
  };
  point("rank_bm25 default", sw.default);
  point({ html: badge(ORACLE_LABEL, "oracle") + rowOf("oracle:bm25-greekstemmer") }, sw.oracle ?? sw.best);
  // sweep.json's cv, as v0.8 and today write it: { mean: { metric: value }, folds: [{ fold, k1, b }] }.
  const cv = sw.cv as { mean?: Record<string, unknown>; folds?: unknown } | null | undefined;
  const folds = Array.isArray(cv?.folds) ? cv.folds.length : 5;
  const label = folds === 5 ? TUNED_LABEL : `${folds}-fold cross-validated`;
  const value = cv?.mean?.[metric];
  const tuned = { html: badge(label, "tuned") + rowOf("tuned:bm25-greekstemmer") };
  if (toNumber(value) !== undefined) rows.push([tuned, text("per fold"), text(""), number(value)]);
  let body = note(
    `Mean ${escapeHtml(metric)} for every (k1, b) setting, positive-only rankings. The oracle row (${escapeHtml(ORACLE_LABEL)}) is the best setting chosen on the very queries it is scored on, so its ${escapeHtml(metric)} gain over the default is an upper bound for ${escapeHtml(metric)} only, not a result (the other metrics were not tuned, and may be lower than the default's); a tie with the default keeps the default; ` +
      `the ${escapeHtml(TUNED_LABEL)} row (when present) ranks each query with the setting chosen on the other folds: the tuned number to cite.`,
  );
  if (rows.length) body += table(["setting", "k1", "b", metric], rows, { numericHeader: [false, true, true, true] });
  body += figs.add("bm25-sweep", sweepHeatmap(sw));
  return section("sweep", "BM25 tuning sweep", body);
}

export function reactSection(inp: ReportInputs, figs: FigureSet): Section {
  const rows = inp.reactRounds;
  if (!rows) return section("react", "REACT rounds", note(`react-rounds.csv not found in ${code(inp.dir)}: REACT-BM25 did not run (it needs a chat model).`));
  if (!rows.length) return section("react", "REACT rounds", note("react-rounds.csv has no rows."));
  const cols = Object.keys(rows[0]);
  const counts = new Set(["round", "missedGoldPairs", "missedGoldQueries"]);
  const digits = (c: string) => (/tokens/i.test(c) ? 1 : /seconds|calls/i.test(c) ? 2 : 4);
  let body = figs.add("react-rounds", reactRoundsChart(rows));
  body += table(
    cols.map(columnLabel),
    rows.map((r) => cols.map((c) => (counts.has(c) ? count(r[c]) : number(r[c], digits(c))))),
    { numericHeader: cols.map(() => true) },
  );
  body += missedGold(rows, cols, inp.reactMissed);
  return section("react", "REACT rounds", body);
}

/** Appendix C.4: gold retrieved but never kept by the observer, by round and by pair ("" without either file). */
function missedGold(rows: CsvRow[], cols: string[], pairs: CsvRow[] | undefined): string {
  const byRound = cols.includes("missedGoldPairs") && cols.includes("missedGoldQueries");
  if (!byRound && !pairs) return "";
  const paper = PAPER_MISSED_GOLD;
  let ours = "";
  if (byRound) {
    const last = rows.filter((r) => toNumber(r.round) !== undefined).sort((x, y) => toNumber(x.round)! - toNumber(y.round)!).at(-1);
    if (last) ours = `This run: by round ${numAuto(last.round)}, ${numAuto(last.missedGoldPairs)} pairs over ${numAuto(last.missedGoldQueries)} queries (per round: the columns “gold retrieved, never kept” and “queries affected” above). `;
  }
  let body =
    `<h3>Gold retrieved but never kept (appendix C.4)</h3>\n` +
    note(`Relevant query–article pairs that some planner query brought into BM25's top 100 in a round ≤ r but that the observer kept in no round ≤ r, and the queries with at least one.`) +
    note(
      `${ours}Paper, on its ${paper.ofQueries} queries: by round ${paper.round}, ${paper.pairs} pairs over ${paper.queries} queries (the paper's number, a reference line: not comparable on another set of queries).`,
    );
  if (pairs && !pairs.length) body += note("react-missed.csv lists no pair: every gold article the planner's queries retrieved was kept by the observer.");
  else if (pairs) {
    const queries = new Set(pairs.map((p) => p.query)).size;
    const list = table(
      ["query", "article", "firstRetrievedRound", "bestRank", "roundsRetrieved"].map(columnLabel),
      pairs.map((p) => [text(p.query, "name"), text(p.article, "name"), count(p.firstRetrievedRound), count(p.bestRank), count(p.roundsRetrieved)]),
      { numericHeader: [false, false, true, true, true] },
    );
    body += `<details${pairs.length <= 25 ? " open" : ""}><summary>After the last round: ${pairs.length} pair${pairs.length === 1 ? "" : "s"} over ${queries} quer${queries === 1 ? "y" : "ies"} (react-missed.csv)</summary>\n${list}\n</details>`;
  }
  return body;
}

export function costSection(inp: ReportInputs, figs: FigureSet): Section {
  const rows = inp.cost;
  if (!rows) return section("cost", "Cost", note(`cost.csv not found in ${code(inp.dir)}.`));
  if (!rows.length) return section("cost", "Cost", note("cost.csv has no rows."));
  let body = note(
    "Per query: online LLM calls plus one embedding per query, tokens, wall time and API-equivalent cost (USD, from the price table). " +
      "The one-time work on the corpus (indexing, embedding or translating the articles, fitting) is kept apart, as in the paper's Table 17, and never counted per query. " +
      "Embedding tokens are the provider's counts, stored with each cached vector, or o200k estimates where the provider reported none (source column). " +
      "Cross-encoder rerank requests have no price: a run with rerank pairs has USD for its other work only.",
  );
  // Each column after the method and its decimals (-1: text); a cell an older file lacks stays empty.
  const columns: [string, number][] = [
    ["callsPerQuery", 2], ["llmTokensPerQuery", 1], ["embeddingTokensPerQuery", 1], ["embeddingTokensSource", -1],
    ["rerankPairsPerQuery", 1], ["secondsPerQuery", 4], ["costPerQuery", 6], ["oneTimeCalls", 0],
    ["oneTimeTokens", 0], ["oneTimeSeconds", 2], ["oneTimeCost", 4],
  ];
  const cell = (v: unknown, d: number) => (v === undefined || v === "" || d < 0 ? text(v ?? "") : number(v, d));
  const { marks } = inp;
  body += table(
    ["method", ...columns.map(([c]) => c)].map(columnLabel),
    rows.map((r) => [experimentCell(r.method, marks), ...columns.map(([c, d]) => cell(r[c], d))]),
    {
      numericHeader: [false, ...columns.map(([, d]) => d >= 0)],
      rowClass: (i) => (marks.standIn(rows[i].method) ? "stand-in" : undefined),
    },
  );
  body += figs.add("recall100-vs-cost", qualityCostScatter(inp.summary, rows, "Recall@100", { marks }));
  return section("cost", "Cost", body);
}
