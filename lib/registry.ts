import type { Benchmark, Query, Retriever, Run } from "./types";
import type { Bm25Params } from "./sparse/bm25";
import type { TokenizerContext } from "./text/registry";
import type { ReplayCache, Store } from "./store";
import type { Providers } from "./providers";

/** What plan mode needs from its caller: the output tokens to assume per new chat call, and a tally of the work. */
export interface PlanMode {
  outputGuess(modelId: string, cache: ReplayCache | undefined): Promise<number>;
  /** Counts work a real run would send; a request with a `key` (the store's) is counted once, as a run asks the store first. */
  tally(kind: "chat" | "embedding" | "rerank", model: string, calls: number, input: number, output: number, key?: string): void;
  /** Whether the items are the benchmark's own questions or articles, not texts made from stand-in answers. */
  given(items: readonly object[]): boolean;
  /** `count()`, remembered by `key` for the plan: a request several experiments or rounds render is counted once. */
  tokensOf(key: string, count: () => number): number;
  /** A line for the plan's notes (once per text), e.g. an in-process model's measured rate and time. */
  note(text: string): void;
}

/** A method's own parameters (what a BuildCache keys a built retriever by); the run supplies a RunContext. */
export interface RetrieverOptions {
  /** BM25 parameters (rank_bm25 defaults when absent). */
  bm25?: Partial<Bm25Params>;
  /** Drop documents scoring <= 0 (BM25). */
  positiveOnly?: boolean;
  /** Chat model for the LLM methods (`--llm`; default GBR_CHAT_MODEL or the provider's default). */
  llm?: string;
  /** Sample index for `--repeat N` (part of the replay key) and the provider seed to send. */
  sample?: number;
  seed?: number;
  /** Prompt set for the LLM methods: the project's (default) or the authors' official ones. */
  promptSet?: "project" | "official";
  /** REACT-BM25 rounds (default 10). */
  rounds?: number;
  /** `rerank:`: first-stage articles re-scored (default 100), and the listwise window and step (20, 10). */
  rerankDepth?: number;
  rerankWindow?: number;
  rerankStep?: number;
}

/** What a run gives every retriever it builds; `runContext` (lib/retrievers.ts) fills the defaults. */
export interface RunContext extends TokenizerContext {
  /** The run's model servers, built once so every method shares their limits and rate caps. */
  providers: Providers;
  /** The run's store of chat answers, rerank scores and traces, opened once on first use. */
  store: () => Promise<Store>;
  /** LLM answers: "use" the store (default), "refresh" them (`--no-cache`), or keep none ("off"). */
  replay: "use" | "refresh" | "off";
  log: (message: string) => void;
  /** Progress of long jobs (embedding, REACT). */
  onProgress?: (label: string, done: number, total: number) => void;
  /** Shares built retrievers, their runs and indexed corpora within a job. */
  cache?: BuildCache;
  /** `gbr reproduce --plan`: count the work a real run would send, call nothing, write nothing. */
  plan?: PlanMode;
  /** LanceDB URI of the embedding cache (default `<data>/lancedb`). */
  vectorStore?: string;
  /** Where REACT keeps its traces: under `workDir` (default `<data>/llm`), or exactly in `traceDir`. */
  workDir?: string;
  traceDir?: string;
}

/** A RunContext in part: `runContext` completes it; `store` may be an open store. */
/** `local`: without given providers, the environment's with in-process models on (as `--local`). */
export type RunContextInit = Partial<Omit<RunContext, "store">> & { store?: Store | (() => Promise<Store>); local?: boolean };

/** What a job builds once and shares, per (owner, key); a failure is kept too, so it is reported once. */
export class BuildCache {
  private readonly byOwner = new WeakMap<object, Map<string, Promise<unknown>>>();

  once<T>(owner: object, key: string, make: () => Promise<T>): Promise<T> {
    let values = this.byOwner.get(owner);
    if (!values) this.byOwner.set(owner, (values = new Map()));
    let value = values.get(key) as Promise<T> | undefined;
    if (!value) values.set(key, (value = make()));
    return value;
  }
}

/** A retriever with a pseudo-relevance-feedback pass of its own kind (query expansion, Rocchio), for `prf:`. */
export interface FeedbackRetriever extends Retriever {
  retrieveWithFeedback(queries: Query[], k: number): Promise<Run> | Run;
}

export function supportsFeedback(r: Retriever): r is FeedbackRetriever {
  return typeof (r as FeedbackRetriever).retrieveWithFeedback === "function";
}

export type RetrieverFactory = (name: string, bench: Benchmark, opts: RetrieverOptions, ctx: RunContext) => Promise<Retriever>;
