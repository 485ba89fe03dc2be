/** The types every pipeline stage shares; data flows one way: Benchmark -> Retriever -> Run -> Evaluation. */

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

/** Per-query metadata (legal area, exam session, question number). */
export interface QueryMeta {
  area?: string;
  date?: string;
  number?: number;
}

/** Corpus order is significant: BM25 ties are broken by it, as the reference implementation does. */
export interface Benchmark {
  name: string;
  revision?: string;
  docs: Doc[];
  queries: Query[];
  qrels: Map<QueryId, Set<DocId>>;
  meta: Map<QueryId, QueryMeta>;
}

/** One query's judgments: relevant documents (binary), or grades (>= 1 relevant as trec_eval's `-l 1`, and nDCG's gain). */
export type Judged = ReadonlySet<DocId> | ReadonlyMap<DocId, number>;

/** Judgments of every query, binary or graded (see `Judged`); what `evaluate` scores a run against. */
export type Qrels = ReadonlyMap<QueryId, Judged>;

/** The relevant documents (grade >= 1), in judgment order. */
export function relevantDocs(judged: Judged): ReadonlySet<DocId> {
  if (judged instanceof Set) return judged;
  return new Set([...(judged as ReadonlyMap<DocId, number>)].filter(([, g]) => g >= 1).map(([d]) => d));
}

/** How many relevant documents (grade >= 1) a query has: 0 means it is not evaluated. */
export const relevantCount = (judged: Judged): number => relevantDocs(judged).size;

/** Queries without a relevant document (BEIR sets often ship more queries than judgments): searched, left out of every metric. */
export function unjudgedQueries(b: { queries: readonly Query[]; qrels: Qrels }): QueryId[] {
  return b.queries.filter((q) => relevantCount(b.qrels.get(q.id) ?? new Set()) === 0).map((q) => q.id);
}

/** The one line that counts them, as every command and table says it. */
export function notEvaluatedNote(n: number): string {
  return `${n} ${n === 1 ? "query has" : "queries have"} no judgments: not evaluated`;
}

/** Doc ids, best first, unique. */
export type Ranking = DocId[];

export interface Work {
  /** Wall time when the work was done (cached or shared work counts the time it took when made). */
  seconds: number;
  llmCalls: number;
  llmInput: number;
  llmOutput: number;
  /** One per text embedded, whatever the batching. */
  embeddingCalls: number;
  /** As the provider reported them, else estimates. */
  embeddingTokens: number;
  /** The part of `embeddingTokens` that is an o200k estimate. */
  embeddingTokensEstimated: number;
  /** Cross-encoder rerank requests (cached pairs count as when they were scored). */
  rerankCalls?: number;
  rerankPairs?: number;
}

/** Cost split as the paper's Table 17: online (queries) and corpus (one-time work); cached calls count as when made. */
export interface RunCost {
  online: Work;
  corpus: Work;
  llmModel?: string;
  embeddingModel?: string;
}

/** How a run's chat requests were made, recorded from the requests themselves (never from intended settings). */
export interface LlmRunInfo {
  /** As sent to the provider, e.g. "openai/gpt-oss-120b". */
  model: string;
  /** "openai" (any OpenAI-compatible server) or "gemini". */
  provider: string;
  /** scheme://host:port of the server (never credentials or a path). */
  endpoint: string;
  prompts: { name: string; commit: string | null; sha256: Record<string, string> };
  /** "official" or "project". */
  parser: string;
  /** Per role, each distinct parameter set sent (OpenAI field names) with its requests, cached ones included. */
  requests: Record<string, (Record<string, string | number> & { calls: number })[]>;
  /** Requests answered from the store instead of the server. */
  reused: number;
  servedModels: string[];
  /** Some answer came from the project's own test double: the run is a stand-in, not a result. */
  standIn: boolean;
  /** With several chat servers: each one's calls made now (not replays). */
  endpoints?: { endpoint: string; sent: number; answered: number; failed: number; lastError?: string }[];
}

/** What produced a run, as recorded while it ran; composite runs list the runs they were made from in `parts`. */
export interface RunInfo {
  retriever: string;
  bm25?: { tokenizer: string; k1: number; b: number; epsilon: number; positiveOnly?: boolean };
  /** The dense retriever's description (preset, model as sent, endpoint host, templates …). */
  embedding?: Record<string, unknown>;
  llm?: LlmRunInfo;
  /** REACT-BM25: rounds run per query. */
  rounds?: number;
  /** A re-ranker over a first stage, which is in `parts`. */
  rerank?: RerankRunInfo;
  parts?: RunInfo[];
}

export interface RerankRunInfo {
  /** The preset name, or "llm" for the listwise chat re-ranker. */
  reranker: string;
  kind: "cross-encoder" | "listwise-llm";
  /** As sent (the chat model for "llm"). */
  model: string;
  endpoint: string;
  /** In-process models: the runtime, dtype and threads. */
  runtime?: string;
  depth: number;
  /** Listwise only: the sliding window and its step. */
  window?: number;
  step?: number;
  /** Cross-encoder: pairs scored, of them from the score cache, and articles cut to the model's limit. */
  pairs?: number;
  reusedPairs?: number;
  truncated?: number;
  /** In-process cross-encoders: pairs this run scored that were over the model's token limit (cut). */
  truncatedPairs?: number;
  /** Requests sent now (not cached answers). */
  calls: number;
  /** Listwise only: answers with no usable id, whose window kept its order. */
  unparsed?: number;
  servedModels: string[];
  standIn: boolean;
  endpoints?: { endpoint: string; sent: number; answered: number; failed: number; lastError?: string }[];
}

/** A ranked list per query, optionally with the scores that produced it. */
export interface Run {
  rankings: Map<QueryId, Ranking>;
  scores?: Map<QueryId, number[]>;
  /** The tag of a TREC run file's lines, when it has one. */
  tag?: string;
  info?: RunInfo;
  cost?: RunCost;
  /** The queries actually searched with, when they differ from the input (e.g. LLM rewrites). */
  queries?: Query[];
}

export interface Tokenizer {
  name: string;
  tokenize(text: string): string[];
}

export interface Retriever {
  name: string;
  retrieve(queries: Query[], k: number): Promise<Run> | Run;
}

/**
 * The one name of queries (and articles) without a legal area, in every table, figure and notebook.
 *
 * @example
 * byArea(perQuery, new Map())[0].group === NO_AREA; // true
 */
export const NO_AREA = "(no area)";
