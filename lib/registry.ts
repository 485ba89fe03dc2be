import type { Benchmark, Query, Retriever, Run } from "./types";
import type { Bm25Params } from "./sparse/bm25";
import type { TokenizerContext } from "./text/registry";
import type { ReplayCache, Store } from "./store";
import type { Providers } from "./providers";

/**
 * What plan mode needs from its caller: the output tokens to assume per new chat call.
 */
export interface PlanMode {
  outputGuess(modelId: string, cache: ReplayCache | undefined): Promise<number>;
  /**
   * Counts work a real run would send (each once: a run shared by several experiments is built
   * once), for the plan's total: chat calls, texts embedded or rerank requests, and tokens.
   */
  tally(kind: "chat" | "embedding" | "rerank", model: string, calls: number, input: number, output: number): void;
}

export interface RetrieverOptions extends TokenizerContext {
  /**
   * The run's model servers (lib/providers): built once per run from its configuration, so every
   * method of the run shares their limits and rate caps. Absent: made from the environment by
   * `createRetriever`.
   */
  providers?: Providers;
  /** BM25 parameters (rank_bm25 defaults when absent). */
  bm25?: Partial<Bm25Params>;
  /** Drop documents scoring <= 0 (BM25). */
  positiveOnly?: boolean;
  /** Progress messages for long steps such as indexing. */
  log?: (message: string) => void;
  /** LanceDB URI of the embedding cache (default `<data>/lancedb`). */
  vectorStore?: string;
  /**
   * Dense retrieval through the store's approximate (IVF_PQ) index instead of exact search;
   * built on first use. Its recall@100 against exact search is logged.
   */
  ann?: { nprobes?: number; refineFactor?: number };
  /** Chat model for the LLM methods (`--llm`; default GBR_CHAT_MODEL or the provider's default). */
  llm?: string;
  /**
   * The run's store of chat answers and rerank scores (lib/store), opened once by the command;
   * default: the data folder's (`openDataStore`).
   */
  store?: Store;
  /** Replay cache mode for LLM calls: "use" (default), "refresh" (`--no-cache`), "off". */
  replay?: "use" | "refresh" | "off";
  /** Sample index for `--repeat N` (part of the replay key) and the provider seed to send. */
  sample?: number;
  seed?: number;
  /** Prompt set for the LLM methods: the project's (default) or the authors' official ones. */
  promptSet?: "project" | "official";
  /** REACT-BM25 rounds (default 10) and trace folder. */
  rounds?: number;
  traceDir?: string;
  /** `rerank:` retrievers: how many of the first stage's articles are re-scored (default 100). */
  rerankDepth?: number;
  /** The listwise LLM re-ranker's sliding window and step (default 20 and 10, as RankGPT). */
  rerankWindow?: number;
  rerankStep?: number;
  /** Where LLM methods keep rewrites, translations and traces (default `<data>/llm`). */
  workDir?: string;
  /** Reports progress of long embedding jobs. */
  onProgress?: (label: string, done: number, total: number) => void;
  /**
   * Shares what is built between retrievers: with a cache, a retriever asked for twice with the
   * same name and options is built once, its runs for the same queries are computed once, and
   * an indexed corpus is built once per tokenizer (`gbr reproduce` uses one per run).
   */
  cache?: BuildCache;
  /**
   * `gbr reproduce --plan`: build every run without calling a model (lib/experiments/plan.ts).
   * Chat requests are answered from the replay cache or counted and answered empty, texts to
   * embed or pairs to score are counted, and no cache or work file is written.
   */
  plan?: PlanMode;
}

/**
 * What one job builds once and shares: values keyed by an owner object (a benchmark, a corpus's
 * documents) and a string, kept only while the owner lives. A failure is kept too, so everything
 * that depends on, say, an unconfigured provider reports the same reason without trying again.
 */
export class BuildCache {
  private readonly byOwner = new WeakMap<object, Map<string, Promise<unknown>>>();

  /**
   * The value for (owner, key), made by `make` the first time it is asked for.
   */
  once<T>(owner: object, key: string, make: () => Promise<T>): Promise<T> {
    let values = this.byOwner.get(owner);
    if (!values) this.byOwner.set(owner, (values = new Map()));
    let value = values.get(key) as Promise<T> | undefined;
    if (!value) values.set(key, (value = make()));
    return value;
  }
}

/**
 * A retriever that can run a second, pseudo-relevance-feedback pass of its own kind (query
 * expansion for BM25, Rocchio for dense); `prf:<name>` uses it.
 */
export interface FeedbackRetriever extends Retriever {
  retrieveWithFeedback(queries: Query[], k: number): Promise<Run> | Run;
}

/**
 * Type guard for `FeedbackRetriever`.
 */
export function supportsFeedback(r: Retriever): r is FeedbackRetriever {
  return typeof (r as FeedbackRetriever).retrieveWithFeedback === "function";
}

/** Builds a retriever over a benchmark's corpus. */
export type RetrieverFactory = (name: string, bench: Benchmark, opts: RetrieverOptions) => Promise<Retriever>;

/**
 * How a composite retriever gets its parts (the first stage of a re-ranker, the inner retriever
 * of a reformulation): by name, built by the wiring (lib/retrievers.ts) with the same options, so
 * that with a job's BuildCache a part is the very retriever the other experiments use. `bench`
 * defaults to the composite's own (translation builds its part on the English benchmark).
 */
export type PartBuilder = (name: string, bench?: Benchmark) => Promise<Retriever>;
