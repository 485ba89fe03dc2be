import fs from "node:fs";
import path from "node:path";
import type { Benchmark } from "../types";
import { CliError, numberOption, withHelp, type Command, type Io } from "./args";

export type { Command, Io } from "./args";
import { loadBenchmark } from "../data/source";
import { formatJsonRun, formatRanxRun, formatTrec, readRun, trecEvalOrder, writeJsonRun, writeTrec } from "../data/runs";
import { metricsOf, noteCoverage, qrelsHelp, qrelsOf, qrelsOptions, readNamedRuns } from "./eval-inputs";
import { formatTrecEval } from "../report/trec-eval-text";
import { didYouMean } from "../util/suggest";
import { printable, printableJson } from "../util/printable";
import { DEFAULT_BM25 } from "../sparse/bm25";
import { areaStats, datasetStats } from "../data/stats";
import { evaluate, METRICS } from "../eval/metrics";
import { formatTable } from "../report/text-table";
import { formatStats } from "../report/stats-text";
import { formatFixed } from "../report/format";
import { createRetriever, retrieverNames, type RetrieverOptions, type RunContextInit } from "../retrievers";
import { BUILTIN_PRESETS } from "../dense/presets";
import { BUILTIN_RERANK_PRESETS } from "../rerank/presets";
import { FUSION_METHODS } from "../fusion/retriever";
import { createCachedStemmer } from "../text/greek-stemmer";
import { progressBar, pullHub, pullHubToDir } from "../data/hub";
import { MAX_REPEAT, reproduce, selection } from "../experiments/reproduce";
import { finishedSoFar } from "../experiments/earlier-records";
import { onInterrupt } from "./interrupt";
import { statusNow } from "../experiments/assess";
import { planReproduce } from "../experiments/plan";
import { loadPrices, pricerFrom } from "../eval/cost";
import { formatPlan } from "../report/plan-text";
import { formatReproduceSummary } from "../report/reproduce-summary";
import { pullOfficialPrompts } from "../llm/official-prompts";
import { officialPromptsDir } from "../llm/prompts";
import { compareRuns } from "../eval/compare-runs";
import { formatComparison, streamNote } from "../report/comparison";
import { comparisonPaperTable, evalPaperTable } from "../report/paper-tables";
import { PAPER_FORMATS, renderPaperTable, type PaperFormat } from "../util/paper-tables";
import { errorsCmd } from "./errors-command";
import { loadPlugins } from "./plugins";
import { progressReporter } from "./progress";
import { writeReports } from "../report/html";
import { exportFigures } from "../report/export-figures";
import { IMAGE_FORMATS, type ImageFormat } from "../report/render-figure";
import { PAPER_INCHES, type PaperWidth } from "../report/paper-figures";
import { foldUpper } from "../text/normalize";
import { DEFAULT_CONCURRENCY, readConfig } from "../config";
import { createProviders, type Providers } from "../providers";
import { createTokenizer } from "../data/spacy-tables";
import { exportReplay, mergeReplay, openReplayCache } from "../store";

const llmOptions = {
  official: { type: "boolean" as const },
  llm: { type: "string" as const },
  "no-cache": { type: "boolean" as const },
  prompts: { type: "string" as const },
  rounds: { type: "string" as const },
  "trace-dir": { type: "string" as const },
  concurrency: { type: "string" as const },
  "rerank-depth": { type: "string" as const },
  "rerank-window": { type: "string" as const },
  "rerank-step": { type: "string" as const },
};
const llmHelp = [
  "--official       the authors' whole setup: their prompts (--prompts official), their dense serving (their model",
  "                 names, one plain-string text per request: GBR_EMBED_NAMES=authors), their significance stream and,",
  "                 for reproduce, their experiment list (rows beyond it are left out; without --official they are",
  "                 marked 'beyond the authors')",
  "--llm NAME       chat model for reform:, translate:, react-bm25 (default GBR_CHAT_MODEL; gemini-… names use Gemini)",
  "--no-cache       call the LLM again even when the store has the answer (the new answer replaces it)",
  "--prompts SET    project (default) or official (run 'gbr prompts pull' first)",
  "--rounds N       REACT-BM25 rounds (default 10, at most 100);  --trace-dir D  where REACT writes one JSON trace per query",
  "--concurrency N  requests in flight per endpoint for every provider (GBR_CONCURRENCY; per kind GBR_CHAT_CONCURRENCY,",
  `                 GBR_EMBED_CONCURRENCY, GBR_RERANK_CONCURRENCY; default chat ${DEFAULT_CONCURRENCY.chat}, embeddings ${DEFAULT_CONCURRENCY.embed}, rerank ${DEFAULT_CONCURRENCY.rerank});`,
  "                 REACT and the other per-question methods work on that many questions at once per server",
  "--rerank-depth N articles of the first stage a rerank: retriever re-scores (default 100);",
  "--rerank-window N / --rerank-step N  the listwise LLM re-ranker's sliding window (default 20 / 10)",
  "LLM environment: GBR_CHAT_BASE_URL or OPENAI_BASE_URL (+ GBR_CHAT_API_KEY/OPENAI_API_KEY), or GEMINI_API_KEY;",
  "GBR_REPLAY_FILE=FILE to replay a shared file of chat answers (imported into the store); GBR_OFFLINE=1 to forbid network calls.",
];

/** `--seed`: a non-negative integer of any size (numpy seeds past 2^64 included), default 42. */
function seedOption(value: unknown): number | bigint {
  if (value === undefined) return 42;
  const text = String(value).trim();
  if (!/^\d+$/.test(text)) throw new CliError(`--seed must be a non-negative integer, got '${text}'`, 2);
  const big = BigInt(text);
  return big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
}

/** Each command's `--format` values, the default first: the one list its check, help and errors read. */
const FORMATS = {
  eval: ["text", ...PAPER_FORMATS, "trec_eval"],
  compare: ["text", ...PAPER_FORMATS],
  reproduce: ["text", ...PAPER_FORMATS],
} as const;

/** The paper-table format asked for, or undefined for any other output. */
function paperFormat(format: string): PaperFormat | undefined {
  return (PAPER_FORMATS as readonly string[]).includes(format) ? (format as PaperFormat) : undefined;
}

/** `--format` of a command: one of its values, else a usage error with the nearest. */
function formatOption<C extends keyof typeof FORMATS>(command: C, value: unknown): (typeof FORMATS)[C][number] {
  const formats: readonly string[] = FORMATS[command];
  if (value === undefined) return formats[0] as (typeof FORMATS)[C][number];
  const f = String(value);
  if (!formats.includes(f)) throw new CliError(`gbr ${command}: unknown --format '${f}'${didYouMean(f, formats)} (known: ${formats.join(", ")})`, 2);
  return f as (typeof FORMATS)[C][number];
}

/** The LLM flags as retriever options, plus the run context (one configuration and set of providers per command). */
function llmFlags(values: Record<string, unknown>, priced = false): { options: RetrieverOptions; context: RunContextInit & { providers: Providers } } {
  const concurrency = values.concurrency === undefined ? undefined : numberOption(values.concurrency, "--concurrency", 4, { integer: true, min: 1 });
  const official = values.official === true;
  const config = readConfig(undefined, { concurrency, ...(official ? { embedNaming: "authors" as const } : {}) });
  const providers = createProviders(config, priced ? { pricer: pricerFrom(loadPrices(config.pricesFile)) } : {});
  const promptSet = values.prompts === undefined ? (official ? "official" : undefined) : String(values.prompts);
  if (promptSet !== undefined && promptSet !== "project" && promptSet !== "official") throw new CliError(`--prompts must be project or official, got '${promptSet}'`, 2);
  if (official && promptSet !== "official") throw new CliError(`--official uses the authors' prompts; drop --prompts ${promptSet} (or --official)`, 2);
  const options: RetrieverOptions = {
    llm: values.llm as string | undefined,
    promptSet: promptSet as "project" | "official" | undefined,
    rounds: values.rounds === undefined ? undefined : numberOption(values.rounds, "--rounds", 10, { integer: true, min: 1, max: 100 }),
    rerankDepth: values["rerank-depth"] === undefined ? undefined : numberOption(values["rerank-depth"], "--rerank-depth", 100, { integer: true, min: 1 }),
    rerankWindow: values["rerank-window"] === undefined ? undefined : numberOption(values["rerank-window"], "--rerank-window", 20, { integer: true, min: 2 }),
    rerankStep: values["rerank-step"] === undefined ? undefined : numberOption(values["rerank-step"], "--rerank-step", 10, { integer: true, min: 1 }),
  };
  const context = { providers, traceDir: values["trace-dir"] as string | undefined, ...(values["no-cache"] ? { replay: "refresh" as const } : {}) };
  return { options, context };
}

const requireOption = { require: { type: "string" as const, multiple: true } };
const requireHelp = "--require FILE   first load this module of yours (.js, .mjs or .cjs; repeatable), e.g. one that calls registerRetriever";

const dataOption = { data: { type: "string" as const }, queries: { type: "string" as const }, quiet: { type: "boolean" as const, short: "q" } };
const dataHelp = [
  "--data SRC       hf (the benchmark on the Hugging Face Hub), sample (bundled demo) or a BEIR folder; without it, hf",
  "                 or, when the Hub cannot be reached and nothing is cached, sample, saying so (a source named never",
  "                 falls back)",
  "--queries FILE   a queries.jsonl replacing the source's queries",
  "-q, --quiet      no progress messages on stderr",
];

/** Progress to stderr, or undefined with -q: callers draw progress (the download bar) only when given a logger. */
function logger(io: Io, quiet: unknown): ((msg: string) => void) | undefined {
  return quiet ? undefined : (msg) => io.stderr(`${printable(msg, { newlines: true })}\n`);
}

/** Warnings reach stderr even with -q: they change what the numbers mean (e.g. the demo set stands in). */
function warner(io: Io): (msg: string) => void {
  return (msg) => io.stderr(`${printable(msg, { newlines: true })}\n`);
}

async function load(values: Record<string, unknown>, io: Io): Promise<Benchmark> {
  // With no --data and no Hub, the demo set (said on stderr); a source named is that source or an error.
  const loaded = await loadBenchmark(values.data as string | undefined, {
    queriesFile: values.queries as string | undefined,
    log: logger(io, values.quiet),
    warn: warner(io),
  });
  return loaded.benchmark;
}

const dataPull = withHelp(
  {
    name: "data pull",
    summary: "Download the benchmark from the Hugging Face Hub, verify it, and cache it (or write it as a BEIR folder).",
    usage: "data pull [--repo R] [--revision V] [--dir D]",
    options: { repo: { type: "string" }, revision: { type: "string" }, dir: { type: "string" }, quiet: { type: "boolean", short: "q" } },
    help: [
      "--repo R       dataset repository (default AUEB-NLP/greek-bar-bench)",
      "--revision V   tag, branch or commit (default v2.0)",
      "--dir D        also write the benchmark to D in BEIR layout (corpus.jsonl, queries.jsonl, qrels/test.tsv, meta.jsonl)",
      "-q, --quiet    no progress on stderr",
      "Environment: HF_ENDPOINT (default https://huggingface.co), HF_TOKEN for gated or private copies.",
    ],
  },
  async (values, _pos, io) => {
    const config = readConfig();
    const bar = values.quiet ? undefined : progressBar(config.ci);
    const log = bar?.log ?? (() => {});
    const opts = { ...config.hub, cacheRoot: path.join(config.dataDir, "hf"), repo: values.repo as string | undefined, revision: values.revision as string | undefined, log, onProgress: bar?.onProgress };
    let result;
    try {
      result = values.dir ? await pullHubToDir(String(values.dir), opts) : await pullHub(opts);
    } finally {
      bar?.stop();
    }
    const b = result.benchmark;
    io.stdout(`${b.docs.length} articles, ${b.queries.length} queries, ${[...b.qrels.values()].reduce((s, r) => s + r.size, 0)} judgments -> ${values.dir ?? result.dir}\n`);
  },
);

const dataStats = withHelp(
  {
    name: "data stats",
    summary: "Dataset statistics: the paper's Table 1 (sizes and judgments) and Table 6 (per legal area).",
    usage: "data stats --data SRC [--json]",
    options: { ...dataOption, json: { type: "boolean" } },
    help: [...dataHelp, "--json           machine-readable output"],
  },
  async (values, _pos, io) => {
    const bench = await load(values, io);
    const table1 = datasetStats(bench);
    const table6 = areaStats(bench);
    if (values.json) {
      io.stdout(printableJson({ dataset: bench.name, table1, table6 }) + "\n");
      return;
    }
    io.stdout(formatStats(bench.name, table1, table6));
  },
);

const stem = withHelp(
  {
    name: "stem",
    summary: "Stem words with the Greek stemmer (Ntais rules): one word per stdin line, in any case, with or without accents.",
    usage: "stem < words.txt",
    options: {},
    help: ["(each word is folded first, as the BM25-GREEKSTEMMER tokenizer folds it: accents removed, upper case)"],
  },
  async (_values, _pos, io) => {
    const stemWord = createCachedStemmer();
    const lines = splitLines(await io.stdin());
    io.stdout(lines.map((w) => stemWord(foldUpper(w.trim()))).join("\n") + (lines.length ? "\n" : ""));
  },
);

const tokenize = withHelp(
  {
    name: "tokenize",
    summary: "Tokenize text as a BM25 variant does: one text per stdin line, tokens joined by single spaces on stdout.",
    usage: "tokenize --tokenizer NAME < texts.txt",
    options: { tokenizer: { type: "string" }, quiet: { type: "boolean", short: "q" } },
    help: ["--tokenizer NAME   greekstemmer (default), spacy, grnlp or english (bm25-… forms accepted)", "-q, --quiet        no messages on stderr"],
  },
  async (values, _pos, io) => {
    const tok = await createTokenizer(String(values.tokenizer ?? "bm25-greekstemmer"), { log: logger(io, values.quiet) });
    const lines = splitLines(await io.stdin());
    io.stdout(lines.map((l) => tok.tokenize(l).join(" ")).join("\n") + (lines.length ? "\n" : ""));
  },
);

function splitLines(text: string): string[] {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  if (lines.length && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

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

const search = withHelp(
  {
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
      ann: { type: "boolean" },
      nprobes: { type: "string" },
      refine: { type: "string" },
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
      "--ann             dense: search the IVF_PQ index instead of exact search (recall against exact is logged)",
      "--nprobes N       ANN partitions probed (default 20);  --refine N  re-rank N × k candidates exactly",
      "--vector-store U  LanceDB URI of the embedding cache (default data/lancedb; s3://… works)",
      "Environment: GBR_EMBED_BASE_URL or OPENAI_BASE_URL (+ GBR_EMBED_API_KEY/OPENAI_API_KEY) for OpenAI-compatible",
      "servers; GEMINI_API_KEY for gemini-001.",
      ...llmHelp,
    ],
  },
  async (values, _pos, io) => {
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
    const bench = await load(values, io);
    const ann = values.ann
      ? {
          nprobes: values.nprobes === undefined ? undefined : numberOption(values.nprobes, "--nprobes", 20, { integer: true, min: 1 }),
          refineFactor: values.refine === undefined ? undefined : numberOption(values.refine, "--refine", 1, { integer: true, min: 1 }),
        }
      : undefined;
    const llm = llmFlags(values);
    const retriever = await createRetriever(
      name,
      bench,
      { bm25, positiveOnly: Boolean(values["positive-only"]), ann, ...llm.options },
      { ...llm.context, log, vectorStore: values["vector-store"] as string | undefined },
    );
    const t0 = performance.now();
    const run = await retriever.retrieve(bench.queries, k);
    log?.(`${name}: ${bench.queries.length} queries in ${Math.round(performance.now() - t0)} ms`);
    const tag = String(values.tag ?? name).replace(/\s+/g, "_");
    if (!out) {
      io.stdout(format === "json" ? formatJsonRun(run) : format === "ranx" ? formatRanxRun(run) : formatTrec(run, tag));
    } else if (format !== "trec") {
      await writeJsonRun(out, run, format);
    } else {
      await writeTrec(out, run, tag);
    }
    if (out) log?.(`wrote ${out}`);
  },
);

const evalCmd = withHelp(
  {
    name: "eval",
    summary: "Evaluate a run: nDCG@10, nDCG@100, Recall@10, Recall@100, MAP@100 (mean, or per query).",
    usage: `eval --qrels FILE --run FILE [--binary] [--per-query] [--json] [--format ${FORMATS.eval.join("|")}]`,
    options: { ...qrelsOptions, run: { type: "string" }, "per-query": { type: "boolean" }, json: { type: "boolean" }, format: { type: "string" } },
    help: [
      ...qrelsHelp,
      "--run FILE     TREC run (ordered by its rank column), ranx JSON {qid: {docid: score}} or JSON {qid: [docid, …]}",
      "--per-query    one row per query (in qrels order) before the mean",
      "--json         {\"mean\": {metric: value}} (and \"perQuery\") at full precision",
      "--format F     text (default), latex (a booktabs table for a paper) or markdown (a GitHub table) of the mean;",
      "               trec_eval: trec_eval's layout (measure, query, value; its names ndcg_cut_10 …; with --per-query",
      "               its -q rows for the run's queries, sorted by id; 'all' is the mean, a query missing from the run",
      "               counting 0 as with trec_eval -c). The values are the project's, on the file's order of each ranking.",
    ],
  },
  async (values, _pos, io) => {
    if (!values.qrels || !values.run) throw new CliError("gbr eval needs --qrels FILE and --run FILE (see --help)", 2);
    const format = formatOption("eval", values.format);
    const paper = paperFormat(format);
    if (format !== "text" && values.json) throw new CliError(`gbr eval: --json and --format ${format} are two outputs; give one`, 2);
    if (paper && values["per-query"]) throw new CliError(`gbr eval: --format ${paper} tables the mean; leave out --per-query (or use --json for per-query values)`, 2);
    const qrels = await qrelsOf(values, io);
    const run = await readRun(String(values.run));
    // An empty run, or one for other queries, is an error here: it would print a mean of 0.
    noteCoverage({ file: String(values.run), name: String(values.run), run }, qrels, String(values.qrels), io);
    const { mean, perQuery } = evaluate(run.rankings, qrels);
    if (paper) {
      io.stdout(renderPaperTable(evalPaperTable({ name: path.parse(String(values.run)).name, mean }, METRICS, perQuery.size), paper));
      return;
    }
    if (values.json) {
      const body: Record<string, unknown> = { mean };
      if (values["per-query"]) body.perQuery = Object.fromEntries(perQuery);
      io.stdout(printableJson(body) + "\n");
      return;
    }
    if (format === "trec_eval") {
      // trec_eval scores its own order of each ranking; say where that is not the file's, and what it changes.
      const theirs = trecEvalOrder(run);
      const reordered = [...perQuery.keys()].filter((q) => run.rankings.get(q)?.some((d, i) => theirs.get(q)![i] !== d));
      if (reordered.length) {
        const other = evaluate(theirs, qrels).perQuery;
        const changed = reordered.filter((q) => METRICS.some((m) => formatFixed(perQuery.get(q)![m], 4) !== formatFixed(other.get(q)![m], 4)));
        const effect = changed.length ? `which changes the printed values of ${changed.length} (e.g. '${printable(changed[0])}')` : "which changes no printed value";
        io.stderr(`note: ${reordered.length} rankings (e.g. '${printable(reordered[0])}') are not in trec_eval's order (score descending, equal scores by doc id descending); trec_eval re-sorts them, ${effect}; the values here follow the file's order\n`);
      }
      const rows = values["per-query"] ? [...perQuery].filter(([q]) => run.rankings.has(q)) : undefined;
      io.stdout(formatTrecEval(mean, rows));
      return;
    }
    const rows: string[][] = [];
    if (values["per-query"]) for (const [q, m] of perQuery) rows.push([q, ...METRICS.map((k) => formatFixed(m[k], 4))]);
    rows.push(["mean", ...METRICS.map((k) => formatFixed(mean[k], 4))]);
    io.stdout(formatTable(["query", ...METRICS], rows));
  },
);

const reproduceCmd = withHelp(
  {
    name: "reproduce",
    summary: "The main job: load the benchmark, run every experiment the configured providers allow, evaluate, and write runs and tables.",
    usage: `reproduce [--data SRC] [--queries FILE] [--out DIR] [--only IDS] [--replace] [--official] [--plan] [--format ${FORMATS.reproduce.join("|")}]`,
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
      ...dataHelp.slice(0, 4),
      "--out DIR        output root (default outputs); results go to DIR/<dataset>/",
      "--only IDS       comma-separated experiment ids (default: all); the folder keeps an earlier run's other rows",
      "                 (marked [earlier]; summary.csv's ranAt says when each ran); a retriever a --require'd module",
      "                 registers is an id too, alone or composed (my-name, rrf:bm25-greekstemmer+my-name)",
      requireHelp,
      "--replace        start DIR/<dataset>/ again: remove an earlier run's results instead of keeping them",
      "                 (without it, a run stopped by Ctrl-C, kill -9 or a full disk is continued by the same command)",
      "--repeat N       run each LLM experiment N times (samples 0..N-1, seeds S..S+N-1): mean ± sd",
      "--seed S         first provider seed for --repeat (default 42)",
      "--plan           call no model: count the calls and tokens each selected experiment needs (exact where the",
      "                 requests can be rendered in advance), what the caches already hold, and the price (config/",
      "                 prices.json or GBR_PRICES); a table, and DIR/<dataset>/plan.json",
      "--format F       the closing results table as text (default), latex or markdown (as tables.tex and tables.md,",
      "                 which are written either way)",
      ...llmHelp,
      "-q, --quiet      no progress messages on stderr",
    ],
  },
  async (values, _pos, io) => {
    const log = logger(io, values.quiet);
    const only = values.only === undefined ? undefined : String(values.only).split(",").map((s) => s.trim()).filter(Boolean);
    if (only && !only.length) throw new CliError("gbr reproduce: --only needs experiment ids, comma-separated (leave it out to run them all)", 2);
    const paper = paperFormat(formatOption("reproduce", values.format));
    if (paper && values.plan) throw new CliError(`gbr reproduce: --format ${paper} is for the results table; --plan prints none`, 2);
    const outRoot = String(values.out ?? "outputs");
    await loadPlugins((values.require as string[] | undefined) ?? []);
    // Checked before anything runs: a file where the outputs go would otherwise fail only after every experiment.
    if (fs.existsSync(outRoot) && !fs.statSync(outRoot).isDirectory()) throw new CliError(`gbr reproduce: --out ${outRoot} is a file, not a folder`, 2);
    const llm = llmFlags(values, true);
    const loaded = await loadBenchmark(values.data as string | undefined, { log, warn: warner(io), queriesFile: values.queries as string | undefined, config: llm.context.providers.config });
    // Each long step's figures go to metadata.json (`progress`), printed or not (-q); a plan's stand-in steps are not shown.
    const onProgress = values.plan ? undefined : progressReporter(io, { tty: process.stderr.isTTY === true, quiet: values.quiet === true, meter: llm.context.providers.meter });
    const opts = {
      outRoot,
      only,
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
    const { outDir } = selection(loaded, opts, llm.context.providers.config);
    const interrupted = onInterrupt(async (signal) => {
      const kept = await finishedSoFar(outDir);
      const what = kept.length ? `${kept.length} finished experiment${kept.length > 1 ? "s are" : " is"} kept in ${outDir} (${kept.join(", ")})` : `no experiment had finished (${outDir})`;
      return `gbr reproduce: interrupted (${signal}): ${what}; rerun the same command to continue`;
    }, io);
    const result = await reproduce(loaded, opts).finally(interrupted);
    io.stdout(formatReproduceSummary(loaded, result, { format: paper ?? "text" }));
    // Failures reach stderr even with -q. Skipped experiments are not failures, unless --only asked for them by name.
    const failed = result.outcomes.filter((o) => statusNow(o) === "failed" || (only && statusNow(o) === "skipped"));
    if (failed.length) {
      // Without -q each reason was printed once as the experiment ended; with -q this is where it is said.
      const byReason = new Map<string, string[]>();
      for (const o of failed) {
        const [what, reason] = o.now ? [`${o.now.status} (its earlier result is kept)`, o.now.reason] : [o.status, o.reason ?? ""];
        const why = values.quiet ? `${what}: ${reason}` : `${what} (the reason is above)`;
        byReason.set(why, [...(byReason.get(why) ?? []), o.id]);
      }
      for (const [why, ids] of byReason) io.stderr(`gbr reproduce: ${printable(`${ids.join(", ")} ${why}`)}\n`);
    }
    return failed.length ? 1 : 0;
  },
);

const promptsPull = withHelp(
  {
    name: "prompts pull",
    summary: "Fetch the authors' official Greek prompts from their public repository at the pinned commit (cached, never committed).",
    usage: "prompts pull [--commit SHA]",
    options: { commit: { type: "string" }, quiet: { type: "boolean", short: "q" } },
    help: [
      "--commit SHA   repository commit (default 992f5224a6cb75d12d956994a820a9b83e18c0f5, the paper's)",
      "Environment: GBR_GITHUB_RAW_URL for a mirror of raw.githubusercontent.com. Use them with --prompts official.",
    ],
  },
  async (values, _pos, io) => {
    const config = readConfig();
    const r = await pullOfficialPrompts({ commit: values.commit as string | undefined, log: logger(io, values.quiet), baseUrl: config.githubRawUrl, cacheDir: officialPromptsDir(config.dataDir) });
    io.stdout(`${Object.keys(r.texts).length} official prompts -> ${r.cacheDir}\n`);
  },
);

/** The data folder's chat records, for `gbr replay export|import`. */
async function replayCacheOf(io: Io, quiet: unknown) {
  const { dataDir, replayFile } = readConfig();
  return openReplayCache({ dataDir, replayFile, log: logger(io, quiet) ?? (() => {}) });
}

const replayExport = withHelp(
  {
    name: "replay export",
    summary: "Write the store's chat answers as one key-sorted JSONL file, to hand a run's calls to someone else.",
    usage: "replay export --file FILE [--model NAME]",
    options: { file: { type: "string" }, model: { type: "string" }, quiet: { type: "boolean", short: "q" } },
    help: [
      "--file FILE    the JSONL file to write (one chat record a line, in key order: the same answers give the same bytes)",
      "--model NAME   only the answers of this model (as the server knows it, e.g. openai/gpt-oss-120b)",
      "The other side runs 'gbr replay import --file FILE' (or sets GBR_REPLAY_FILE=FILE), with GBR_OFFLINE=1 to be sure nothing is called.",
    ],
  },
  async (values, _pos, io) => {
    if (typeof values.file !== "string") throw new CliError("gbr replay export: give the file to write (--file FILE)", 2);
    const model = values.model as string | undefined;
    const r = await exportReplay(await replayCacheOf(io, values.quiet), values.file, model === undefined ? undefined : (rec) => rec.model === model);
    io.stdout(`${r.records} chat answers -> ${r.file}\n`);
  },
);

const replayImport = withHelp(
  {
    name: "replay import",
    summary: "Add the chat answers of a JSONL file (an export, or a v0.8 replay file) to the store; its own answers are kept.",
    usage: "replay import --file FILE",
    options: { file: { type: "string" }, quiet: { type: "boolean", short: "q" } },
    help: ["--file FILE    a file 'gbr replay export' wrote, or a v0.8 llm-calls.jsonl; damaged lines are reported and skipped"],
  },
  async (values, _pos, io) => {
    if (typeof values.file !== "string") throw new CliError("gbr replay import: give the file to read (--file FILE)", 2);
    const cache = await replayCacheOf(io, values.quiet);
    const r = await mergeReplay(cache, values.file, { log: warner(io) });
    io.stdout(`${r.added} chat answers added to ${cache.store.dir} (${r.skipped} already there)\n`);
  },
);

const compare = withHelp(
  {
    name: "compare",
    summary: "Paired randomization tests with Holm correction between runs.",
    usage: `compare --qrels FILE --run A --run B … [--pair A,B …] [--swaps 100000] [--seed 42] [--metric M …] [--binary] [--official] [--json] [--format ${FORMATS.compare.join("|")}]`,
    options: {
      official: { type: "boolean" },
      ...qrelsOptions,
      run: { type: "string", multiple: true },
      pair: { type: "string", multiple: true },
      swaps: { type: "string" },
      seed: { type: "string" },
      metric: { type: "string", multiple: true },
      json: { type: "boolean" },
      format: { type: "string" },
    },
    help: [
      ...qrelsHelp,
      "--run FILE     a run (TREC or JSON), at least two; its name is the file name without extension, or the",
      "               experiment id in its TREC tag for a file gbr reproduce wrote (runs/rrf__a+b.trec is rrf:a+b)",
      "--swaps N      random sign flips per test (default 100000)",
      "--official     the authors' significance setup: their stream (the default here too) and 100,000 flips",
      "--pair A,B     test run A against run B (a run's name, or its file name without extension; repeatable, in order);",
      "               default every pair of runs in the order given",
      "--seed S       numpy seed of the one stream all tests draw from, in order (default 42; any non-negative integer)",
      `--metric M     test only these metrics, in this order (repeatable or comma-separated; default ${METRICS.join(", ")};`,
      "               ranx's ndcg@10, ir_measures' R@100 or AP@100 and trec_eval's ndcg_cut_10 … are read too)",
      '--json         {"tests": [{"a", "b", "metric", "meanA", "meanB", "delta", "p", "pHolm"}]} at full precision',
      "--format F     text (default: the table, its legend and every test), or the table alone as latex (booktabs, the",
      "               best of each column bold, superscripts, the test in the caption) or markdown (a GitHub table)",
      "Two-sided, Holm over all tests. The flips are drawn as the authors' notebook draws them: numpy's",
      "default_rng(seed), pair by pair, each pair's metrics in order, queries in the order of the qrels file. In the",
      "table a superscript marks each run a value beats significantly (p_Holm < 0.05)."
    ],
  },
  async (values, _pos, io) => {
    const files = (values.run as string[] | undefined) ?? [];
    if (!values.qrels) throw new CliError("gbr compare needs --qrels FILE (see --help)", 2);
    if (files.length < 2) throw new CliError(`gbr compare needs at least two runs (--run A --run B …), got ${files.length}`, 2);
    const paper = paperFormat(formatOption("compare", values.format));
    if (paper && values.json) throw new CliError(`gbr compare: --json and --format ${paper} are two outputs; give one`, 2);
    const chosen = metricsOf(values.metric, "compare");
    const metrics = chosen.length ? chosen : [...METRICS];
    const swaps = numberOption(values.swaps, "--swaps", 100_000, { integer: true, min: 1 });
    if (values.official && swaps !== 100_000) throw new CliError(`gbr compare --official draws the authors' 100,000 flips per test; drop --swaps ${swaps} (or --official)`, 2);
    const seed = seedOption(values.seed);
    const pairSpecs = ((values.pair as string[] | undefined) ?? []).map((p): [string, string] => {
      const parts = p.split(",").map((x) => x.trim());
      if (parts.length !== 2 || !parts[0] || !parts[1]) throw new CliError(`gbr compare: --pair takes A,B (two run names), got '${printable(p)}'`, 2);
      return [parts[0], parts[1]];
    });
    const qrels = await qrelsOf(values, io);
    const read = await readNamedRuns(files);
    const names = read.map((r) => r.name);
    const dup = names.find((n, i) => names.indexOf(n) !== i);
    if (dup !== undefined) throw new CliError(`gbr compare: two runs are named '${printable(dup)}' (a run's name is its file name without extension)`, 2);
    const bases = files.map((f) => path.parse(f).name);
    const nameOf = (n: string, p: string) => {
      const i = names.includes(n) ? names.indexOf(n) : bases.indexOf(n);
      if (i < 0) throw new CliError(`gbr compare: --pair ${printable(p)}: no run named '${printable(n)}' (runs: ${printable(names.join(", "))})`, 2);
      return names[i];
    };
    const pairs = pairSpecs.map(([a, b]): [string, string] => [nameOf(a, `${a},${b}`), nameOf(b, `${a},${b}`)]);
    const runs: (ReturnType<typeof evaluate> & { name: string })[] = [];
    for (const r of read) {
      noteCoverage(r, qrels, String(values.qrels), io);
      const { mean, perQuery } = evaluate(r.run.rankings, qrels);
      runs.push({ name: r.name, mean, perQuery });
    }
    const comparison = compareRuns(runs, qrels, { metrics, swaps, seed, ...(pairs.length ? { pairs } : {}) });
    if (values.json) {
      io.stdout(printableJson(comparison) + "\n");
      io.stderr(`${streamNote(seed, comparison.tests.length)}\n`);
      return;
    }
    if (paper) {
      const table = comparisonPaperTable(runs, comparison, metrics, { swaps, seed, queries: runs[0].perQuery.size, ...(pairs.length ? { pairs } : {}) });
      io.stdout(renderPaperTable(table, paper));
      io.stderr(`${streamNote(seed, comparison.tests.length)}\n`);
      return;
    }
    io.stdout(formatComparison(runs, comparison, metrics, { swaps, seed, queries: runs[0].perQuery.size }));
  },
);

/** `--format`: one or more of svg, png, pdf (comma-separated), each checked with a did-you-mean. */
function imageFormats(value: unknown): ImageFormat[] {
  const names = String(value ?? "svg").split(",").map((f) => f.trim().toLowerCase()).filter(Boolean);
  if (!names.length) throw new CliError(`gbr figures: --format needs ${IMAGE_FORMATS.join(", ")} (or several, comma-separated)`, 2);
  for (const n of names) {
    if (!(IMAGE_FORMATS as readonly string[]).includes(n)) throw new CliError(`gbr figures: unknown format '${n}'${didYouMean(n, IMAGE_FORMATS)} (formats: ${IMAGE_FORMATS.join(", ")})`, 2);
  }
  return [...new Set(names)] as ImageFormat[];
}

/** `--width`: column, page, or inches. */
function paperWidth(value: unknown): PaperWidth | undefined {
  if (value === undefined) return undefined;
  const text = String(value).trim().toLowerCase();
  if (text === "column" || text === "page") return text;
  const inches = Number(text.replace(/in$/, ""));
  if (text !== "" && Number.isFinite(inches) && inches >= 1 && inches <= 20) return inches;
  throw new CliError(`gbr figures: --width must be column (${PAPER_INCHES.column} in), page (${PAPER_INCHES.page} in) or inches from 1 to 20, got '${String(value)}'${didYouMean(text, ["column", "page"])}`, 2);
}

const figuresCmd = withHelp(
  {
    name: "figures",
    summary: "Every figure of a dataset folder's report as files for a paper (SVG, PNG or PDF), drawn by a local Chromium or Chrome.",
    usage: "figures --out DIR --format svg|png|pdf [--width column|page|INCHES] [--no-title]",
    options: { out: { type: "string" }, format: { type: "string" }, width: { type: "string" }, "no-title": { type: "boolean" }, quiet: { type: "boolean", short: "q" } },
    help: [
      "--out DIR       the dataset folder that 'gbr reproduce' wrote (e.g. outputs/sample; an outputs root holding one",
      "                dataset folder will do); the files go to DIR/figures/<name>.<format>",
      "--format F      svg (default, vector), png (300 dpi) or pdf (vector, one page the figure's size); several",
      "                comma-separated, e.g. svg,pdf",
      `--width W       column (${PAPER_INCHES.column} in, one column of a two-column paper), page (${PAPER_INCHES.page} in) or inches; default:`,
      "                page for the charts with a labelled row per experiment or test, column for the rest. Text is",
      "                never under 8 pt at that width",
      "--no-title      leave the titles out (for the paper's captions)",
      "-q, --quiet     no progress on stderr",
      "Needs Chromium or Chrome, found on the machine (never downloaded): GBR_CHROMIUM (or CHROME_PATH) names one,",
      "else /usr/bin/chromium, google-chrome, … and PATH are searched. Debian/Ubuntu: sudo apt-get install chromium.",
      "Prints each file written.",
    ],
  },
  async (values, _pos, io) => {
    const formats = imageFormats(values.format);
    const width = paperWidth(values.width);
    const t0 = performance.now();
    const result = await exportFigures(String(values.out ?? "outputs"), {
      formats,
      ...(width === undefined ? {} : { width }),
      title: values["no-title"] !== true,
      browser: readConfig().browser,
    });
    io.stdout(result.files.map((f) => `${f}\n`).join(""));
    if (!result.files.length) io.stderr(`gbr figures: ${result.dir} has no figure to export (its report draws none)\n`);
    else if (!values.quiet) io.stderr(`${result.files.length / formats.length} figures as ${formats.join(", ")} in ${((performance.now() - t0) / 1000).toFixed(1)} s (drawn by ${result.browser})\n`);
  },
);

/** Every command, keyed by its words. */
export const COMMANDS: Record<string, Command> = {
  "data pull": dataPull,
  "data stats": dataStats,
  stem,
  tokenize,
  search,
  eval: evalCmd,
  reproduce: reproduceCmd,
  "prompts pull": promptsPull,
  "replay export": replayExport,
  "replay import": replayImport,
  // The import's earlier name, still accepted.
  "replay merge": replayImport,
  compare,
  errors: errorsCmd,
  figures: figuresCmd,
  report: withHelp(
    {
      name: "report",
      summary: "The HTML report from outputs: one self-contained page per dataset folder (plotly inlined, works offline).",
      usage: "report [--out DIR] [--data NAME]",
      options: { out: { type: "string" }, data: { type: "string" } },
      help: [
        "--out DIR      output root that 'gbr reproduce --out DIR' wrote (default outputs)",
        "--data NAME    only the dataset folder DIR/NAME (default: every folder under DIR with a summary.csv)",
        "Writes DIR/<dataset>/report.html and prints each path.",
      ],
    },
    async (values, _pos, io) => {
      const written = await writeReports(String(values.out ?? "outputs"), values.data === undefined ? undefined : String(values.data));
      io.stdout(written.map((f) => `${f}\n`).join(""));
    },
  ),
};
