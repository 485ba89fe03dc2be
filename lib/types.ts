/**
 * The few types every stage of the pipeline shares. Data flows one way:
 * Benchmark -> Retriever -> Run -> Evaluation.
 */

export type DocId = string;
export type QueryId = string;

/**
 * The statute a `SOURCE::ARTICLE` id belongs to (the whole id when it has no `::`).
 *
 * @example
 * sourceOf("ΑΚ::914"); // "ΑΚ"
 */
export function sourceOf(id: string): string {
  const i = id.indexOf("::");
  return i < 0 ? id : id.slice(0, i);
}

/** One statutory article (or any passage) of the corpus. */
export interface Doc {
  id: DocId;
  text: string;
}

/** One query: for GreekBarRetrieval, case facts followed by the exam question. */
export interface Query {
  id: QueryId;
  text: string;
}

/** Per-query metadata of the benchmark (legal area, exam session, question number). */
export interface QueryMeta {
  area?: string;
  date?: string;
  number?: number;
}

/**
 * A retrieval benchmark. Corpus order is significant: BM25 ties are broken by it,
 * exactly as the reference implementation does.
 */
export interface Benchmark {
  name: string;
  revision?: string;
  docs: Doc[];
  queries: Query[];
  /** Binary relevance: query id -> relevant doc ids. */
  qrels: Map<QueryId, Set<DocId>>;
  meta: Map<QueryId, QueryMeta>;
}

/** Doc ids, best first, unique. */
export type Ranking = DocId[];

/**
 * Work counted by a run: its wall time, chat calls and tokens, embedding calls and tokens.
 */
export interface Work {
  /**
   * Wall time of the work when it was done (a run served from a cache, or a part shared with
   * another run, counts the time it took when it was made).
   */
  seconds: number;
  llmCalls: number;
  llmInput: number;
  llmOutput: number;
  /** Online: one per query embedded (what a deployed system sends, whatever the batching); corpus: one per article. */
  embeddingCalls: number;
  /** As the provider reported them (stored with each cached vector), estimates where it reported none. */
  embeddingTokens: number;
  /** The part of `embeddingTokens` that is an o200k estimate. */
  embeddingTokensEstimated: number;
  /** Requests to a cross-encoder's rerank endpoint (cached pairs count as when they were scored). */
  rerankCalls?: number;
  /** (query, article) pairs a cross-encoder scored. */
  rerankPairs?: number;
}

/**
 * What a run cost, as the paper's Table 17 splits it: the work of answering the queries (online)
 * and the one-time work on the corpus (indexing, embedding or translating the articles, fitting
 * LSI). Calls served from a cache count with the usage recorded when they were made, so a rerun
 * reports the same calls and tokens.
 */
export interface RunCost {
  online: Work;
  corpus: Work;
  /** The chat model and the embedding model behind the calls (price lookup). */
  llmModel?: string;
  embeddingModel?: string;
}

/**
 * How a run's chat requests were made, recorded from the requests themselves (never from a table
 * of intended settings), plus the model, endpoint, prompts and parser behind them.
 */
export interface LlmRunInfo {
  /** Model name as sent to the provider, e.g. "openai/gpt-oss-120b". */
  model: string;
  /** "openai" (any OpenAI-compatible server) or "gemini". */
  provider: string;
  /** scheme://host:port of the server (never credentials or a path). */
  endpoint: string;
  /** The prompt set, where it came from and the sha256 of each prompt used. */
  prompts: { name: string; commit: string | null; sha256: Record<string, string> };
  /** "official" (the authors' parsers) or "project". */
  parser: string;
  /**
   * Per role (planner, observer, rewrite-sparse, rewrite-dense, translate-article, translate-query):
   * each distinct set of generation parameters sent (OpenAI field names) with its number of
   * requests. Requests answered from a cache count: they are the requests whose answers were used.
   */
  requests: Record<string, (Record<string, string | number> & { calls: number })[]>;
  /** Of the requests, how many were answered from the replay cache or saved results instead of the server. */
  reused: number;
  /** The model names the server reported in its answers (may differ from `model`, the name requested). */
  servedModels: string[];
  /** Some answer came from the project's own test double: the run is a stand-in, not a result. */
  standIn: boolean;
  /** With several chat servers: each one's requests sent, answered and failed (calls made now, not replays). */
  endpoints?: { endpoint: string; sent: number; answered: number; failed: number; lastError?: string }[];
}

/**
 * What produced a run, as recorded while it ran. Composite runs (fusion, feedback, reformulation)
 * list the runs they were made from in `parts`.
 */
export interface RunInfo {
  retriever: string;
  bm25?: { tokenizer: string; k1: number; b: number; epsilon: number; positiveOnly?: boolean };
  /** The dense retriever's description (preset, model as sent, endpoint host, templates …). */
  embedding?: Record<string, unknown>;
  llm?: LlmRunInfo;
  /** REACT-BM25: rounds run per query. */
  rounds?: number;
  /** A re-ranker over a first stage (`rerank:<reranker>:<retriever>`); the first stage is in `parts`. */
  rerank?: RerankRunInfo;
  parts?: RunInfo[];
}

/**
 * How a re-ranked run was made, recorded while it ran.
 */
export interface RerankRunInfo {
  /** The preset name, or "llm" for the listwise chat re-ranker. */
  reranker: string;
  kind: "cross-encoder" | "listwise-llm";
  /** Model as sent (the chat model for "llm"). */
  model: string;
  /** scheme://host:port of the server (never credentials or a path). */
  endpoint: string;
  /** How many of the first stage's articles per query were re-scored. */
  depth: number;
  /** Listwise only: the sliding window and its step. */
  window?: number;
  step?: number;
  /** Cross-encoder: pairs scored in all, of which taken from the score cache, and articles cut to the model's limit. */
  pairs?: number;
  reusedPairs?: number;
  truncated?: number;
  /** Requests sent now (not counting cached answers). */
  calls: number;
  /** Listwise only: answers with no usable id, whose window kept its order. */
  unparsed?: number;
  /** Model names the server reported. */
  servedModels: string[];
  /** Some answer came from the project's own test double: the run is a stand-in. */
  standIn: boolean;
  /** With several servers: each one's requests sent, answered and failed. */
  endpoints?: { endpoint: string; sent: number; answered: number; failed: number; lastError?: string }[];
}

/** A ranked list per query, optionally with the scores that produced it. */
export interface Run {
  rankings: Map<QueryId, Ranking>;
  scores?: Map<QueryId, number[]>;
  /** What produced the run (parameters as sent, models, prompts), when the retriever records it. */
  info?: RunInfo;
  /** Provider work of the run, when it called providers. */
  cost?: RunCost;
  /** The queries actually searched with, when they differ from the input (e.g. LLM rewrites). */
  queries?: Query[];
}

/** Turns text into the terms an index stores. */
export interface Tokenizer {
  name: string;
  tokenize(text: string): string[];
}

/** Anything that ranks the corpus for a batch of queries. */
export interface Retriever {
  name: string;
  retrieve(queries: Query[], k: number): Promise<Run> | Run;
}

/**
 * The one name of queries (and articles) without a legal area, in every table, figure and
 * notebook: the evaluation's per-area groups, Table 6 and the report all use it.
 *
 * @example
 * byArea(perQuery, new Map())[0].group === NO_AREA; // true
 */
export const NO_AREA = "(no area)";
