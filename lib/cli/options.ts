/** Option groups several commands share: data source, LLM and provider flags, --require, --format, progress. */
import { CliError, numberOption, type Io } from "./args";
import { loadBenchmark } from "../data/source";
import { didYouMean } from "../util/suggest";
import { printable } from "../util/printable";
import type { RetrieverOptions, RunContextInit } from "../retrievers";
import type { Pricer } from "../providers/usage-meter";
import { DEFAULT_CONCURRENCY, type Config, type ConfigFlags } from "../config";
import { createProviders, type Providers } from "../providers";
import { PAPER_FORMATS, type PaperFormat } from "../eval/results-table";

export const llmOptions = {
  official: { type: "boolean" as const },
  local: { type: "boolean" as const },
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
export const llmHelp = [
  "--official       the authors' whole setup: their prompts, their dense serving (GBR_EMBED_NAMES=authors), their",
  "                 significance stream and, for reproduce, their experiment list (rows beyond it are left out)",
  "--local          run the embedding and cross-encoder presets that have an in-process form here, on the CPU",
  "                 (GBR_LOCAL=1; needs npm i @huggingface/transformers; weights from the Hub, cached; docs/dense.md)",
  "--llm NAME       chat model for reform:, translate:, react-bm25 (default GBR_CHAT_MODEL; gemini-… names use Gemini)",
  "--no-cache       call the LLM again even when the store has the answer (the new answer replaces it)",
  "--prompts SET    project (default) or official (run 'gbr prompts pull' first)",
  "--rounds N       REACT-BM25 rounds (default 10, at most 100);  --trace-dir D  where REACT writes one JSON trace per query",
  "--concurrency N  requests in flight per endpoint for every provider (GBR_CONCURRENCY; per kind GBR_CHAT_CONCURRENCY,",
  `                 GBR_EMBED_CONCURRENCY, GBR_RERANK_CONCURRENCY; default chat ${DEFAULT_CONCURRENCY.chat}, embeddings ${DEFAULT_CONCURRENCY.embed}, rerank ${DEFAULT_CONCURRENCY.rerank})`,
  "--rerank-depth N articles a rerank: retriever re-scores (default 100); --rerank-window N / --rerank-step N  the",
  "                 listwise LLM re-ranker's sliding window (default 20 / 10)",
  "Environment: see README.md (GBR_CHAT_BASE_URL or OPENAI_BASE_URL, GEMINI_API_KEY, GBR_REPLAY_FILE, GBR_OFFLINE=1).",
];

/** What of the command line changes the configuration (`--concurrency N`, `--official`'s dense serving). */
export function configFlags(values: Record<string, unknown>): ConfigFlags {
  return {
    ...(values.concurrency === undefined ? {} : { concurrency: numberOption(values.concurrency, "--concurrency", 4, { integer: true, min: 1 }) }),
    ...(values.official === true ? { embedNaming: "authors" as const } : {}),
    ...(values.local === true ? { local: true } : {}),
  };
}

/** The LLM flags as retriever options, plus the run context (the command's configuration and one set of providers). */
export function llmFlags(values: Record<string, unknown>, config: Config, more: { pricer?: Pricer; log?: (message: string) => void } = {}): { options: RetrieverOptions; context: RunContextInit & { providers: Providers } } {
  const official = values.official === true;
  const providers = createProviders(config, more);
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

export const requireOption = { require: { type: "string" as const, multiple: true } };
export const requireHelp = "--require FILE   first load this module of yours (.js, .mjs or .cjs; repeatable), e.g. one that calls registerRetriever";

export const quietOption = { quiet: { type: "boolean" as const, short: "q" } };
export const dataOption = { data: { type: "string" as const }, queries: { type: "string" as const }, ...quietOption };
export const dataHelp = [
  "--data SRC       hf (the benchmark on the Hugging Face Hub; the default, or sample when the Hub cannot be reached",
  "                 and nothing is cached), sample (bundled demo) or a BEIR folder",
  "--queries FILE   a queries.jsonl replacing the source's queries",
  "-q, --quiet      no progress messages on stderr",
];

/** Warnings reach stderr even with -q: they change what the numbers mean. */
export function warner(io: Io): (msg: string) => void {
  return (msg) => io.stderr(`${printable(msg, { newlines: true })}\n`);
}

export function logger(io: Io, quiet: unknown): ((msg: string) => void) | undefined {
  return quiet ? undefined : warner(io);
}

/** The benchmark of `--data` and `--queries`: with no --data and no Hub, the demo set (said on stderr). */
export async function load(values: Record<string, unknown>, io: Io, config: Config) {
  return loadBenchmark(values.data as string | undefined, {
    queriesFile: values.queries as string | undefined,
    log: logger(io, values.quiet),
    warn: warner(io),
    config,
  });
}

/** `--format` of a command: one of its values (the first is the default), else a usage error with the nearest. */
export const formatOption = <F extends string>(command: string, formats: readonly F[], value: unknown): F => choiceOption(command, "--format", formats, value);

/** A flag taking one of `choices`, the first by default; an unknown value names the known ones. */
export function choiceOption<F extends string>(command: string, flag: string, choices: readonly F[], value: unknown): F {
  if (value === undefined) return choices[0];
  const f = String(value);
  if (!(choices as readonly string[]).includes(f)) throw new CliError(`gbr ${command}: unknown ${flag} '${f}'${didYouMean(f, choices)} (known: ${choices.join(", ")})`, 2);
  return f as F;
}

export function paperFormat(format: string): PaperFormat | undefined {
  return (PAPER_FORMATS as readonly string[]).includes(format) ? (format as PaperFormat) : undefined;
}

/** Each line of stdin (its end, and the last line's, optional) through `f`, one line of stdout per line. */
export async function eachLine(io: Io, f: (line: string) => string): Promise<void> {
  const lines = (await io.stdin()).replace(/\r\n?/g, "\n").split("\n");
  if (lines.length && lines[lines.length - 1] === "") lines.pop();
  io.stdout(lines.map(f).join("\n") + (lines.length ? "\n" : ""));
}
