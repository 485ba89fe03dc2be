/** What an experiment is; apart from the registry so experiment modules (tuning.ts) import no cycle into it. */
import type { Run } from "../types";
import type { IndexedCorpus } from "../sparse/bm25-retriever";
import type { LoadedBenchmark } from "../data/source";
import { GbrError, type GbrErrorOptions } from "../util/errors";

/** What an experiment sees: the loaded benchmark, where to report progress, and shared runs. */
export interface ExperimentContext {
  loaded: LoadedBenchmark;
  log: (message: string) => void;
  /** A retriever's top-100 run, made once per reproduce and shared; with `info`, `cost` and (`reform:`) `queries`. */
  run(name: string): Promise<Run>;
  /** The corpus indexed with a tokenizer (e.g. "greekstemmer"), built once per reproduce and shared. */
  corpus(tokenizer: string): Promise<IndexedCorpus>;
  /** A value made once per reproduce for (owner, key) (the job's BuildCache): a tuning pair shares one sweep. */
  once<T>(owner: object, key: string, make: () => Promise<T>): Promise<T>;
  /** Progress of a long step (the run's reporter: one redrawn line on a terminal, a line every few seconds in a log). */
  progress(label: string, done: number, total: number): void;
  /** `--plan`: runs are made of stand-in answers and only the calls they would send count. */
  planning?: boolean;
}

export interface ExperimentResult {
  run: Run;
  /** Anything worth recording next to the numbers (parameters, resource versions, …). */
  details?: Record<string, unknown>;
  /** Extra outputs to write beside the results, file name -> JSON-serialisable value. */
  artifacts?: Record<string, unknown>;
}

/** One named experiment of the paper; the registry is the single place a number is computed. */
export interface Experiment {
  id: string;
  /** Paper section, e.g. "4.1". */
  section: string;
  title: string;
  /** Outside resources it needs; missing ones make it skipped, not failed. */
  needs: ("lemma-tables" | "llm" | "embeddings" | "rerank")[];
  /** Why the row is beyond the authors' experiment list (absent: one of their runs); `--official` leaves it out. */
  beyond?: string;
  run(ctx: ExperimentContext): Promise<ExperimentResult>;
}

/** Thrown by an experiment that cannot run here: listed as skipped with the message as reason; the rest go on. */
export class SkipExperiment extends GbrError {
  constructor(reason: string, options: GbrErrorOptions = {}) {
    super(reason, "SKIP", { ...options, unavailable: true });
    this.name = "SkipExperiment";
  }
}
