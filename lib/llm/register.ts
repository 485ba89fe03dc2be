import path from "node:path";
import type { Benchmark, Query, Run } from "../types";
import { createRetriever, registerRetriever, type RetrieverOptions } from "../registry";
import { dataDir } from "../paths";
import { indexCorpus } from "../sparse/bm25-retriever";
import { greekStemmerTokenizer } from "../text/tokenizers";
import type { ChatModel } from "./types";
import { fillPrompt, loadPromptSet, type PromptSet } from "./prompts";
import { reactRun, type ReactPrompts, type ReactRunResult } from "./react";

/** What the LLM methods spent so far: the cost table reads it. */
export interface LlmUsage {
  calls: number;
  input: number;
  output: number;
  seconds: number;
  model?: string;
}

/** Adds the usage recorded with per-item answers (reused ones included) to a usage total. */
function addRecords(usage: LlmUsage, records: readonly { usage: { input: number; output: number }; seconds: number }[]): void {
  for (const r of records) {
    usage.calls++;
    usage.input += r.usage.input;
    usage.output += r.usage.output;
    usage.seconds += r.seconds;
  }
}

const emptyLlmUsage = (model: ChatModel): LlmUsage => ({ calls: 0, input: 0, output: 0, seconds: 0, model: model.id.slice(model.id.indexOf(":") + 1) });

/**
 * The chat model the LLM methods use: `--llm` / `GBR_CHAT_MODEL` from the environment's
 * provider, behind the replay cache (so a rerun costs nothing and a shared cache file
 * reproduces a run exactly).
 *
 * @example
 * const llm = await chatModelFor({ llm: "openai/gpt-oss-120b" });
 */
export async function chatModelFor(opts: RetrieverOptions): Promise<ChatModel> {
  // Loaded here, not at the top: the SDKs take a while to load and most commands never chat.
  const { chatFromEnv } = require("./chat-from-env") as typeof import("./chat-from-env");
  const { openReplayCache, withReplay } = require("../cache/replay") as typeof import("../cache/replay");
  const provider = chatFromEnv(opts.llm);
  let model: ChatModel = provider;
  if (opts.replay !== "off") {
    const cache = await openReplayCache(undefined, { log: opts.log });
    model = withReplay(provider, cache, { mode: opts.replay ?? "use", sample: opts.sample });
  }
  if (opts.seed === undefined) return model;
  // The seed of a --repeat sample is added outside the replay layer, so that it is part of the
  // replay key as well as of the request.
  const inner = model;
  return { id: inner.id, complete: (req) => inner.complete({ ...req, seed: req.seed ?? opts.seed }) };
}

/** Where an LLM method keeps its per-item results (rewrites, translations, traces) for one benchmark. */
function workDir(bench: Benchmark, opts: RetrieverOptions, method: string, model: ChatModel, prompts: PromptSet): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9_.-]+/g, "_");
  // Each --repeat sample keeps its own results: the per-item files would otherwise resume from
  // another sample's answers.
  const sample = opts.sample !== undefined || opts.seed !== undefined ? `-sample${opts.sample ?? 0}-seed${opts.seed ?? "none"}` : "";
  return path.join(opts.workDir ?? path.join(dataDir(), "llm"), safe(bench.name), `${method}-${safe(model.id)}-${prompts.name}${sample}`);
}

/**
 * The paper's REACT prompts from a prompt set: the set's planner and observer templates, with
 * the parts the method builds in code (query history, kept articles, the document block)
 * rendered here, in one place.
 *
 * @example
 * const prompts = reactPrompts(loadPromptSet("project"));
 */
export function reactPrompts(set: PromptSet): ReactPrompts {
  const t = set.texts;
  const docBlock = (docs: { id: string; text: string }[]) => docs.map((d) => `[doc_id: ${d.id}]\n${d.text}\n[/doc]`).join("\n\n");
  return {
    plannerSystem: t.PLANNER_SYSTEM,
    plannerFirst: ({ originalQuery }) => fillPrompt(t.PLANNER_FIRST, { original_query: originalQuery }),
    plannerNext: (q) =>
      fillPrompt(t.PLANNER_NEXT, {
        original_query: q.originalQuery,
        round_idx: q.roundIdx,
        max_rounds: q.maxRounds,
        query_history: q.queryHistory.map((s, i) => `${i + 1}. ${s}`).join("\n"),
        kept_docs_summary: q.keptDocs.length ? docBlock(q.keptDocs) : "(κανένα ακόμη)",
      }),
    observerSystem: t.OBSERVER_SYSTEM,
    observerUser: ({ originalQuery, docs }) => fillPrompt(t.OBSERVER_USER, { original_query: originalQuery, retrieved_docs_block: docBlock(docs) }),
  };
}

/** The sparse BM25 variants take keyword rewrites; everything else (dense, lsi) takes prose. */
function rewriteKindFor(inner: string): "sparse" | "dense" {
  return inner.startsWith("bm25-") || inner.startsWith("prf:bm25-") ? "sparse" : "dense";
}

/**
 * `reform:<retriever>`: each query rewritten once by the LLM (sparse keywords for BM25, legal
 * prose for dense models), the rewrites saved per query (resumable), then the inner retriever
 * run on the rewrites.
 *
 * @example
 * const r = await createRetriever("reform:bm25-greekstemmer", bench, { llm: "openai/gpt-oss-120b" });
 */
registerRetriever("reform:", async (name, bench, opts) => {
  const innerName = name.slice("reform:".length);
  const inner = await createRetriever(innerName, bench, opts);
  const { reformulate } = require("./reformulate") as typeof import("./reformulate");
  const prompts = loadPromptSet(opts.promptSet ?? "project");
  const model = await chatModelFor(opts);
  const kind = rewriteKindFor(innerName);
  // Usage from the saved rewrites, so a resumed run reports the work the rewrites cost.
  const usage = emptyLlmUsage(model);
  const retriever = {
    name,
    usage,
    /** The rewritten queries of the last call (the tuning sweep on reformulated queries reads them). */
    lastQueries: undefined as Query[] | undefined,
    async retrieve(queries: Query[], k: number): Promise<Run> {
      const dir = workDir(bench, opts, `reform-${kind}`, model, prompts);
      const rewrites = await reformulate(queries, kind, model, prompts, {
        outFile: path.join(dir, "rewrites.jsonl"),
        log: opts.log,
        onRecords: (records) => addRecords(usage, records),
      });
      retriever.lastQueries = queries.map((q) => ({ id: q.id, text: rewrites.get(q.id) ?? q.text }));
      return inner.retrieve(retriever.lastQueries, k);
    },
  };
  return retriever;
});

/**
 * `translate:<retriever>`: every article and query translated to English by the LLM (cached per
 * item, resumable), then the inner retriever (e.g. bm25-english, or a dense preset) run on the
 * English benchmark.
 *
 * @example
 * const r = await createRetriever("translate:bm25-english", bench, { llm: "openai/gpt-oss-120b" });
 */
registerRetriever("translate:", async (name, bench, opts) => {
  const innerName = name.slice("translate:".length);
  const { translateItems } = require("./translate") as typeof import("./translate");
  const prompts = loadPromptSet(opts.promptSet ?? "project");
  const model = await chatModelFor(opts);
  const dir = workDir(bench, opts, "translate", model, prompts);
  // The corpus translation is the one-time part of the cost; queries are online. Both come from
  // the saved translations, so a resumed run reports what they cost.
  const corpusUsage = emptyLlmUsage(model);
  const usage = emptyLlmUsage(model);
  const english = await translateItems(bench.docs, "article", model, prompts, {
    outFile: path.join(dir, "articles.jsonl"),
    log: opts.log,
    concurrency: 4,
    onRecords: (records) => {
      addRecords(corpusUsage, records);
      addRecords(usage, records);
    },
  });
  const englishBench: Benchmark = { ...bench, name: `${bench.name}-en`, docs: bench.docs.map((d) => ({ id: d.id, text: english.get(d.id) ?? d.text })) };
  const inner = await createRetriever(innerName, englishBench, opts);
  return {
    name,
    usage,
    corpusUsage,
    async retrieve(queries: Query[], k: number): Promise<Run> {
      const q = await translateItems(queries, "query", model, prompts, {
        outFile: path.join(dir, "queries.jsonl"),
        log: opts.log,
        onRecords: (records) => addRecords(usage, records),
      });
      return inner.retrieve(queries.map((x) => ({ id: x.id, text: q.get(x.id) ?? x.text })), k);
    },
  };
});

/**
 * `react-bm25`: the paper's agentic method (planner → BM25-GREEKSTEMMER → observer, `rounds`
 * rounds, default 10), one JSON trace per query in the trace folder, resumable per query. The
 * retriever keeps the last full result for the round table.
 *
 * @example
 * const r = await createRetriever("react-bm25", bench, { rounds: 10, traceDir: "outputs/hf/traces" });
 */
registerRetriever("react-bm25", async (name, bench, opts) => {
  const prompts = loadPromptSet(opts.promptSet ?? "project");
  const model = await chatModelFor(opts);
  const corpus = indexCorpus(bench.docs, greekStemmerTokenizer());
  const usage = emptyLlmUsage(model);
  const retriever = {
    name,
    usage,
    last: undefined as ReactRunResult | undefined,
    async retrieve(queries: Query[], k: number): Promise<Run> {
      const traceDir = opts.traceDir ?? path.join(workDir(bench, opts, "react", model, prompts), "traces");
      const result = await reactRun(
        queries,
        {
          corpus,
          scorer: corpus.index.withParams(),
          docs: bench.docs,
          planner: model,
          observer: model,
          prompts: reactPrompts(prompts),
          rounds: opts.rounds ?? 10,
          seed: opts.seed,
        },
        {
          traceDir,
          resume: true,
          onQuery: ({ index, total, resumed }) => opts.onProgress?.(`react-bm25${resumed ? " (resumed)" : ""}`, index + 1, total),
        },
      );
      retriever.last = result;
      // Totals from the traces, resumed queries included: the work the run represents.
      for (const t of result.totals.values()) {
        usage.calls += t.calls;
        usage.input += t.input;
        usage.output += t.output;
        usage.seconds += t.seconds;
      }
      const final = result.kept.get(result.rounds)!;
      return { rankings: new Map([...final.rankings].map(([q, r]) => [q, r.slice(0, k)])) };
    },
  };
  return retriever;
});
