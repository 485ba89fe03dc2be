/** `gbr eval`: a run's metrics against qrels, as text, a paper table, JSON or trec_eval's layout. */
import { DEFAULT_REPO } from "../data/hub-settings";
import path from "node:path";
import { CliError, type Command } from "./args";
import { formatOption, paperFormat } from "./options";
import { evalMetricsOf, noteCoverage, qrelsHelp, qrelsOf, qrelsOptions } from "./eval-inputs";
import { readRun } from "../data/runs";
import { evaluate, METRICS, type Metric } from "../eval/metrics";
import { formatTrecEval } from "./print-trec-eval";
import { formatTable } from "../util/text-table";
import { formatFixed } from "../util/format-fixed";
import { evalPaperTable, PAPER_FORMATS, renderPaperTable } from "../eval/results-table";
import { printable, printableJson } from "../util/printable";
import { mtebTaskResult } from "../eval/mteb";
import { readFile } from "node:fs/promises";

const FORMATS = ["text", ...PAPER_FORMATS, "trec_eval", "mteb"] as const;

export const evalCommand: Command = {
  spec: {
    name: "eval",
    summary: "Evaluate a run: nDCG@10, nDCG@100, Recall@10, Recall@100, MAP@100 (mean, or per query), or MRR@k, P@k, Success@k, Judged@k.",
    usage: `eval --qrels FILE --run FILE [--binary] [--metrics M,…] [--per-query] [--json] [--format ${FORMATS.join("|")}]`,
    options: { ...qrelsOptions, run: { type: "string" }, metrics: { type: "string", multiple: true }, "per-query": { type: "boolean" }, json: { type: "boolean" }, format: { type: "string" } },
    help: [
      ...qrelsHelp,
      "--run FILE     TREC run (ordered by its rank column), ranx JSON {qid: {docid: score}} or JSON {qid: [docid, …]}",
      "--metrics M,…  only these metrics, in order (repeatable; default the paper's five); also MRR@k, P@k, Success@k,",
      "               Judged@k for any k; ranx's, ir_measures' and trec_eval's spellings are read (docs/evaluation.md)",
      "--per-query    one row per query (in qrels order) before the mean",
      "--json         {\"mean\": {metric: value}} (and \"perQuery\") at full precision",
      "--format F     text (default), latex or markdown (the mean as a table for a paper), or trec_eval's layout",
      "               (its names; with --per-query its -q rows; 'all' is the mean, a missing query counting 0, as -c),",
      "               or mteb: MTEB's TaskResult JSON with its definitions (docs/python.md)",
    ],
  },
  async run(values, io) {
    if (!values.qrels || !values.run) throw new CliError("gbr eval needs --qrels FILE and --run FILE (see --help)", 2);
    const format = formatOption("eval", FORMATS, values.format);
    const paper = paperFormat(format);
    if (format !== "text" && values.json) throw new CliError(`gbr eval: --json and --format ${format} are two outputs; give one`, 2);
    if (paper && values["per-query"]) throw new CliError(`gbr eval: --format ${paper} tables the mean; leave out --per-query (or use --json for per-query values)`, 2);
    if (format === "mteb" && (values["per-query"] || values.metrics)) throw new CliError("gbr eval: --format mteb prints MTEB's own metrics, as a mean; leave out --per-query and --metrics", 2);
    const chosen = evalMetricsOf(values.metrics);
    const metrics = chosen.length ? chosen : [...METRICS];
    const cut = metrics.find((m) => !(METRICS as readonly string[]).includes(m));
    if (format === "trec_eval" && cut) throw new CliError(`gbr eval: --format trec_eval prints trec_eval's measures of the paper's five; ${cut} takes text, --json, latex or markdown`, 2);
    const qrels = await qrelsOf(values, io);
    const run = await readRun(String(values.run));
    // An empty run, or one for other queries, is an error here: it would print a mean of 0.
    noteCoverage({ file: String(values.run), name: String(values.run), run }, qrels, String(values.qrels), io);
    if (format === "mteb") return void io.stdout(printableJson(mtebTaskResult(run.rankings, qrels, await mtebDataset(String(values.qrels)))) + "\n");
    const { mean, perQuery } = evaluate(run.rankings, qrels, { metrics });
    const table = () => evalPaperTable({ name: path.parse(String(values.run)).name, mean }, metrics, perQuery.size);
    if (paper) return void io.stdout(renderPaperTable(table(), paper));
    const only = (v: Record<string, number>) => Object.fromEntries(metrics.map((m) => [m, v[m]]));
    const perQueryJson = values["per-query"] ? { perQuery: Object.fromEntries([...perQuery].map(([q, v]) => [q, only(v)])) } : {};
    if (values.json) return void io.stdout(printableJson({ mean: only(mean), ...perQueryJson }) + "\n");
    const ranked = values["per-query"] ? [...perQuery].filter(([q]) => run.rankings.has(q)) : undefined;
    if (format === "trec_eval") return void io.stdout(formatTrecEval(mean, ranked, metrics as Metric[]));
    const rows: string[][] = [];
    if (values["per-query"]) for (const [q, m] of perQuery) rows.push([q, ...metrics.map((k) => formatFixed(m[k], 4))]);
    rows.push(["mean", ...metrics.map((k) => formatFixed(mean[k], 4))]);
    io.stdout(formatTable(["query", ...metrics], rows));
  },
};

/**
 * The task of a qrels file's BEIR folder: GreekBarRetrieval at the Hub commit of a `gbr data pull` of the benchmark (its
 * manifest), else the folder's name (with the commit of another repository's pull); the split is the qrels file's name.
 */
async function mtebDataset(qrelsFile: string): Promise<{ taskName: string; revision?: string; split: string }> {
  const dir = path.dirname(path.resolve(qrelsFile));
  const inQrels = path.basename(dir) === "qrels";
  const folder = inQrels ? path.dirname(dir) : dir;
  const split = inQrels ? path.basename(qrelsFile).replace(/\.tsv$/, "") : "test";
  const file = path.join(folder, "manifest.json");
  const text = await readFile(file, "utf8").catch((err: NodeJS.ErrnoException) => (err.code === "ENOENT" ? undefined : Promise.reject(err)));
  if (text === undefined) return { taskName: path.basename(folder), split };
  let manifest: { sha?: unknown; repo?: unknown } = {};
  try {
    manifest = JSON.parse(text) as typeof manifest;
  } catch {
    // not JSON: said below, as a manifest without its commit
  }
  if (typeof manifest.sha !== "string") throw new CliError(`gbr eval --format mteb: ${printable(file)} is not a pull's manifest (no "sha"): the dataset's revision is unknown`, 1);
  return { taskName: manifest.repo === undefined || manifest.repo === DEFAULT_REPO ? "GreekBarRetrieval" : path.basename(folder), revision: manifest.sha, split };
}
