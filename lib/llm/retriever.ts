import { DEFAULT_CONCURRENCY } from "../config";
import path from "node:path";
import type { Benchmark, LlmRunInfo, Query, Retriever, Run, RunCost } from "../types";
import type { RetrieverOptions, RunContext } from "../registry";
import { sharedCorpus } from "../sparse/bm25-retriever";
import { greekStemmerTokenizer } from "../text/tokenizers";
import { addCosts, secondsOf, timed } from "../eval/run-cost";
import { chatParams, type ChatModel, type ChatUsage } from "../models/chat";
import { loadPromptSet, officialPromptsDir, type PromptSet } from "./prompts";
import { reactRun, type ReactContext, type ReactRun } from "./react";
import { reactParserFor } from "./react-prompts";
import type { CachedCallOptions, CachedOutcome } from "./cached-calls";
import { llmCost, llmRunInfo, llmWork, type RequestEntry } from "./run-info";
import { chatForMethod } from "./chat-for-method";
import { reformulate } from "./reformulate";
import { translateItems } from "./translate";

/** Where REACT keeps one benchmark's traces. */
function traceDirOf(bench: Benchmark, opts: RetrieverOptions, ctx: RunContext, model: ChatModel, prompts: PromptSet): string {
  if (ctx.traceDir) return ctx.traceDir;
  const safe = (s: string) => s.replace(/[^A-Za-z0-9_.-]+/g, "_");
  // Each --repeat sample keeps its own traces, or one would resume from another's answers.
  const sample = opts.sample !== undefined || opts.seed !== undefined ? `-sample${opts.sample ?? 0}-seed${opts.seed ?? "none"}` : "";
  const dir = `react-${safe(model.id)}-${prompts.name}${sample}`;
  return path.join(ctx.workDir ?? path.join(ctx.providers.config.dataDir, "llm"), safe(bench.name), dir, "traces");
}

function promptsFor(opts: RetrieverOptions, ctx: RunContext): PromptSet {
  return loadPromptSet(opts.promptSet ?? "project", { cacheDir: officialPromptsDir(ctx.providers.config.dataDir) });
}

const usagesOf = (outcomes: readonly CachedOutcome[]) => outcomes.map((o) => o.response.usage);

function entriesOf(role: string, outcomes: readonly CachedOutcome[]): RequestEntry[] {
  return outcomes.map((o) => ({ role, params: chatParams(o.request), reused: o.reused, servedModel: o.response.servedModel, standIn: o.response.standIn }));
}

/** The inner retriever's run on the queries an LLM wrote, recorded as this one's: queries, LLM record, work of both. */
async function runOn(name: string, inner: Retriever, searched: Query[], k: number, llm: LlmRunInfo, own: RunCost): Promise<Run> {
  const run = await inner.retrieve(searched, k);
  return {
    rankings: run.rankings,
    ...(run.scores ? { scores: run.scores } : {}),
    queries: searched,
    info: { retriever: name, llm, parts: run.info ? [run.info] : [] },
    cost: addCosts(own, run.cost),
  };
}

/** The queries as the LLM wrote them (else the original), the calls' outcomes and time; a plan counts each request once. */
async function llmQueries(queries: Query[], model: ChatModel, opts: RetrieverOptions, ctx: RunContext, write: LlmWrite) {
  let outcomes: CachedOutcome[] = [];
  const asked = ctx.plan ? await chatForMethod(opts, ctx, queries) : model;
  const { value, seconds } = await timed(() => write(asked, { log: ctx.log, onRecords: (o) => (outcomes = o) }));
  return { searched: queries.map((q) => ({ id: q.id, text: value.get(q.id) ?? q.text })), outcomes, seconds };
}
type LlmWrite = (model: ChatModel, o: CachedCallOptions) => Promise<Map<string, string>>;

/** `reform:<retriever>`: the inner retriever on one LLM rewrite per query (keywords for BM25, prose for dense). */
export async function reformRetriever(inner: Retriever, bench: Benchmark, opts: RetrieverOptions, ctx: RunContext, name = `reform:${inner.name}`): Promise<Retriever> {
  const prompts = promptsFor(opts, ctx);
  const model = await chatForMethod(opts, ctx);
  // The sparse BM25 variants take keyword rewrites; everything else (dense, lsi) takes prose.
  const kind = inner.name.startsWith("bm25-") || inner.name.startsWith("prf:bm25-") ? "sparse" : "dense";
  const promptName = kind === "sparse" ? "SPARSE_REWRITE_PROMPT" : "DENSE_REWRITE_PROMPT";
  return {
    name,
    async retrieve(queries: Query[], k: number): Promise<Run> {
      const write: LlmWrite = (m, o) => reformulate(queries, kind, m, prompts, o);
      const { searched, outcomes, seconds } = await llmQueries(queries, model, opts, ctx, write);
      const llm = llmRunInfo(model, prompts, [promptName, "REWRITE_SYSTEM"], entriesOf(`rewrite-${kind}`, outcomes));
      return runOn(name, inner, searched, k, llm, llmCost(model.id, usagesOf(outcomes), seconds));
    },
  };
}

/** `translate:<retriever>`: `innerOn` the LLM's English benchmark; the caller loads its tables first (skip before paying). */
export async function translateRetriever(innerOn: (english: Benchmark) => Promise<Retriever>, bench: Benchmark, opts: RetrieverOptions, ctx: RunContext, name: string): Promise<Retriever> {
  const prompts = promptsFor(opts, ctx);
  const model = await chatForMethod(opts, ctx, bench.docs);
  let articles: CachedOutcome[] = [];
  const { value: english, seconds: articleSeconds } = await timed(() =>
    translateItems(bench.docs, "article", model, prompts, { log: ctx.log, concurrency: 4, onRecords: (o) => (articles = o) }),
  );
  const englishBench: Benchmark = { ...bench, name: `${bench.name}-en`, docs: bench.docs.map((d) => ({ id: d.id, text: english.get(d.id) ?? d.text })) };
  const inner = await innerOn(englishBench);
  return {
    name,
    async retrieve(queries: Query[], k: number): Promise<Run> {
      const write: LlmWrite = (m, o) => translateItems(queries, "query", m, prompts, o);
      const { searched, outcomes, seconds } = await llmQueries(queries, model, opts, ctx, write);
      const entries = [...entriesOf("translate-article", articles), ...entriesOf("translate-query", outcomes)];
      const llm = llmRunInfo(model, prompts, ["TRANSLATION_SYSTEM", "TRANSLATION_USER"], entries);
      const translated = { ...llmWork(usagesOf(articles)), seconds: articleSeconds };
      return runOn(name, inner, searched, k, llm, llmCost(model.id, usagesOf(outcomes), seconds, translated));
    },
  };
}

/** `react-bm25`: the paper's agentic method, one resumable trace per query. */
export async function reactRetriever(name: string, bench: Benchmark, opts: RetrieverOptions, ctx: RunContext): Promise<Retriever> {
  const prompts = promptsFor(opts, ctx);
  const model = await chatForMethod(opts, ctx);
  const corpus = await sharedCorpus(bench.docs, greekStemmerTokenizer(), ctx);
  const scorer = corpus.index.withParams();
  return {
    name,
    async retrieve(queries: Query[], k: number): Promise<ReactRun> {
      const traceDir = traceDirOf(bench, opts, ctx, model, prompts);
      const react: ReactContext = {
        corpus,
        scorer,
        docs: bench.docs,
        planner: model,
        observer: model,
        prompts: prompts.texts,
        parser: reactParserFor(prompts.name),
        rounds: opts.rounds ?? 10,
        seed: opts.seed,
      };
      // Traces are kept only where the answers are ("use"): a plan writes nothing, a refresh asks again.
      const store = ctx.plan || ctx.replay !== "use" ? undefined : await ctx.store();
      const { value: result, seconds } = await timed(() =>
        reactRun(queries, react, {
          traceDir,
          ...(store ? { store } : {}),
          // As many questions at once as the chat server takes; rounds within a question stay in order.
          concurrency: model.capacity ?? DEFAULT_CONCURRENCY.chat,
          onQuery: ({ index, total, resumed }) => ctx.onProgress?.(`react-bm25${resumed ? " (resumed)" : ""}`, index + 1, total),
        }),
      );
      // The record and the work come from the traces (resumed queries included), with the usage recorded then.
      const entries: RequestEntry[] = [];
      const usages: ChatUsage[] = [];
      const resumed = new Set(result.resumed);
      for (const [qid, t] of result.traces) {
        for (const r of t.rounds) {
          for (const [role, call] of [["planner", r.planner] as const, ...r.observer.map((o) => ["observer", o] as const)]) {
            entries.push({ role, params: call.params, reused: resumed.has(qid) || call.replayed === true, servedModel: call.servedModel, standIn: call.standIn });
            usages.push(call.usage);
          }
        }
      }
      // A plan's stand-in rounds keep nothing: a re-ranker over REACT is planned at its most, the articles retrieved.
      const final = result[ctx.plan ? "candidates" : "kept"].get(result.rounds)!;
      const { k1, b, epsilon } = scorer.params;
      return {
        rankings: new Map([...final.rankings].map(([q, r]) => [q, r.slice(0, k)])),
        info: {
          retriever: name,
          rounds: result.rounds,
          bm25: { tokenizer: "greekstemmer", k1, b, epsilon, positiveOnly: true },
          llm: llmRunInfo(model, prompts, ["PLANNER_SYSTEM", "PLANNER_FIRST", "PLANNER_NEXT", "OBSERVER_SYSTEM", "OBSERVER_USER"], entries),
        },
        cost: llmCost(model.id, usages, seconds, secondsOf(corpus.seconds)),
        react: result,
      };
    },
  };
}
