import { tuningExperiments } from "./tuning";
import { BUILTIN_PRESETS } from "../dense/presets";
import type { Experiment } from "./experiment";
import type { Config } from "../config";
import { environmentConfig } from "../paths";
import { beyondAuthors } from "./authors-list";
import { retrieverParts, type RetrieverSpec } from "../retrievers";

export { type Experiment, type ExperimentContext, type ExperimentResult } from "./experiment";

/** One named retriever's run as an experiment (composites too); `details` adds what `Run.info` does not say. */
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

const API_PRESETS = BUILTIN_PRESETS.filter((p) => p.provider !== "lsi");
// The paper's nine models; the raw-text EmbeddingGemma (quickstart setting) is a dense row only (docs/dense.md).
const PAPER_PRESETS = API_PRESETS.filter((p) => p.name !== "embgemma-300m-raw");
const LOCAL_PRESETS = PAPER_PRESETS.filter((p) => p.provider === "openai");

const RERANK_FIRST_STAGES = ["bm25-greekstemmer", "reform:bm25-greekstemmer", "react-bm25"] as const;

/** Each first stage re-ranked by every `GBR_RERANKERS` cross-encoder (a non-preset's row fails) and by the LLM. */
function rerankExperiments(rerankers: readonly string[]): Experiment[] {
  return [
    ...(rerankers.length ? rerankers : ["bge-reranker-v2-m3"]).flatMap((r) =>
      RERANK_FIRST_STAGES.map((first) => retrieverExperiment(`rerank:${r}:${first}`, "rerank", `${r} (cross-encoder) re-ranking the top 100 of ${first}`, first === "bm25-greekstemmer" ? [] : ["llm"])),
    ),
    ...RERANK_FIRST_STAGES.map((first) => retrieverExperiment(`rerank:llm:${first}`, "rerank", `Listwise LLM re-ranking (RankGPT window) of the top 100 of ${first}`, ["llm"])),
  ];
}

/**
 * The paper's experiments in the order of its tables, plus `lsi` and re-rankers over BM25, Reform-BM25 and
 * REACT-BM25 (a cross-encoder row per configured re-ranker, GBR_RERANKERS).
 *
 * @example
 * experiments().map((e) => e.id); // ["bm25-greekstemmer", "bm25-spacy", "bm25-grnlp", "dense:qwen3-8b", …]
 */
export function experiments(config: Pick<Config, "rerankers"> = environmentConfig()): Experiment[] {
  return [
  retrieverExperiment("bm25-greekstemmer", "4.1", "BM25-GREEKSTEMMER (Ntais stemmer, 43 stopwords)", []),
  retrieverExperiment("bm25-spacy", "4.1", "BM25-SPACY (spaCy Greek lemma lookup)", []),
  retrieverExperiment("bm25-grnlp", "4.1", "BM25-GR-NLP-TOOLKIT (toolkit-style tokens, no stemming)", []),
  ...API_PRESETS.map((p) => retrieverExperiment(`dense:${p.name}`, "4.1", `Dense ${p.name} (model as recorded with the run)`, [])),
  retrieverExperiment("lsi", "extra", "LSI: TF-IDF over BM25-GREEKSTEMMER tokens, randomized SVD, 256 dims (offline)", [], { dims: 256, seed: 42 }),
  retrieverExperiment("prf:bm25-greekstemmer", "4.4", "BM25-GREEKSTEMMER + PRF (top 10, 30 expansion terms)", [], { docs: 10, terms: 30 }),
  ...PAPER_PRESETS.map((p) => retrieverExperiment(`prf:dense:${p.name}`, "4.4", `Dense ${p.name} + Rocchio PRF (β 0.25, top 10)`, [], { beta: 0.25, docs: 10 })),
  retrieverExperiment("prf:lsi", "extra", "LSI + Rocchio PRF (β 0.25, top 10)", [], { beta: 0.25, docs: 10 }),
  ...LOCAL_PRESETS.map((p) => retrieverExperiment(`rrf:bm25-greekstemmer+dense:${p.name}`, "4.4", `RRF of BM25-GREEKSTEMMER and ${p.name} (k 60)`, [], { k: 60 })),
  retrieverExperiment("rrf:bm25-greekstemmer+lsi", "extra", "RRF of BM25-GREEKSTEMMER and LSI (k 60)", [], { k: 60 }),
  ...["bm25-greekstemmer", "bm25-spacy", "bm25-grnlp"].map((b) =>
    retrieverExperiment(`reform:${b}`, "4.2", `${b.toUpperCase()} on LLM keyword rewrites`, ["llm"]),
  ),
  ...PAPER_PRESETS.map((p) => retrieverExperiment(`reform:dense:${p.name}`, "4.2", `Dense ${p.name} on LLM prose rewrites`, ["llm"])),
  retrieverExperiment("translate:bm25-english", "4.3", "Translation baseline: BM25-ENGLISH on LLM translations", ["llm"]),
  ...PAPER_PRESETS.map((p) => retrieverExperiment(`translate:dense:${p.name}`, "4.3", `Translation baseline: ${p.name} on English`, ["llm"])),
  ...tuningExperiments("bm25-greekstemmer", "BM25-GREEKSTEMMER", [], "sweep.json"),
  ...tuningExperiments("reform:bm25-greekstemmer", "Reform-BM25 (on the rewrites)", ["llm"], "sweep-reform.json", "reform:bm25-greekstemmer"),
  retrieverExperiment("react-bm25", "4.5", "REACT-BM25 (planner → BM25 → observer; rounds as recorded)", ["llm"]),
  ...rerankExperiments(config.rerankers),
  ].map((e) => {
    const why = beyondAuthors(e.id);
    return why ? { ...e, beyond: why } : e;
  });
}

/** An experiment, beyond the authors' list, for each id `list` lacks that names a user's retriever, alone or composed. */
export function userExperiments(ids: readonly string[], list: readonly Experiment[]): Experiment[] {
  const listed = new Set(list.map((e) => e.id));
  return [...new Set(ids)].flatMap((id) => {
    const parts = listed.has(id) ? [] : retrieverParts(id);
    if (!parts.some((p) => p.kind === "user")) return [];
    // A chat model among the built-in parts makes --repeat sample it, as the paper's rows.
    const chat = (p: RetrieverSpec) => ["reform", "translate", "react"].includes(p.kind) || (p.kind === "rerank" && p.reranker === "llm");
    const own = retrieverExperiment(id, "own", `${id} (a retriever of your own)`, parts.some(chat) ? ["llm"] : []);
    return [{ ...own, beyond: "a retriever of your own (registerRetriever)" }];
  });
}
