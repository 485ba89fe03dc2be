/** `gbr reproduce`: every experiment the providers allow, evaluated and written; or, with --plan, what it would call. */
import fs from "node:fs";
import { CliError, numberOption, type Command } from "./args";
import { dataHelp, dataOption, formatOption, llmFlags, llmHelp, llmOptions, load, logger, paperFormat, requireHelp, requireOption } from "./options";
import { onInterrupt } from "./interrupt";
import { loadPlugins } from "./plugins";
import { progressReporter } from "./progress";
import { MAX_REPEAT, reproduce, selection } from "../experiments/reproduce";
import { experiments } from "../experiments/registry";
import { finishedSoFar } from "../experiments/earlier-records";
import { failureLines } from "../experiments/assess";
import { planReproduce } from "../experiments/plan";
import { loadPrices, pricerFrom } from "../eval/cost";
import { formatPlan } from "./print-plan";
import { formatReproduceSummary } from "./print-reproduce";
import { PAPER_FORMATS } from "../eval/results-table";
import { printable } from "../util/printable";

const FORMATS = ["text", ...PAPER_FORMATS] as const;

export const reproduceCommand: Command = {
  spec: {
    name: "reproduce",
    summary: "The main job: load the benchmark, run every experiment the configured providers allow, evaluate, and write runs and tables.",
    usage: `reproduce [--data SRC] [--queries FILE] [--out DIR] [--only IDS] [--replace] [--official] [--plan] [--format ${FORMATS.join("|")}]`,
    options: {
      ...dataOption,
      out: { type: "string" },
      only: { type: "string" },
      replace: { type: "boolean" },
      repeat: { type: "string" },
      seed: { type: "string" },
      plan: { type: "boolean" },
      format: { type: "string" },
      ...requireOption,
      ...llmOptions,
    },
    help: [
      ...dataHelp.slice(0, 3),
      "--out DIR        output root (default outputs); results go to DIR/<dataset>/",
      "--only IDS       comma-separated experiment ids (default: all), a --require'd retriever's name included; the",
      "                 folder keeps an earlier run's other rows (marked [earlier])",
      requireHelp,
      "--replace        start DIR/<dataset>/ again (without it, a stopped run is continued by the same command)",
      "--repeat N       run each LLM experiment N times (seeds S..S+N-1): mean ± sd;  --seed S  the first (default 42)",
      "--plan           call no model: the calls, tokens, cached answers and price each selected experiment needs",
      "                 (a table, and DIR/<dataset>/plan.json)",
      "--format F       the closing results table as text (default), latex or markdown",
      ...llmHelp,
      "-q, --quiet      no progress messages on stderr",
    ],
  },
  async run(values, io, configOf) {
    const config = configOf();
    const log = logger(io, values.quiet);
    const only = values.only === undefined ? undefined : String(values.only).split(",").map((s) => s.trim()).filter(Boolean);
    if (only && !only.length) throw new CliError("gbr reproduce: --only needs experiment ids, comma-separated (leave it out to run them all)", 2);
    const paper = paperFormat(formatOption("reproduce", FORMATS, values.format));
    if (paper && values.plan) throw new CliError(`gbr reproduce: --format ${paper} is for the results table; --plan prints none`, 2);
    const outRoot = String(values.out ?? "outputs");
    await loadPlugins((values.require as string[] | undefined) ?? []);
    // Checked before anything runs: a file where the outputs go would otherwise fail only after every experiment.
    if (fs.existsSync(outRoot) && !fs.statSync(outRoot).isDirectory()) throw new CliError(`gbr reproduce: --out ${outRoot} is a file, not a folder`, 2);
    const loaded = await load(values, io, config);
    const llm = llmFlags(values, config, { pricer: pricerFrom(loadPrices(config.pricesFile)), ...(log ? { log } : {}) });
    // Each long step's figures go to metadata.json (`progress`), printed or not (-q); a plan's stand-in steps are not shown.
    const onProgress = values.plan ? undefined : progressReporter(io, { tty: process.stderr.isTTY === true, quiet: values.quiet === true, meter: llm.context.providers.meter });
    const opts = {
      outRoot,
      only,
      experiments: experiments(config),
      log,
      retrieverOptions: llm.options,
      context: { ...llm.context, onProgress },
      official: values.official === true,
      // The closing summary groups every skip by reason; a reason is told as it happens only for experiments asked for.
      reportSkips: only !== undefined,
      repeat: numberOption(values.repeat, "--repeat", 1, { integer: true, min: 1, max: MAX_REPEAT }),
      seed: numberOption(values.seed, "--seed", 42, { integer: true }),
      replace: values.replace === true,
    };
    if (values.plan) {
      // A plan writes nothing but plan.json at its end: stopping it loses nothing, and says so.
      const stop = onInterrupt(async (signal) => `gbr reproduce --plan: interrupted (${signal}); nothing was called or written`, io);
      const { plan, file } = await planReproduce(loaded, opts).finally(stop);
      io.stdout(formatPlan(plan, file));
      return plan.experiments.some((e) => e.status === "failed") ? 1 : 0;
    }
    const { outDir } = selection(loaded, opts, config);
    const interrupted = onInterrupt(async (signal) => {
      const kept = await finishedSoFar(outDir);
      const what = kept.length ? `${kept.length} finished experiment${kept.length > 1 ? "s are" : " is"} kept in ${outDir} (${kept.join(", ")})` : `no experiment had finished (${outDir})`;
      return `gbr reproduce: interrupted (${signal}): ${what}; rerun the same command to continue`;
    }, io);
    const result = await reproduce(loaded, opts).finally(interrupted);
    io.stdout(formatReproduceSummary(loaded, result, { format: paper ?? "text" }));
    // Failures reach stderr even with -q; without -q each reason was printed once as the experiment ended.
    const failed = failureLines(result.outcomes, { quiet: values.quiet === true, only: only !== undefined });
    for (const line of failed) io.stderr(`gbr reproduce: ${printable(line)}\n`);
    return failed.length ? 1 : 0;
  },
};
