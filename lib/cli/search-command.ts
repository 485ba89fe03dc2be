/** `gbr search`: one retriever over the queries, its run written as TREC, ranx JSON or JSON. */
import { CliError, numberOption, type Command } from "./args";
import { dataHelp, dataOption, llmFlags, llmHelp, llmOptions, load, logger, requireHelp, requireOption } from "./options";
import { loadPlugins } from "./plugins";
import { formatRun, writeRun } from "../data/runs";
import { didYouMean } from "../util/suggest";
import { DEFAULT_BM25 } from "../sparse/bm25";
import { createRetriever, retrieverNames } from "../retrievers";
import { BUILTIN_PRESETS } from "../dense/presets";
import { BUILTIN_RERANK_PRESETS } from "../rerank/presets";
import { FUSION_METHODS } from "../fusion/retriever";

/** Words filled into lines of `width`, each after `indent` (the first after `first`). */
function wrapped(first: string, words: readonly string[], indent = " ".repeat(first.length), width = 118): string[] {
  const lines = [first];
  for (const w of words) {
    const last = lines[lines.length - 1];
    if (last.length + 1 + w.length > width && last.trim() !== "" && last !== first) lines.push(`${indent}${w}`);
    else lines[lines.length - 1] = last === first ? `${last}${w}` : `${last} ${w}`;
  }
  return lines;
}

/** `--retriever`'s help, from the lists the code reads (so it names every form): names, presets, re-rankers, fusions. */
function retrieverHelp(): string[] {
  const pad = " ".repeat(18);
  const list = (items: readonly string[]) => items.map((x, i) => `${x}${i < items.length - 1 ? "," : ""}`);
  return [
    ...wrapped("--retriever NAME  ", list(retrieverNames().map((n) => (n === "bm25-greekstemmer" ? `${n} (default)` : n)))),
    ...wrapped(`${pad}<preset>: `, [...list(BUILTIN_PRESETS.map((p) => p.name)), "or a user preset of gbr-presets.json"], pad),
    ...wrapped(`${pad}<reranker>: `, [...list([...BUILTIN_RERANK_PRESETS.map((p) => p.name), "llm (the listwise chat model)"]), "or a user preset"], pad),
    ...wrapped(`${pad}<method> of fuse: `, [...list(FUSION_METHODS.map((f) => (f === "wrrf" ? "wrrf:<w1>,<w2> (weighted RRF)" : f))), "as ranx defines them"], pad),
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
      epsilon: { type: "string" },
      "positive-only": { type: "boolean" },
      out: { type: "string" },
      format: { type: "string" },
      tag: { type: "string" },
      "vector-store": { type: "string" },
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
      "--epsilon E       idf floor as a fraction of the mean idf (default 0.25)",
      "--positive-only   leave out documents whose score is not > 0",
      "--out FILE        write the run here (default: stdout)",
      "--format F        trec (default; json when --out ends in .json), json ({qid: [docid, …]}) or ranx",
      "                  ({qid: {docid: score}}, what ranx's Run.from_file and pytrec_eval read)",
      "--tag T           TREC run tag (default: the retriever name)",
      "--vector-store U  LanceDB URI of the embedding cache (default data/lancedb; s3://… works)",
      "Environment: GBR_EMBED_BASE_URL or OPENAI_BASE_URL (+ GBR_EMBED_API_KEY/OPENAI_API_KEY) for OpenAI-compatible",
      "servers; GEMINI_API_KEY for gemini-001.",
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
      epsilon: numberOption(values.epsilon, "--epsilon", DEFAULT_BM25.epsilon, { min: 0, max: 1e6 }),
    };
    const out = values.out as string | undefined;
    const format = String(values.format ?? (out?.endsWith(".json") ? "json" : "trec"));
    if (format !== "trec" && format !== "json" && format !== "ranx") throw new CliError(`--format must be trec, json or ranx, got '${format}'${didYouMean(format, ["trec", "json", "ranx"])}`, 2);
    const log = logger(io, values.quiet);
    await loadPlugins((values.require as string[] | undefined) ?? []);
    const bench = (await load(values, io, config())).benchmark;
    const llm = llmFlags(values, config());
    const retriever = await createRetriever(
      name,
      bench,
      { bm25, positiveOnly: Boolean(values["positive-only"]), ...llm.options },
      { ...llm.context, log, vectorStore: values["vector-store"] as string | undefined },
    );
    const t0 = performance.now();
    const run = await retriever.retrieve(bench.queries, k);
    log?.(`${name}: ${bench.queries.length} queries in ${Math.round(performance.now() - t0)} ms`);
    const tag = String(values.tag ?? name).replace(/\s+/g, "_");
    if (!out) io.stdout(formatRun(run, format, tag));
    else {
      await writeRun(out, run, format, tag);
      log?.(`wrote ${out}`);
    }
  },
};
