/** `gbr repro`: how far two reproduced runs are from the original two (Breuer et al., SIGIR 2020, repro_eval's measures). */
import { CliError, numberOption, type Command } from "./args";
import { metricsOf, noteCoverage, qrelsHelp, qrelsOf, qrelsOptions, readNamedRuns } from "./eval-inputs";
import { METRICS } from "../eval/metrics";
import { RBO_P, REPRO_DEPTH, reproMeasures } from "../eval/repro";
import { formatTable } from "../util/text-table";
import { formatFixed } from "../util/format-fixed";
import { printableJson } from "../util/printable";

const RUNS = ["baseline", "advanced", "rep-baseline", "rep-advanced"] as const;

export const reproCommand: Command = {
  spec: {
    name: "repro",
    summary: "Reproducibility measures between original and reproduced runs: KTU, RBO, RMSE, ER, ΔRI, t-test p.",
    usage: "repro --qrels FILE --baseline A --advanced B --rep-baseline C --rep-advanced D [--metrics M,…] [--depth 1000] [--rbo-p 0.8] [--json]",
    options: { ...qrelsOptions, ...Object.fromEntries(RUNS.map((r) => [r, { type: "string" as const }])), metrics: { type: "string", multiple: true }, depth: { type: "string" }, "rbo-p": { type: "string" }, json: { type: "boolean" } },
    help: [
      ...qrelsHelp,
      "--baseline A, --advanced B          the original runs (TREC or JSON, as gbr eval reads them)",
      "--rep-baseline C, --rep-advanced D  the reproduced runs of the same two systems",
      `--metrics M    these metrics (repeatable or comma-separated; default ${METRICS.join(", ")})`,
      `--depth N      rankings cut at N documents for KTU and RBO (default ${REPRO_DEPTH}, as repro_eval)`,
      `--rbo-p P      RBO's persistence (default ${RBO_P}, as repro_eval)`,
      '--json         {"KTU", "RBO": {baseline, advanced}, "RMSE": {baseline, advanced: {metric: v}}, "ER", "DeltaRI": {metric: v},',
      '               "pValues": {baseline, advanced: {metric: p}}} (ER is null when the original improves nothing)',
      "KTU, RBO: 1 the same rankings; RMSE 0 the same scores; ER 1 the same mean improvement; ΔRI 0 the same relative",
      "improvement; p: two-sided paired t-test between original and reproduced per-query scores. docs/evaluation.md",
    ],
  },
  async run(values, io) {
    const missing = RUNS.filter((r) => !values[r]);
    if (!values.qrels || missing.length) throw new CliError(`gbr repro needs --qrels and four runs; missing ${[...(values.qrels ? [] : ["--qrels"]), ...missing.map((r) => `--${r}`)].join(", ")} (see --help)`, 2);
    const chosen = metricsOf(values.metrics, "repro");
    const metrics = chosen.length ? chosen : [...METRICS];
    const depth = numberOption(values.depth, "--depth", REPRO_DEPTH, { integer: true, min: 1 });
    const p = numberOption(values["rbo-p"], "--rbo-p", RBO_P, { min: Number.MIN_VALUE, max: 1 - Number.EPSILON });
    const qrels = await qrelsOf(values, io);
    const read = await readNamedRuns(RUNS.map((r) => String(values[r])));
    for (const r of read) noteCoverage(r, qrels, String(values.qrels), io);
    const [baseline, advanced, repBaseline, repAdvanced] = read.map((r) => r.run);
    const m = reproMeasures({ baseline, advanced, repBaseline, repAdvanced }, qrels, { metrics, depth, p });
    if (values.json) return void io.stdout(printableJson(m) + "\n");
    const f = (x: number | undefined) => formatFixed(x ?? NaN, 4);
    const agreement = formatTable(["ranking", "baseline", "advanced"], (["KTU", "RBO"] as const).map((k) => [k, f(m[k].baseline), f(m[k].advanced)]));
    const head = ["metric", "RMSE base", "RMSE adv", "p base", "p adv", "ER", "ΔRI"];
    const rows = metrics.map((k) => [k, m.RMSE.baseline[k], m.RMSE.advanced[k], m.pValues.baseline[k], m.pValues.advanced[k], m.ER[k], m.DeltaRI[k]].map((v, i) => (i ? f(v as number) : String(v))));
    const legend = "KTU, RBO 1: the same rankings; RMSE 0: the same scores; ER 1: the same mean improvement; ΔRI 0: the same relative improvement (> 0: smaller reproduced); p: paired t-test, original vs reproduced\n";
    io.stdout(`${agreement}\n${formatTable(head, rows)}\n${legend}`);
  },
};
