import path from "node:path";
import type { Benchmark, Query, Retriever, Run, Work } from "../types";
import { secondsOf, timed, zeroWork } from "../eval/run-cost";
import { measuredTime } from "../util/progress-line";
import type { FeedbackRetriever, RetrieverOptions, RunContext } from "../registry";
import { embedItems } from "./embed";
import { ExactIndex } from "./exact-search";
import { fitLsi, type LsiCorpus } from "./lsi";
import { allPresets, LOCAL_FORMS, userPresetsFile, preset, presetFingerprint, renderTemplate, textKey, type EmbeddingPreset } from "./presets";
import type { EmbedNaming } from "../config";
import { rocchio } from "./rocchio";
import { mergeProvenance, openVectorStore, type EmbeddingProvenance, type VectorStore } from "../store/vector-store";
import { countTemplated, countTokens } from "../text/tokens";
import { embedderForMethod, planEmbedder, planVectorView } from "./plan-embed";
import type { EndpointStats } from "../models/servers";
import { EmbeddingError, LOCAL_THREADS, localRuntime, type Embedder, type LocalModel } from "../models/embed";
import { isUnavailable, type GbrError } from "../util/errors";

/** The vector store (the run's, else `GBR_VECTOR_STORE`, else `<data folder>/lancedb`), opened once per job. */
function storeFor(ctx: RunContext): Promise<VectorStore> {
  const { vectorStore, dataDir } = ctx.providers.config;
  const uri = ctx.vectorStore ?? vectorStore ?? path.join(dataDir, "lancedb");
  return ctx.cache ? ctx.cache.once(ctx.providers, `vector store ${uri}`, () => openVectorStore(uri)) : openVectorStore(uri);
}

/** Usage so far, corpus and queries apart (`cachedVectors`: both; `documentSeconds`: embedding the corpus, cache reads
 * included; `queryTexts`: one online embedding per query, whatever the batching); tokens as reported, else estimated. */
const ZERO_USAGE = {
  cachedVectors: 0,
  documentCachedVectors: 0,
  documentRequests: 0,
  documentTokens: 0,
  documentTokensEstimated: 0,
  documentSeconds: 0,
  queryRequests: 0,
  queryTexts: 0,
  queryTokens: 0,
  queryTokensEstimated: 0,
};
export type DenseUsage = typeof ZERO_USAGE & EmbeddingProvenance;
const emptyUsage = (): DenseUsage => ({ ...ZERO_USAGE, servedModels: [], standIn: false });

/** A retriever over unit-normalised vectors with exact dot-product search and Rocchio feedback. */
export type VectorRetriever = FeedbackRetriever & { usage: DenseUsage };

/** What a `dense:` retriever runs, for run metadata; nothing secret (the endpoint is scheme, host, port). */
export type DenseRetrieverInfo = Pick<EmbeddingPreset, "provider" | "model" | "queryTemplate" | "documentTemplate" | "input"> & {
  preset: string;
  endpoint: string;
  batchSize: number;
  naming: EmbedNaming;
  /** In-process runs: the runtime, dtype and threads, and how many articles exceed the model's limit (cut). */
  runtime?: string;
  truncatedArticles?: number;
};

export type DenseRetriever = VectorRetriever & { readonly info: DenseRetrieverInfo };

/** Documents embedded once, queries per call, Rocchio (β = 0.25 over the top 10) for `prf:`. */
export function vectorRetriever(
  name: string,
  bench: Benchmark,
  docVectors: readonly Float32Array[],
  embedQueries: (queries: Query[]) => Promise<Float32Array[]>,
  usage: DenseUsage = emptyUsage(),
): VectorRetriever {
  const index = new ExactIndex(docVectors);
  const toRun = (queries: Query[], tops: ReturnType<ExactIndex["search"]>): Run => {
    const rankings = new Map<string, string[]>();
    const scores = new Map<string, number[]>();
    queries.forEach((q, i) => {
      rankings.set(q.id, Array.from(tops[i].docs, (d) => bench.docs[d].id));
      scores.set(q.id, Array.from(tops[i].scores));
    });
    return { rankings, scores };
  };
  return {
    name,
    usage,
    async retrieve(queries: Query[], k: number): Promise<Run> {
      return toRun(queries, index.search(await embedQueries(queries), k));
    },
    async retrieveWithFeedback(queries: Query[], k: number): Promise<Run> {
      const vectors = await embedQueries(queries);
      const first = index.search(vectors, 10);
      const expanded = vectors.map((v, i) => rocchio(v, Array.from(first[i].docs, (d) => index.vector(d)), 0.25));
      return toRun(queries, index.search(expanded, k));
    },
  };
}

/** `dense:<preset>`: an embedding model through its API, every vector cached in LanceDB, so nothing is embedded twice. */
export async function denseRetriever(presetName: string, bench: Benchmark, opts: RetrieverOptions, ctx: RunContext): Promise<DenseRetriever> {
  const name = `dense:${presetName}`;
  const naming = ctx.providers.config.embed.naming;
  const p = preset(presetName, allPresets(userPresetsFile(ctx.providers.config), naming, ctx.providers.config.local));
  // --plan: nothing is sent or stored; the benchmark's own texts are counted once across experiments by their key.
  const fingerprint = presetFingerprint(p);
  let embedder: Embedder;
  try {
    embedder = embedderForMethod(p, ctx, (text, side) => `${fingerprint} ${textKey(`${side}\n${text}`)}`);
  } catch (err) {
    // No server: the reason says whether --local would run the preset (and roughly how long) or does not apply.
    if (!isUnavailable(err) || !(p.local || ctx.providers.config.local)) throw err;
    const [more, brief] = p.local
      ? [offerLocal(p.local, bench), "or --local (in-process)"]
      : [`--local does not apply: ${p.name} has no in-process form (those with one: ${Object.keys(LOCAL_FORMS).join(", ")})`, "no in-process form"];
    const e = err as GbrError;
    throw new EmbeddingError(`${e.message}; ${more}`, "NOT_CONFIGURED", { brief: `${e.brief ?? e.message}; ${brief}`, ...(e.hint ? { hint: e.hint } : {}) });
  }
  const realStore = await storeFor(ctx);
  const store = ctx.plan ? planVectorView(realStore) : realStore;
  const usage = emptyUsage();
  const run = async (items: readonly { id: string; text: string }[], side: "query" | "document") => {
    // Texts made from a plan's stand-in answers (rewrites, translations) count one each: a run's would differ.
    const made = ctx.plan && !ctx.plan.given(items) ? ctx.plan : undefined;
    const r = await embedItems(items, side, p, made ? planEmbedder(p) : embedder, store, {
      log: ctx.log,
      onProgress: ctx.onProgress && ((done, total) => ctx.onProgress!(`${p.name} ${side === "query" ? "queries" : "documents"}`, done, total)),
      estimateTokens: ctx.plan ? (text) => countTemplated(side === "query" ? p.queryTemplate : p.documentTemplate, text) : countTokens,
    });
    made?.tally("embedding", p.model, items.length - r.cached, r.tokens, 0);
    usage.cachedVectors += r.cached;
    Object.assign(usage, mergeProvenance(usage, r));
    if (side === "document") {
      usage.documentRequests += r.requests;
      usage.documentTokens += r.tokens;
      usage.documentTokensEstimated += r.estimatedTokens;
    } else {
      usage.queryRequests += r.requests;
      usage.queryTexts += items.length;
      usage.queryTokens += r.tokens;
      usage.queryTokensEstimated += r.estimatedTokens;
    }
    return r;
  };
  const t0 = performance.now();
  const docs = await run(bench.docs, "document");
  usage.documentSeconds = (performance.now() - t0) / 1000;
  if (ctx.plan && p.provider === "local" && docs.cached < bench.docs.length) {
    const sample = bench.docs.slice(0, 8).map((d) => renderTemplate(p, "document", d.text));
    const real = ctx.providers.embedder(p);
    ctx.plan.note(await measuredTime(p.name, "articles to embed", sample, bench.docs.length - docs.cached, (texts) => real.embed(texts, "document")));
  }
  const info: DenseRetrieverInfo = {
    preset: p.name,
    provider: p.provider,
    model: p.model,
    endpoint: embedder.endpoint,
    queryTemplate: p.queryTemplate,
    documentTemplate: p.documentTemplate,
    batchSize: embedder.maxBatch,
    ...(p.provider === "openai" ? { input: p.input ?? "array" } : {}),
    naming,
  };
  if (p.provider === "local" && p.local && !ctx.plan) {
    info.runtime = localRuntime(p.local);
    // Counted when this run embedded articles (the model is loaded then): a run from the cache needs no model.
    if (docs.requests > 0) info.truncatedArticles = await embedder.overLimit?.(bench.docs.map((d) => renderTemplate(p, "document", d.text)));
  }
  const exact: DenseRetriever = {
    ...vectorRetriever(name, bench, docs.vectors, async (queries) => (await run(queries, "query")).vectors, usage),
    info,
  };
  usage.documentCachedVectors = docs.cached;
  const endpoints = embedder.endpointStats ? () => embedder.endpointStats!() : undefined;
  return recorded(exact, bench.docs.length, endpoints);
}

/** What a preset with an in-process form offers when no server is set: `--local`, and roughly how long it would take. */
function offerLocal(m: LocalModel, bench: Benchmark): string {
  // ~3 characters a token in Greek; 2 FLOPs per parameter and token; ~20 GFLOP/s a core for fp32 on a CPU (a guess).
  const tokens = bench.docs.reduce((n, d) => n + d.text.length / 3, 0);
  const minutes = (tokens * 2 * (m.params ?? 300) * 1e6) / (LOCAL_THREADS * 20e9) / 60;
  const rough = minutes < 1 ? "under a minute" : `~${minutes < 10 ? minutes.toFixed(1) : Math.round(minutes)} min`;
  return `--local runs ${m.model} in-process instead (${rough} for the ${bench.docs.length} articles on ${LOCAL_THREADS} threads, a rough estimate)`;
}

/** Each run records what ran and its cost: queries online (one call per text), the corpus one-time; runs must not overlap. */
function recorded(r: DenseRetriever, articles: number, endpoints?: () => EndpointStats[]): DenseRetriever {
  const u = r.usage;
  const wrap =
    (retriever: string, search: (queries: Query[], k: number) => Promise<Run> | Run) =>
    async (queries: Query[], k: number): Promise<Run> => {
      const before = { texts: u.queryTexts, tokens: u.queryTokens, estimated: u.queryTokensEstimated, cached: u.cachedVectors };
      const { value: run, seconds } = await timed(() => search(queries, k));
      const online: Work = { seconds, llmCalls: 0, llmInput: 0, llmOutput: 0, embeddingCalls: u.queryTexts - before.texts, embeddingTokens: u.queryTokens - before.tokens, embeddingTokensEstimated: u.queryTokensEstimated - before.estimated };
      const corpus: Work = { ...zeroWork(), seconds: u.documentSeconds, embeddingCalls: articles, embeddingTokens: u.documentTokens, embeddingTokensEstimated: u.documentTokensEstimated };
      const served = { ...(u.servedModels.length ? { servedModel: u.servedModels.join(", ") } : {}), ...(u.standIn ? { standIn: true } : {}) };
      const cachedVectors = u.documentCachedVectors + (u.cachedVectors - before.cached);
      const spread = endpoints ? { endpoints: endpoints() } : {};
      return { ...run, info: { retriever, embedding: { ...r.info, ...served, cachedVectors, ...spread } }, cost: { online, corpus, embeddingModel: r.info.model } };
    };
  return {
    ...r,
    retrieve: wrap(r.name, (q, k) => r.retrieve(q, k)),
    retrieveWithFeedback: wrap(`prf:${r.name}`, (q, k) => r.retrieveWithFeedback(q, k)),
  };
}

/** `lsi` (or `lsi:<dims>`; plain `lsi` fits min(256, documents)): LSI over BM25-GREEKSTEMMER's index, fitted (seeded). */
export async function lsiRetriever(bm25: Retriever, bench: Benchmark, ctx: RunContext, dims: number | undefined, name: string): Promise<VectorRetriever> {
  const corpus = (bm25 as { corpus?: LsiCorpus & { seconds: number } }).corpus;
  if (!corpus) throw new Error(`'${name}': the bm25-greekstemmer retriever does not expose its indexed corpus`);
  const { value: model, seconds: fitSeconds } = await timed(() => fitLsi(corpus, { dims: dims ?? 256 }));
  ctx.log(`${name}: fitted ${model.dims} dimensions on ${bench.docs.length} documents in ${fitSeconds.toFixed(1)} s`);
  const lsi = vectorRetriever(name, bench, model.embedDocs(), async (queries) => queries.map((q) => model.embedQuery(q.text)));
  const oneTime = secondsOf(corpus.seconds + fitSeconds);
  const record = (retriever: string, search: (queries: Query[], k: number) => Promise<Run> | Run) => async (queries: Query[], k: number): Promise<Run> => {
    const { value: run, seconds } = await timed(() => search(queries, k));
    return {
      ...run,
      info: { retriever, embedding: { model: `LSI over BM25-GREEKSTEMMER tokens, ${model.dims} dims`, endpoint: "local" } },
      cost: { online: secondsOf(seconds), corpus: oneTime },
    };
  };
  return { ...lsi, retrieve: record(name, lsi.retrieve), retrieveWithFeedback: record(`prf:${name}`, lsi.retrieveWithFeedback) };
}
