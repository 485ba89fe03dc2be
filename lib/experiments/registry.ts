import type { Run } from "../types";
import type { LoadedBenchmark } from "../data/source";
import { DEFAULT_BM25 } from "../sparse/bm25";
import { BUILTIN_PRESETS } from "../dense/presets";

/** What an experiment sees: the loaded benchmark, where to report progress, and shared runs. */
export interface ExperimentContext {
  loaded: LoadedBenchmark;
  log: (message: string) => void;
  /**
   * The top-100 run of a named retriever on the benchmark's queries, computed once per
   * reproduce and shared: `rrf:a+b` fuses the runs of a and b, `prf:x` reuses x's index.
   */
  run(name: string): Promise<Run>;
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

/**
 * An experiment that is one named retriever's run (any name `createRetriever` accepts,
 * composites included: `prf:…`, `rrf:a+b`).
 */
function retrieverExperiment(id: string, section: string, title: string, needs: Experiment["needs"], details?: Record<string, unknown>): Experiment {
  return {
    id,
    section,
    title,
    needs,
    async run(ctx) {
      return { run: await ctx.run(id), details };
    },
  };
}

const BM25_DETAILS = { ...DEFAULT_BM25, k: 100 };
const LLM_DETAILS = { temperature: 0.2, topP: 1, reasoningEffort: "low" };
const API_PRESETS = BUILTIN_PRESETS.filter((p) => p.provider !== "lsi");
const LOCAL_PRESETS = API_PRESETS.filter((p) => p.provider === "openai");

/**
 * The paper's experiments, in the order of its tables, plus `lsi` (an offline dense baseline
 * made here). Dense rows need an embedding provider; without one they are skipped with the
 * reason.
 *
 * @example
 * EXPERIMENTS.map((e) => e.id); // ["bm25-greekstemmer", "bm25-spacy", "bm25-grnlp", "dense:qwen3-8b", …]
 */
export const EXPERIMENTS: readonly Experiment[] = [
  retrieverExperiment("bm25-greekstemmer", "4.1", "BM25-GREEKSTEMMER (Ntais stemmer, 43 stopwords)", [], BM25_DETAILS),
  retrieverExperiment("bm25-spacy", "4.1", "BM25-SPACY (spaCy Greek lemma lookup)", ["lemma-tables"], BM25_DETAILS),
  retrieverExperiment("bm25-grnlp", "4.1", "BM25-GR-NLP-TOOLKIT (toolkit-style tokens, no stemming)", [], BM25_DETAILS),
  ...API_PRESETS.map((p) => retrieverExperiment(`dense:${p.name}`, "4.1", `Dense ${p.name} (${p.model})`, ["embeddings"], { model: p.model, dims: p.dims ?? null })),
  retrieverExperiment("lsi", "extra", "LSI: TF-IDF over BM25-GREEKSTEMMER tokens, randomized SVD, 256 dims (offline)", [], { dims: 256, seed: 42 }),
  retrieverExperiment("prf:bm25-greekstemmer", "4.4", "BM25-GREEKSTEMMER + PRF (top 10, 30 expansion terms)", [], { docs: 10, terms: 30 }),
  ...API_PRESETS.map((p) => retrieverExperiment(`prf:dense:${p.name}`, "4.4", `Dense ${p.name} + Rocchio PRF (β 0.25, top 10)`, ["embeddings"], { beta: 0.25, docs: 10 })),
  retrieverExperiment("prf:lsi", "extra", "LSI + Rocchio PRF (β 0.25, top 10)", [], { beta: 0.25, docs: 10 }),
  ...LOCAL_PRESETS.map((p) => retrieverExperiment(`rrf:bm25-greekstemmer+dense:${p.name}`, "4.4", `RRF of BM25-GREEKSTEMMER and ${p.name} (k 60)`, ["embeddings"], { k: 60 })),
  retrieverExperiment("rrf:bm25-greekstemmer+lsi", "extra", "RRF of BM25-GREEKSTEMMER and LSI (k 60)", [], { k: 60 }),
  ...["bm25-greekstemmer", "bm25-spacy", "bm25-grnlp"].map((b) =>
    retrieverExperiment(`reform:${b}`, "4.2", `${b.toUpperCase()} on LLM keyword rewrites`, b === "bm25-spacy" ? ["llm", "lemma-tables"] : ["llm"], LLM_DETAILS),
  ),
  ...API_PRESETS.map((p) => retrieverExperiment(`reform:dense:${p.name}`, "4.2", `Dense ${p.name} on LLM prose rewrites`, ["llm", "embeddings"], LLM_DETAILS)),
  retrieverExperiment("translate:bm25-english", "4.3", "Translation baseline: BM25-ENGLISH on LLM translations", ["llm", "lemma-tables"], LLM_DETAILS),
  ...API_PRESETS.map((p) => retrieverExperiment(`translate:dense:${p.name}`, "4.3", `Translation baseline: ${p.name} on English`, ["llm", "embeddings"], LLM_DETAILS)),
  retrieverExperiment("react-bm25", "4.5", "REACT-BM25 (planner → BM25 → observer, 10 rounds)", ["llm"], { ...LLM_DETAILS, rounds: 10 }),
];
