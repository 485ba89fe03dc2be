/**
 * What an experiment is: its context, its result, and how it says it cannot run here. Apart from
 * the registry so that modules defining experiments (tuning.ts) import no cycle back into it.
 */
import type { Run } from "../types";
import type { IndexedCorpus } from "../sparse/bm25-retriever";
import type { LoadedBenchmark } from "../data/source";
import { GbrError, type GbrErrorOptions } from "../util/errors";

/** What an experiment sees: the loaded benchmark, where to report progress, and shared runs. */
export interface ExperimentContext {
  loaded: LoadedBenchmark;
  log: (message: string) => void;
  /**
   * The top-100 run of a named retriever on the benchmark's queries, computed once per
   * reproduce and shared: `rrf:a+b` fuses the runs of a and b, `prf:x` reuses x's index. The run
   * carries what produced it (`info`), its provider work (`cost`) and, for `reform:`, the
   * rewritten queries (`queries`).
   */
  run(name: string): Promise<Run>;
  /**
   * The benchmark's corpus tokenised and indexed with a tokenizer (e.g. "greekstemmer"), built
   * once per reproduce and shared with every retriever that indexes the same corpus.
   */
  corpus(tokenizer: string): Promise<IndexedCorpus>;
  /**
   * A value made once per reproduce for (owner, key), shared by the experiments that ask for it
   * (the job's BuildCache): the tuning rows of a pair share one sweep.
   */
  once<T>(owner: object, key: string, make: () => Promise<T>): Promise<T>;
}

export interface ExperimentResult {
  run: Run;
  /** Anything worth recording next to the numbers (parameters, resource versions, …). */
  details?: Record<string, unknown>;
  /** Extra outputs to write beside the results, file name -> JSON-serialisable value. */
  artifacts?: Record<string, unknown>;
}

/**
 * One named experiment of the paper. The registry is the single place a number is computed,
 * shared by the CLI, the notebooks and the report.
 */
export interface Experiment {
  id: string;
  /** Paper section, e.g. "4.1". */
  section: string;
  title: string;
  /** Outside resources it needs; missing ones make it skipped, not failed. */
  needs: ("lemma-tables" | "llm" | "embeddings" | "rerank")[];
  run(ctx: ExperimentContext): Promise<ExperimentResult>;
}

/**
 * Thrown by an experiment that cannot run here; the message is the reason shown to the user.
 * `reproduce` lists the experiment as skipped, not failed, and goes on with the others.
 */
export class SkipExperiment extends GbrError {
  constructor(reason: string, options: GbrErrorOptions = {}) {
    super(reason, "SKIP", { ...options, unavailable: true });
    this.name = "SkipExperiment";
  }
}
