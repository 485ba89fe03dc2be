/** Step 1 of `gbr reproduce`: the experiments through one BuildCache; unavailable ones are skipped, errors fail. */
import type { LoadedBenchmark } from "../data/source";
import { evaluate, type MetricValues } from "../eval/metrics";
import { BuildCache, createRetriever, runContext, type RetrieverOptions, type RunContextInit } from "../retrievers";
import { sharedCorpus } from "../sparse/bm25-retriever";
import { buildTokenizer } from "../text/registry";
import type { QueryId } from "../types";
import { GbrError, isUnavailable } from "../util/errors";
import { redactSecrets } from "../util/http";
import { configSecrets } from "../config";
import type { Experiment, ExperimentContext, ExperimentResult } from "./registry";

export interface SampleRecord {
  result: ExperimentResult;
  perQuery: Map<QueryId, MetricValues>;
  mean: MetricValues;
  /** Wall time of the sample, shared work done earlier included only where it was done here. */
  seconds: number;
}

export interface ExperimentRecord {
  experiment: Experiment;
  status: "ok" | "skipped" | "failed";
  /** Why it did not run (skipped) or what broke (failed); `brief` in one short line, for the summary's groups. */
  reason?: string;
  /** One per sample (several for LLM experiments with --repeat); empty when it did not run. */
  samples: SampleRecord[];
  seconds: number;
  /** When it ended (ISO 8601). */
  ranAt: string;
  /** Read back from an earlier run's outputs folder. */
  earlier?: boolean;
  /** An earlier result kept because this run skipped or failed it, and why. */
  now?: { status: "skipped" | "failed"; reason: string };
  brief?: string;
}

export interface RunExperimentsOptions {
  log?: (message: string) => void;
  retrieverOptions?: RetrieverOptions;
  /** What the run supplies every retriever; the job's BuildCache is added. */
  context?: RunContextInit;
  /** Samples of each LLM experiment (seeds seed..seed+repeat-1); default 1. */
  repeat?: number;
  seed?: number;
  /** Told each record as it is done (reproduce writes its files there); its error stops the run. */
  onRecord?: (record: ExperimentRecord) => Promise<void>;
  /** Log each new skip reason as it happens (default); off, the caller lists them. */
  reportSkips?: boolean;
}

const SLOW_MS = 2000;

/** Runs the experiments in order, recording each: its samples with per-query metrics, or why it did not run. */
export async function runExperiments(loaded: LoadedBenchmark, experiments: readonly Experiment[], opts: RunExperimentsOptions = {}): Promise<ExperimentRecord[]> {
  const log = opts.log ?? (() => {});
  const bench = loaded.benchmark;
  const repeat = opts.repeat ?? 1;
  const seed = opts.seed ?? 42;
  const cache = new BuildCache();
  const run = runContext({ log, ...opts.context, cache });
  const base: RetrieverOptions = opts.retrieverOptions ?? {};
  const records: ExperimentRecord[] = [];
  const progress = run.onProgress ?? (() => {});
  const contextFor = (options: RetrieverOptions): ExperimentContext => ({
    loaded,
    log,
    run: async (name) => (await createRetriever(name, bench, options, run)).retrieve(bench.queries, 100),
    corpus: async (tokenizer) => sharedCorpus(bench.docs, await buildTokenizer(tokenizer, run), run),
    once: (owner, key, make) => cache.once(owner, key, make),
    progress,
    planning: run.plan !== undefined,
  });
  // Each distinct skip reason is printed once (the summary lists every experiment it covers); failures always.
  const firstWithReason = new Map<string, string>();
  for (const [i, experiment] of experiments.entries()) {
    const tag = `[${i + 1}/${experiments.length}] ${experiment.id}`;
    const n = experiment.needs.includes("llm") ? repeat : 1;
    // Lines of its own only past 2 s; a synchronous step (the sweep) holds the timer back, so `ended` stops a late one.
    let ended = false;
    const slow = setTimeout(() => ended || log(`${tag} …`), SLOW_MS);
    const t0 = performance.now();
    const samples: SampleRecord[] = [];
    try {
      for (let s = 0; s < n; s++) {
        // --repeat samples are separate retrievers (their seed is part of the options).
        const options: RetrieverOptions = n > 1 ? { ...base, sample: s, seed: seed + s } : base;
        const ctx = contextFor(options);
        const started = performance.now();
        const result = await experiment.run(ctx);
        const { mean, perQuery } = evaluate(result.run.rankings, bench.qrels);
        samples.push({ result, perQuery, mean, seconds: (performance.now() - started) / 1000 });
      }
      const seconds = (performance.now() - t0) / 1000;
      ended = true;
      records.push({ experiment, status: "ok", samples, seconds, ranAt: new Date().toISOString() });
      const recall = samples.map((x) => x.mean["Recall@100"].toFixed(4)).join(", ");
      // A plan's runs are built from stand-in answers: their metrics are no result, so none is printed.
      if (seconds * 1000 >= SLOW_MS) log(run.plan ? `${tag}: planned in ${seconds.toFixed(1)} s` : `${tag}: Recall@100 ${recall} in ${seconds.toFixed(1)} s`);
      await opts.onRecord?.(records[records.length - 1]);
    } catch (err) {
      if (records[records.length - 1]?.experiment === experiment) throw err; // onRecord's own failure
      ended = true;
      const skipped = isUnavailable(err);
      const hint = err instanceof GbrError && err.hint ? `; ${err.hint}` : "";
      // A server's text may echo a key it was sent: no configured secret reaches a record or the log.
      const secrets = run.providers ? configSecrets(run.providers.config) : [];
      const reason = redactSecrets(`${(err as Error).message}${hint}`, secrets);
      const brief = err instanceof GbrError && err.brief ? redactSecrets(err.brief, secrets) : undefined;
      records.push({
        experiment,
        status: skipped ? "skipped" : "failed",
        reason,
        ...(brief ? { brief } : {}),
        samples: [],
        seconds: (performance.now() - t0) / 1000,
        ranAt: new Date().toISOString(),
      });
      const first = firstWithReason.get(reason);
      if (first === undefined) firstWithReason.set(reason, experiment.id);
      if (first === undefined && (!skipped || opts.reportSkips !== false)) log(`${tag}: ${skipped ? "skipped" : "FAILED"}: ${reason}`);
      else if (!skipped) log(`${tag}: FAILED: the same reason as ${first}`);
      // Not even a full disk stops the run here: a store that cannot write fails only the experiments that need it.
      await opts.onRecord?.(records[records.length - 1]);
    } finally {
      clearTimeout(slow);
    }
  }
  return records;
}
