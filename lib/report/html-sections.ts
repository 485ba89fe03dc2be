/** The report's sections on the run and its results: metadata, dataset, results, reproduction, areas. */
import { formatFixed } from "../util/format-fixed";
import { METRICS, type Metric } from "../eval/metrics";
import { toNumber, type CsvRow } from "../util/csv";
import { areaBreakdownChart, areaMeans, metricBarChart } from "../figures/figures";
import { metricIntervals } from "../eval/metric-intervals";
import { escapeHtml } from "./html-inline";
import { badge, code, count, diffCell, experimentCell, note, num, number, safeClass, section, table, text, type Cell, type CellLike, type FigureSet, type Section } from "./html-blocks";
import { areaLabel, BEYOND_LABEL, columnLabel, ORACLE_LABEL, STAND_IN_LABEL, TUNED_LABEL, type RowMarks } from "../figures/labels";
import type { ReportInputs } from "./report-inputs";
import { NO_AREA, notEvaluatedNote } from "../types";

export function metadataSection(inp: ReportInputs, dataset: string, plotlyVersion: string): Section {
  const m = inp.metadata;
  const rows: CellLike[][] = [];
  const counts = new Map<string, number>();
  for (const r of inp.summary) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
  const statusText = [...counts].map(([s, n]) => `${n} ${s}`).join(", ");
  let warning = "";
  if (m) {
    const add = (label: string, value: unknown) => {
      if (value === undefined || value === null || value === "") return;
      rows.push([label, typeof value === "object" ? describeObject(value) : String(value)]);
    };
    for (const key of ["dataset", "origin", "source", "revision", "articles", "queries"]) add(key, m[key]);
    if (m.unjudged) add("not evaluated", notEvaluatedNote(Number(m.unjudged)));
    add("LLM", m.llm);
    if (m.standIn === true) add("test doubles", typeof m.standInNote === "string" && m.standInNote ? m.standInNote : "some results came through the project's test doubles");
    add("created", m.createdAt);
    add("Node.js", m.node);
    if (m.fallback) {
      add("fallback", m.fallback);
      warning = note(
        `The benchmark could not be loaded from the Hugging Face Hub; these numbers are on the bundled demo set, not the benchmark (${escapeHtml(describeObject(m.fallback))}).`,
        "warning",
      );
    }
  } else {
    rows.push(["dataset", dataset]);
  }
  rows.push(["experiments", statusText || "none"]);
  rows.push(["report built from", inp.dir]);
  rows.push(["plotly.js", `${plotlyVersion} (inlined)`]);
  const missing = m ? "" : note(`metadata.json not found in ${code(inp.dir)}; only the folder name is known.`);
  return section("metadata", "Run metadata", warning + missing + table(["field", "value"], rows, { cls: "kv" }));
}

function describeObject(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value !== "object") return String(value);
  if (Array.isArray(value)) return value.map(describeObject).join(", ");
  return Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== null && v !== undefined && v !== "")
    .map(([k, v]) => `${k}: ${typeof v === "object" ? `{${describeObject(v)}}` : String(v)}`)
    .join("; ");
}

export function datasetSection(inp: ReportInputs): Section {
  let body = "";
  if (inp.table1?.length) {
    const r = inp.table1[0];
    const rows = Object.keys(r).map((k): CellLike[] => {
      const v = toNumber(r[k]);
      const shown = v === undefined ? text(r[k]) : /Share/.test(k) ? { html: `${num(v)} (${formatFixed(100 * v, 2)}%)`, cls: "num" } : count(v, /^median/.test(k) ? 1 : 4);
      return [columnLabel(k), shown];
    });
    body += `<h3>Table 1 — the collection</h3>\n` + table(["statistic", "value"], rows, { numericHeader: [false, true], cls: "kv" });
  } else body += note(`table1.csv not found in ${code(inp.dir)}.`);
  if (inp.table6?.length) {
    const cols = Object.keys(inp.table6[0]);
    body +=
      `<h3>Table 6 — per legal area</h3>\n` +
      table(
        cols.map(columnLabel),
        inp.table6.map((r) => cols.map((c) => (c === "area" ? text(areaLabel(r[c])) : count(r[c], /^median/i.test(c) ? 1 : 4)))),
        { numericHeader: cols.map((c) => c !== "area") },
      );
  } else body += note(`table6.csv not found in ${code(inp.dir)}.`);
  return section("dataset", "Dataset statistics", body);
}

function metricCell(r: CsvRow, m: Metric, best: number | undefined, contends: boolean): Cell {
  const v = toNumber(r[m]);
  if (v === undefined) return { html: "–", cls: "num" };
  const sd = (toNumber(r.samples) ?? 1) > 1 ? toNumber(r[`sd ${m}`]) : undefined;
  const shown = sd === undefined ? num(v) : `${num(v)} <span class="sd">± ${num(sd)}</span>`;
  return { html: contends && v === best ? `<strong>${shown}</strong>` : shown, cls: "num" };
}

export function resultsSection(inp: ReportInputs, figs: FigureSet): Section {
  const ok = inp.summary.filter((r) => r.status === "ok");
  const { marks } = inp;
  let body = "";
  if (ok.length) {
    // An upper bound or a test double's number is no one's best result: bold picks among the rest.
    const contenders = ok.filter((r) => marks.tuning(r.experiment) !== "oracle" && !marks.standIn(r.experiment));
    const excluded = contenders.length < ok.length;
    const best = new Map(METRICS.map((m) => [m, Math.max(...contenders.map((r) => toNumber(r[m]) ?? -Infinity))] as const));
    const anySamples = ok.some((r) => (toNumber(r.samples) ?? 1) > 1);
    body +=
      note(
        `Mean over the queries; the best value of each metric in bold${excluded ? " (oracle rows, tuned on the test queries, and stand-ins not counted)" : ""}${anySamples ? "; ± is the standard deviation over repeated samples" : ""}. Seconds are wall time for the whole experiment.`,
      ) +
      marksNote(ok.map((r) => r.experiment), marks) +
      table(
        ["experiment", "section", ...METRICS, "samples", "seconds"],
        ok.map((r) => [experimentCell(r.experiment, marks), text(r.section), ...METRICS.map((m) => metricCell(r, m, best.get(m), contenders.includes(r))), count(r.samples), number(r.seconds, 2)]),
        { numericHeader: [false, false, ...METRICS.map(() => true), true, true], rowClass: (i) => (marks.standIn(ok[i].experiment) ? "stand-in" : undefined) },
      );
    body += producedBy(ok, marks);
    // Both charts' intervals in one bootstrap: the same resamples for every experiment and metric (paired).
    const intervals = inp.perQuery?.length ? metricIntervals(inp.perQuery, ["Recall@100", "nDCG@10"], { experiments: ok.map((r) => r.experiment) }) : undefined;
    body += figs.add("recall100-by-experiment", metricBarChart(inp.summary, "Recall@100", { marks, intervals: intervals?.get("Recall@100") }));
    body += figs.add("ndcg10-by-experiment", metricBarChart(inp.summary, "nDCG@10", { marks, intervals: intervals?.get("nDCG@10") }));
  } else {
    body += note("No experiment ran successfully.");
  }
  const notRun = inp.summary.filter((r) => r.status !== "ok");
  if (notRun.length) {
    const groups = new Map<string, { status: string; reason: string; ids: string[] }>();
    for (const r of notRun) {
      const key = `${r.status}\u0000${r.reason ?? ""}`;
      if (!groups.has(key)) groups.set(key, { status: r.status, reason: r.reason ?? "", ids: [] });
      groups.get(key)!.ids.push(r.experiment);
    }
    body +=
      `<h3>Not run (${notRun.length})</h3>\n` +
      table(
        ["status", "experiments", "reason"],
        [...groups.values()].map((g) => [text(g.status, `status-${safeClass(g.status)}`), { html: g.ids.map((id) => `<span class="id">${escapeHtml(id)}</span>`).join(", "), cls: "ids" }, text(g.reason, "reason")]),
      );
  }
  return section("results", "Results", body);
}

/** What the badges of a table mean, for the kinds present among `ids` ("" when none is). */
function marksNote(ids: readonly string[], marks: RowMarks): string {
  const kinds = new Set(ids.map((id) => marks.tuning(id)));
  const parts: string[] = [];
  if (kinds.has("oracle")) parts.push(`${badge(ORACLE_LABEL, "oracle")}: k1 and b chosen for Recall@100 on the very queries it is scored on: an upper bound for Recall@100 only (not for the other metrics), not a result to cite`);
  if (kinds.has("tuned")) parts.push(`${badge(TUNED_LABEL, "tuned")}: each query ranked with the k1 and b chosen on the other four folds, the tuned number a user may cite`);
  if (ids.some((id) => marks.standIn(id))) parts.push(`${badge(STAND_IN_LABEL, "stand-in")}: made through the project's test doubles, it shows the mechanics, not a result`);
  if (ids.some((id) => marks.beyond(id) !== undefined)) parts.push(`${badge(BEYOND_LABEL, "beyond")}: not among the authors' runs (LSI, re-ranking, the cross-validated estimate, Gemini reformulation, more dense PRF); \`--official\` leaves these out`);
  return parts.length ? note(parts.join(". ") + ".") : "";
}

/** The folded table of what produced each row: setup and provenance, columns if any has one. */
function producedBy(ok: readonly CsvRow[], marks: RowMarks): string {
  const provenance = (r: CsvRow) => (r.provenance ?? "").trim();
  const rows = ok.filter((r) => r.setup || provenance(r));
  if (!rows.length) return "";
  const withSetup = rows.some((r) => r.setup);
  const withProvenance = rows.some((r) => provenance(r));
  const header = ["experiment", ...(withSetup ? ["setup"] : []), ...(withProvenance ? ["provenance"] : [])];
  const what = [withSetup ? "parameters as sent, prompts, parser" : "", withProvenance ? "providers, endpoints, models as requested and as served" : ""].filter(Boolean).join("; ");
  return `<details><summary>What produced each row (${rows.length}): ${what}</summary>\n${table(
    header,
    rows.map((r) => [experimentCell(r.experiment, marks), ...(withSetup ? [text(r.setup, "setup")] : []), ...(withProvenance ? [text(provenance(r), "setup provenance")] : [])]),
    { rowClass: (i) => (marks.standIn(rows[i].experiment) ? "stand-in" : undefined) },
  )}\n</details>`;
}

export function reproductionSection(inp: ReportInputs): Section {
  const rows = inp.reproduction;
  if (!rows?.length) return section("reproduction", "Reproduction: paper vs ours", note(`reproduction.csv not found in ${code(inp.dir)}.`));
  const datasets = [...new Set(rows.map((r) => r.dataset).filter(Boolean))];
  const { marks } = inp;
  let body = note(
    `Ours ran on: ${datasets.map(code).join(", ") || "–"}. ` +
      `Difference (ours − paper): <span class="diff close">|Δ| ≤ 0.02</span> <span class="diff near">|Δ| ≤ 0.05</span> <span class="diff far">|Δ| &gt; 0.05</span>. ` +
      `Scope <em>paper-283</em> is the paper's 283 queries (the 2024 exams are not public); <em>public-257</em> is the public release as in the authors' quickstart. ` +
      `For an improvement the paper reports, ER (our improvement ÷ the paper's) and ΔRI (the paper's relative improvement − ours; Breuer et al., SIGIR 2020): ER 1: the paper's improvement reproduced, below 1 a smaller one; ΔRI 0: the same, above 0 smaller.`,
  );
  body += marksNote(rows.map((r) => r.experiment), marks);
  body += table(
    ["experiment", "metric", "scope", "paper", "ours", "diff", "ER", "ΔRI", "status", "setup"],
    rows.map((r) => [
      experimentCell(r.experiment, marks),
      text(r.metric),
      text(r.scope),
      number(r.paper, 2),
      number(r.ours),
      // A number on another query set, or from the test doubles, is no difference from the paper's: none is shown.
      toNumber(r.diff) === undefined && toNumber(r.ours) !== undefined ? text("not comparable", "num") : diffCell(r.diff),
      number(r.ER),
      number(r.DeltaRI),
      r.status === "ok" || !r.reason
        ? text(r.status, `status-${safeClass(r.status)}`)
        : { html: `<details><summary>${escapeHtml(r.status)}</summary><span class="reason">${escapeHtml(r.reason)}</span></details>`, cls: `status-${safeClass(r.status)}` },
      text(r.setup),
    ]),
    { numericHeader: [false, false, false, true, true, true, true, true, false, false], rowClass: (i) => (marks.standIn(rows[i].experiment) ? "stand-in" : undefined) },
  );
  return section("reproduction", "Reproduction: paper vs ours", body);
}

/** The experiments shown as bars per area: the 8 best by `metric` (more bars per area would not be read), in summary order. */
function areaExperiments(inp: ReportInputs, metric: Metric): string[] {
  const ok = inp.summary.filter((r) => r.status === "ok" && toNumber(r[metric]) !== undefined);
  const best = new Set([...ok].sort((a, b) => toNumber(b[metric])! - toNumber(a[metric])!).slice(0, 8).map((r) => r.experiment));
  return ok.map((r) => r.experiment).filter((id) => best.has(id));
}

export function areaSection(inp: ReportInputs, figs: FigureSet): Section {
  const rows = inp.perQuery;
  if (!rows?.length) return section("areas", "Per-area breakdown", note(`per-query.csv not found (or empty) in ${code(inp.dir)}.`));
  const metric: Metric = "Recall@100";
  const { marks } = inp;
  const areas = [...new Set(rows.map((r) => areaLabel(r.area)))].sort((a, b) => a.localeCompare(b));
  if (areas.length === 1 && areas[0] === NO_AREA) {
    return section("areas", "Per-area breakdown", note("No query of this dataset has a legal area (meta.jsonl), so there is no breakdown: it would repeat the means."));
  }
  const experiments = [...new Set(rows.map((r) => r.experiment))];
  const mean = areaMeans(rows, metric);
  const shown = areaExperiments(inp, metric);
  const captions = [
    shown.length < experiments.length ? `Bars for the ${shown.length} best of ${experiments.length} experiments by ${metric}; the table has all.` : "",
    areas.includes(NO_AREA) ? `${NO_AREA}: queries without a legal area.` : "",
  ].filter(Boolean);
  let body = figs.add("recall100-by-area", areaBreakdownChart(rows, shown, metric, { marks }), captions.length ? captions.join(" ") : undefined);
  body += table(
    ["experiment", ...areas],
    experiments.map((e) => [experimentCell(e, marks), ...areas.map((a) => number(mean(e, a)))]),
    { caption: `Mean ${metric} per legal area`, numericHeader: [false, ...areas.map(() => true)], rowClass: (i) => (marks.standIn(experiments[i]) ? "stand-in" : undefined) },
  );
  return section("areas", "Per-area breakdown", body);
}
