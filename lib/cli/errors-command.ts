/** `gbr errors`: where run A wins or loses against run B (lib/eval/error-analysis.ts). */
import { CliError, numberOption, type Command } from "./args";
import { readMeta } from "../data/beir";
import { METRICS } from "../eval/metrics";
import { metricOf, noteCoverage, qrelsHelp, qrelsOf, qrelsOptions, readNamedRuns } from "./eval-inputs";
import { analyseErrors } from "../eval/error-analysis";
import { formatErrorAnalysis } from "./print-errors";
import { printable, printableJson } from "../util/printable";

export const errorsCommand: Command = {
  spec: {
    name: "errors",
    summary: "Error analysis of run A against run B: per-query wins/ties/losses, the largest differences, first-gold ranks.",
    usage: "errors --qrels FILE --run A --run B [--metric M] [--top N] [--meta FILE] [--binary] [--json]",
    options: {
      ...qrelsOptions,
      run: { type: "string", multiple: true },
      metric: { type: "string" },
      top: { type: "string" },
      meta: { type: "string" },
      json: { type: "boolean" },
    },
    help: [
      ...qrelsHelp,
      "--run FILE     exactly two runs (TREC or JSON), A then B, named as gbr compare names them",
      `--metric M     the metric compared (default nDCG@10; one of ${METRICS.join(", ")}, in any common spelling)`,
      "--top N        rows of the largest-differences table (default 10)",
      "--meta FILE    a BEIR meta.jsonl ({\"id\", \"area\"} per query): wins/ties/losses per legal area too",
      "--json         {a, b, metric, means, winLoss, largestDifferences, firstGoldRanks} at full precision",
      "A query missing from a run scores 0; a tie is |A − B| ≤ 1e-12; ranks stop at 100 (>100: not found).",
    ],
  },
  async run(values, io) {
    const files = (values.run as string[] | undefined) ?? [];
    if (!values.qrels) throw new CliError("gbr errors needs --qrels FILE (see --help)", 2);
    if (files.length !== 2) throw new CliError(`gbr errors needs exactly two runs (--run A --run B), got ${files.length}`, 2);
    // nDCG@10, not Recall@100: recall ties on every question of a known-item set, and a demo set, where rank still differs.
    const metric = metricOf(String(values.metric ?? "nDCG@10"), "errors");
    const top = numberOption(values.top, "--top", 10, { integer: true, min: 1 });
    const read = await readNamedRuns(files);
    const names = read.map((r) => r.name);
    if (names[0] === names[1]) throw new CliError(`gbr errors: both runs are named '${printable(names[0])}' (a run's name is its file name without extension)`, 2);
    const qrels = await qrelsOf(values, io);
    const meta = values.meta === undefined ? undefined : await readMeta(String(values.meta));
    for (const r of read) noteCoverage(r, qrels, String(values.qrels), io);
    const runs = read.map((r) => ({ name: r.name, rankings: r.run.rankings }));
    const analysis = analyseErrors(runs[0], runs[1], qrels, { metric, top, meta });
    io.stdout(values.json ? printableJson(analysis) + "\n" : formatErrorAnalysis(analysis));
  },
};
