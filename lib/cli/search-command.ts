/** `gbr search`: one retriever over the queries, its run written as TREC, ranx JSON or JSON. */
import { CliError, numberOption, type Command } from "./args";
import { dataHelp, dataOption, llmFlags, llmHelp, llmOptions, load, logger, requireHelp, requireOption } from "./options";
import { loadPlugins } from "./plugins";
import { progressReporter } from "./progress";
import { formatRun, writeRun } from "../data/runs";
import { didYouMean } from "../util/suggest";
import { DEFAULT_BM25 } from "../sparse/bm25";
import { createRetriever, retrieverNames } from "../retrievers";
import { BUILTIN_PRESETS } from "../dense/presets";
import { BUILTIN_RERANK_PRESETS } from "../rerank/presets";
import { FUSION_METHODS } from "../fusion/retriever";

/** `--retriever`'s help, from the lists the code reads (so it names every form): names, presets, re-rankers, fusions. */
function retrieverHelp(): string[] {
  const pad = " ".repeat(18);
  return [
    `--retriever NAME  ${retrieverNames().join(", ")} (default bm25-greekstemmer)`,
    `${pad}<preset>: ${BUILTIN_PRESETS.map((p) => p.name).join(", ")} or a user preset of gbr-presets.json`,
    `${pad}<reranker>: ${BUILTIN_RERANK_PRESETS.map((p) => p.name).join(", ")}, llm (the listwise chat model) or a user preset`,
    `${pad}<method> of fuse: ${FUSION_METHODS.join(", ")} (wrrf:<w1>,<w2> is weighted RRF), as ranx defines them`,
  ];
}

export const search: Command = {
  spec: {
    name: "search",
    summary: "Run one retriever over the queries and write the run (TREC, ranx JSON or JSON).",
    usage: "search --data SRC --retriever NAME [--queries FILE] [--k 100] [--k1 X --b Y] [--out FILE] [--format trec|json|ranx]",
    options: {
      ...dataOption,
      retriever: { type: "string" },
      k: { type: "string" },
      k1: { type: "string" },
      b: { type: "string" },
      "positive-only": { type: "boolean" },
      out: { type: "string" },
      format: { type: "string" },
      ...requireOption,
      ...llmOptions,
    },
    help: [
      ...dataHelp,
      ...retrieverHelp(),
      "                  or a name a --require'd module registers",
      requireHelp,
      "--k N             ranking depth (default 100)",
      "--k1 X --b Y      BM25 parameters (default 1.5 and 0.75, as rank_bm25)",
      "--positive-only   leave out documents whose score is not > 0",
      "--out FILE        write the run here (default: stdout)",
      "--format F        trec (default; json for a .json --out), json ({qid: [docid, …]}) or ranx ({qid: {docid: score}})",
      ...llmHelp,
    ],
  },
  async run(values, io, config) {
    const name = String(values.retriever ?? "bm25-greekstemmer");
    const k = numberOption(values.k, "--k", 100, { integer: true, min: 1 });
    const bm25 = {
      // Past 1e6, k1 · |d| / avgdl overflows scores into NaN and Infinity, which no run file may hold.
      k1: numberOption(values.k1, "--k1", DEFAULT_BM25.k1, { min: 0, max: 1e6 }),
      b: numberOption(values.b, "--b", DEFAULT_BM25.b, { min: 0, max: 1 }),
    };
    const out = values.out as string | undefined;
    const format = String(values.format ?? (out?.endsWith(".json") ? "json" : "trec"));
    if (format !== "trec" && format !== "json" && format !== "ranx") throw new CliError(`--format must be trec, json or ranx, got '${format}'${didYouMean(format, ["trec", "json", "ranx"])}`, 2);
    const log = logger(io, values.quiet);
    await loadPlugins((values.require as string[] | undefined) ?? []);
    const bench = (await load(values, io, config())).benchmark;
    const llm = llmFlags(values, config(), log ? { log } : {});
    // Long work (an in-process model embedding a corpus, a re-ranking) shows its rate and the time left.
    const onProgress = progressReporter(io, { tty: process.stderr.isTTY === true, quiet: values.quiet === true, meter: llm.context.providers.meter });
    const retriever = await createRetriever(
      name,
      bench,
      { bm25, positiveOnly: Boolean(values["positive-only"]), ...llm.options },
      { ...llm.context, log, onProgress },
    );
    const t0 = performance.now();
    const run = await retriever.retrieve(bench.queries, k);
    log?.(`${name}: ${bench.queries.length} queries in ${Math.round(performance.now() - t0)} ms`);
    const tag = name.replace(/\s+/g, "_");
    if (!out) io.stdout(formatRun(run, format, tag));
    else {
      await writeRun(out, run, format, tag);
      log?.(`wrote ${out}`);
    }
  },
};
