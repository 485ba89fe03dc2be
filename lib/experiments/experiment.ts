/** What an experiment is; apart from the registry so experiment modules (tuning.ts) import no cycle into it. */
import type { Run } from "../types";
import type { IndexedCorpus } from "../sparse/bm25-retriever";
import type { LoadedBenchmark } from "../data/source";

/** What an experiment sees; runs, corpora and `once` values are made once per reproduce and shared. */
export interface ExperimentContext {
  loaded: LoadedBenchmark;
  log: (message: string) => void;
  /** A retriever's top-100 run, with `info`, `cost` and (`reform:`) `queries`. */
  run(name: string): Promise<Run>;
  corpus(tokenizer: string): Promise<IndexedCorpus>;
  once<T>(owner: object, key: string, make: () => Promise<T>): Promise<T>;
  progress(label: string, done: number, total: number): void;
  /** `--plan`: runs are made of stand-in answers and only the calls they would send count. */
  planning?: boolean;
}

export interface ExperimentResult {
  run: Run;
  details?: Record<string, unknown>;
  /** Extra outputs to write beside the results, file name -> JSON-serialisable value. */
  artifacts?: Record<string, unknown>;
}

/** One named experiment of the paper; the registry is the single place a number is computed. */
export interface Experiment {
  id: string;
  section: string;
  title: string;
  /** ["llm"]: a chat model makes its run, so `--repeat` samples it. */
  needs: "llm"[];
  /** Why the row is beyond the authors' experiment list (absent: one of their runs); `--official` leaves it out. */
  beyond?: string;
  run(ctx: ExperimentContext): Promise<ExperimentResult>;
}
