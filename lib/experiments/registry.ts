import type { Run } from "../types";
import type { LoadedBenchmark } from "../data/source";
import { createRetriever } from "../retrievers";
import { DEFAULT_BM25 } from "../sparse/bm25";

/** What an experiment sees: the loaded benchmark and where to report progress. */
export interface ExperimentContext {
  loaded: LoadedBenchmark;
  log: (message: string) => void;
}

export interface ExperimentResult {
  run: Run;
  /** Anything worth recording next to the numbers (parameters, resource versions, …). */
  details?: Record<string, unknown>;
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
  needs: ("lemma-tables" | "llm" | "embeddings")[];
  run(ctx: ExperimentContext): Promise<ExperimentResult>;
}

/**
 * Thrown by an experiment that cannot run here; the message is the reason shown to the user.
 * `reproduce` lists the experiment as skipped, not failed, and goes on with the others.
 *
 * @example
 * if (!process.env.OPENAI_API_KEY) throw new SkipExperiment("OPENAI_API_KEY is not set");
 */
export class SkipExperiment extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "SkipExperiment";
  }
}

function sparseBaseline(id: string, title: string, needs: Experiment["needs"]): Experiment {
  return {
    id,
    section: "4.1",
    title,
    needs,
    async run({ loaded, log }) {
      const retriever = await createRetriever(id, loaded.benchmark, { log });
      return { run: await retriever.retrieve(loaded.benchmark.queries, 100), details: { ...DEFAULT_BM25, k: 100 } };
    },
  };
}

/**
 * The paper's experiments, in the order of its tables.
 *
 * @example
 * EXPERIMENTS.map((e) => e.id); // ["bm25-greekstemmer", "bm25-spacy", "bm25-grnlp"]
 */
export const EXPERIMENTS: readonly Experiment[] = [
  sparseBaseline("bm25-greekstemmer", "BM25-GREEKSTEMMER (Ntais stemmer, 43 stopwords)", []),
  sparseBaseline("bm25-spacy", "BM25-SPACY (spaCy Greek lemma lookup)", ["lemma-tables"]),
  sparseBaseline("bm25-grnlp", "BM25-GR-NLP-TOOLKIT (toolkit-style tokens, no stemming)", []),
];
