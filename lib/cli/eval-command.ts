/** `gbr eval`: a run's metrics against qrels, as text, a paper table, JSON or trec_eval's layout. */
import path from "node:path";
import { CliError, type Command } from "./args";
import { formatOption, paperFormat } from "./options";
import { noteCoverage, qrelsHelp, qrelsOf, qrelsOptions } from "./eval-inputs";
import { readRun } from "../data/runs";
import { evaluate, METRICS } from "../eval/metrics";
import { formatTrecEval } from "./print-trec-eval";
import { formatTable } from "../util/text-table";
import { formatFixed } from "../util/format-fixed";
import { evalPaperTable, PAPER_FORMATS, renderPaperTable } from "../eval/results-table";
import { printableJson } from "../util/printable";

const FORMATS = ["text", ...PAPER_FORMATS, "trec_eval"] as const;

export const evalCommand: Command = {
  spec: {
    name: "eval",
    summary: "Evaluate a run: nDCG@10, nDCG@100, Recall@10, Recall@100, MAP@100 (mean, or per query).",
    usage: `eval --qrels FILE --run FILE [--binary] [--per-query] [--json] [--format ${FORMATS.join("|")}]`,
    options: { ...qrelsOptions, run: { type: "string" }, "per-query": { type: "boolean" }, json: { type: "boolean" }, format: { type: "string" } },
    help: [
      ...qrelsHelp,
      "--run FILE     TREC run (ordered by its rank column), ranx JSON {qid: {docid: score}} or JSON {qid: [docid, …]}",
      "--per-query    one row per query (in qrels order) before the mean",
      "--json         {\"mean\": {metric: value}} (and \"perQuery\") at full precision",
      "--format F     text (default), latex or markdown (the mean as a table for a paper), or trec_eval's layout",
      "               (its names; with --per-query its -q rows; 'all' is the mean, a missing query counting 0, as -c)",
    ],
  },
  async run(values, io) {
    if (!values.qrels || !values.run) throw new CliError("gbr eval needs --qrels FILE and --run FILE (see --help)", 2);
    const format = formatOption("eval", FORMATS, values.format);
    const paper = paperFormat(format);
    if (format !== "text" && values.json) throw new CliError(`gbr eval: --json and --format ${format} are two outputs; give one`, 2);
    if (paper && values["per-query"]) throw new CliError(`gbr eval: --format ${paper} tables the mean; leave out --per-query (or use --json for per-query values)`, 2);
    const qrels = await qrelsOf(values, io);
    const run = await readRun(String(values.run));
    // An empty run, or one for other queries, is an error here: it would print a mean of 0.
    noteCoverage({ file: String(values.run), name: String(values.run), run }, qrels, String(values.qrels), io);
    const { mean, perQuery } = evaluate(run.rankings, qrels);
    const table = () => evalPaperTable({ name: path.parse(String(values.run)).name, mean }, METRICS, perQuery.size);
    if (paper) return void io.stdout(renderPaperTable(table(), paper));
    const perQueryJson = values["per-query"] ? { perQuery: Object.fromEntries(perQuery) } : {};
    if (values.json) return void io.stdout(printableJson({ mean, ...perQueryJson }) + "\n");
    const ranked = values["per-query"] ? [...perQuery].filter(([q]) => run.rankings.has(q)) : undefined;
    if (format === "trec_eval") return void io.stdout(formatTrecEval(mean, ranked));
    const rows: string[][] = [];
    if (values["per-query"]) for (const [q, m] of perQuery) rows.push([q, ...METRICS.map((k) => formatFixed(m[k], 4))]);
    rows.push(["mean", ...METRICS.map((k) => formatFixed(mean[k], 4))]);
    io.stdout(formatTable(["query", ...METRICS], rows));
  },
};
