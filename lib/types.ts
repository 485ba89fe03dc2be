/**
 * The few types every stage of the pipeline shares. Data flows one way:
 * Benchmark -> Retriever -> Run -> Evaluation.
 */

export type DocId = string;
export type QueryId = string;

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
 *
 * @example
 * const b: Benchmark = { name: "toy", docs: [{ id: "ΑΚ::1", text: "..." }], queries: [],
 *   qrels: new Map(), meta: new Map() };
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

/** A ranked list per query, optionally with the scores that produced it. */
export interface Run {
  rankings: Map<QueryId, Ranking>;
  scores?: Map<QueryId, number[]>;
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
