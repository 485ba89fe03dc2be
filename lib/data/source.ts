import fs from "node:fs";
import path from "node:path";
import { GbrError } from "../util/errors";
import { didYouMean } from "../util/suggest";
import type { Benchmark } from "../types";
import { readBeir, type Warn } from "./beir";
import { DownloadError } from "../util/download";
import { pullHub } from "./hub";

import { environmentConfig, SAMPLE_DIR } from "../paths";
import { PACKAGE_ROOT, type Config } from "../config";

/** What was loaded (`sample` when the default fell back to it, `fallback` saying why) from which BEIR folder. */
export interface LoadedBenchmark {
  benchmark: Benchmark;
  origin: "hf" | "sample" | "dir";
  fallback?: string;
  dir: string;
  queriesFile?: string;
}

/** `queriesFile` overrides the source's queries (qrels restricted to them). */
export interface LoadOptions {
  queriesFile?: string;
  /** The data folder and the Hub's settings (default: the environment's, `environmentConfig`). */
  config?: Pick<Config, "dataDir" | "hub">;
  log?: (message: string) => void;
  warn?: Warn;
}

/**
 * Loads `hf` (the Hub dataset, cached), `sample` (the bundled demo) or a BEIR folder. A source named is that source or
 * an error; only the default (`src` undefined: `hf`) falls back to the demo set, saying so, when the Hub cannot be
 * reached and nothing is cached, so that a first run works offline and a script that asked for the benchmark never
 * gets the demo.
 *
 * @example
 * const { benchmark, origin, fallback } = await loadBenchmark(process.env.GBR_NOTEBOOK_DATA);
 * const own = await loadBenchmark("../shared/data/greeklaws-2021", { queriesFile: "…/queries-sample.jsonl" });
 */
export async function loadBenchmark(src: string | undefined, opts: LoadOptions = {}): Promise<LoadedBenchmark> {
  const fallbackToSample = src === undefined;
  src ??= "hf";
  const readOpts = { queriesFile: opts.queriesFile, warn: opts.warn };
  if (src === "sample") {
    return { benchmark: await readBeir(SAMPLE_DIR, { ...readOpts, name: "sample" }), origin: "sample", dir: SAMPLE_DIR, queriesFile: opts.queriesFile };
  }
  if (src === "hf") {
    let pulled;
    try {
      const config = opts.config ?? environmentConfig();
      pulled = await pullHub({ ...config.hub, cacheRoot: path.join(config.dataDir, "hf"), log: opts.log });
    } catch (err) {
      // Only an unreachable Hub falls back; a broken dataset or a bad argument must be seen.
      const unreachable = err instanceof DownloadError && (err.code === "OFFLINE" || err.code === "NETWORK");
      if (!fallbackToSample || !unreachable) throw err;
      const reason = `the Hugging Face Hub could not be used (${err.message})`;
      // A warning (even -q must not hide that the numbers are the demo's); the whole reason goes to metadata.json.
      const say = opts.warn ?? opts.log;
      say?.(`the Hugging Face Hub could not be used (${err.brief ?? err.message}); falling back to the bundled demo set data/sample (not the official benchmark)`);
      if (opts.queriesFile) say?.(`--queries ${opts.queriesFile} is ignored for the demo set`);
      const benchmark = await readBeir(SAMPLE_DIR, { name: "sample", warn: opts.warn });
      return { benchmark, origin: "sample", fallback: reason, dir: SAMPLE_DIR };
    }
    const dir = pulled.beirDir;
    const benchmark = opts.queriesFile
      ? { ...(await readBeir(dir, { ...readOpts, name: "hf" })), revision: pulled.benchmark.revision }
      : { ...pulled.benchmark, name: "hf" };
    return { benchmark, origin: "hf", dir, queriesFile: opts.queriesFile };
  }
  // Relative paths: the working folder, then the package's (a notebook runs in notebooks/ with the CLI's paths).
  const tried = [path.resolve(src), path.resolve(PACKAGE_ROOT, src)];
  const dir = tried.find((d) => fs.existsSync(path.join(d, "corpus.jsonl"))) ?? tried[0];
  if (!fs.existsSync(path.join(dir, "corpus.jsonl"))) throw notAFolder(src, dir);
  return { benchmark: await readBeir(dir, readOpts), origin: "dir", dir, queriesFile: opts.queriesFile };
}

/** A `--data` that is no BEIR folder: a usage error with the near source name, or the BEIR folders inside it. */
function notAFolder(src: string, dir: string): GbrError {
  const st = fs.statSync(dir, { throwIfNoEntry: false });
  const isBeir = (d: string) => fs.existsSync(path.join(dir, d, "corpus.jsonl"));
  const inside = st?.isDirectory() ? fs.readdirSync(dir).filter(isBeir).sort() : [];
  const where = !st ? "does not exist" : st.isDirectory() ? "has no corpus.jsonl" : "is a file";
  const hint = inside.length
    ? `it holds the BEIR folders ${inside.map((d) => path.join(src, d)).join(", ")}: pass one of them`
    : "expected hf (the benchmark on the Hugging Face Hub), sample (the bundled demo) or a folder in BEIR layout";
  return new GbrError(`--data ${src}: ${dir} ${where}${didYouMean(src, ["hf", "sample"])}`, "USAGE", { hint });
}
