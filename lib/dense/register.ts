import type { Benchmark, Query, Run } from "../types";
import { registerRetriever, type FeedbackRetriever, type RetrieverOptions } from "../registry";
import { indexCorpus } from "../sparse/bm25-retriever";
import { greekStemmerTokenizer } from "../text/tokenizers";
import { embedItems } from "./embed";
import { ExactIndex } from "./exact-search";
import { fitLsi } from "./lsi";
import { preset, type EmbeddingPreset } from "./presets";
import { rocchio } from "./rocchio";
import type { Embedder } from "./types";
import type { VectorStore } from "./vector-store";
import { presetFingerprint } from "./presets";

// The provider SDKs and LanceDB take a second or more to load; they are imported when a dense
// retriever is first created, so commands that never embed start fast.

/**
 * The embedder a preset runs on, configured from the environment; rejects with an
 * EmbeddingError of code NOT_CONFIGURED (saying what to set) when its provider is not configured.
 *
 * @example
 * const e = await embedderFor(preset("gemini-001")); // needs GEMINI_API_KEY
 */
export async function embedderFor(p: EmbeddingPreset): Promise<Embedder> {
  // require, not import(): in CommonJS a dynamic import() goes through the ESM loader, which
  // does not resolve extension-less TypeScript paths when only the CJS hook is registered.
  if (p.provider === "gemini") {
    const m = require("./embedders/gemini") as typeof import("./embedders/gemini");
    return m.geminiEmbedderFromEnv(p.model, p.dims);
  }
  if (p.provider === "openai") {
    const m = require("./embedders/openai-compatible") as typeof import("./embedders/openai-compatible");
    return m.openaiEmbedderFromEnv(p.model, p.dims, p.batchSize);
  }
  throw new Error(`preset '${p.name}': provider '${p.provider}' has no API embedder (use the lsi retriever)`);
}

const stores = new Map<string, Promise<VectorStore>>();
/** One store per URI per process: LanceDB connections are reused across retrievers. */
function sharedStore(uri?: string): Promise<VectorStore> {
  const key = uri ?? "";
  let s = stores.get(key);
  if (!s) stores.set(key, (s = (require("./vector-store") as typeof import("./vector-store")).openVectorStore(uri)));
  return s;
}

/**
 * Usage of a dense retriever so far, split into the one-time corpus side and the online query
 * side as the cost table needs it. Tokens include an o200k estimate for vectors that came from
 * the cache (the provider did not count them this time).
 */
export interface DenseUsage {
  requests: number;
  tokens: number;
  cachedVectors: number;
  documentRequests: number;
  documentTokens: number;
  queryRequests: number;
  queryTokens: number;
}

const emptyUsage = (): DenseUsage => ({ requests: 0, tokens: 0, cachedVectors: 0, documentRequests: 0, documentTokens: 0, queryRequests: 0, queryTokens: 0 });

/** A retriever over unit-normalised vectors with exact dot-product search and Rocchio feedback. */
export interface VectorRetriever extends FeedbackRetriever {
  usage: DenseUsage;
}

/**
 * The common part of every dense retriever: documents embedded once into an exact index,
 * queries embedded per call, Rocchio (β = 0.25 over the top 10) for `prf:`.
 *
 * @example
 * const r = vectorRetriever("lsi", bench, docVectors, async (qs) => qs.map((q) => model.embedQuery(q.text)));
 */
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

/**
 * `dense:<preset>`: one of the paper's embedding models (or a user preset) through its API,
 * every vector cached in the LanceDB store, so nothing is embedded twice.
 *
 * @example
 * const r = await denseRetriever("dense:qwen3-8b", bench, {}); // needs GBR_EMBED_BASE_URL
 */
export async function denseRetriever(name: string, bench: Benchmark, opts: RetrieverOptions): Promise<VectorRetriever> {
  const p = preset(name.slice("dense:".length));
  const embedder = await embedderFor(p);
  const store = await sharedStore(opts.vectorStore);
  const usage = emptyUsage();
  const { countTokens } = require("../llm/tokens") as typeof import("../llm/tokens");
  const run = async (items: readonly { id: string; text: string }[], side: "query" | "document") => {
    const r = await embedItems(items, side, p, embedder, store, {
      log: opts.log,
      onProgress: opts.onProgress && ((done, total) => opts.onProgress!(`${p.name} ${side}s`, done, total)),
      estimateTokens: countTokens,
    });
    const tokens = r.tokens + r.cachedTokens;
    usage.requests += r.requests;
    usage.tokens += tokens;
    usage.cachedVectors += r.cached;
    if (side === "document") {
      usage.documentRequests += r.requests;
      usage.documentTokens += tokens;
    } else {
      usage.queryRequests += r.requests;
      usage.queryTokens += tokens;
    }
    return r;
  };
  const docs = await run(bench.docs, "document");
  const exact = vectorRetriever(name, bench, docs.vectors, async (queries) => (await run(queries, "query")).vectors, usage);
  if (!opts.ann) return exact;
  return annRetriever(exact, store, presetFingerprint(p), bench, docs.keys, (queries) => run(queries, "query"), opts);
}

/**
 * Wraps a dense retriever so that `retrieve` uses the store's IVF_PQ index. The index may hold
 * documents of other corpora embedded with the same preset (the cache is shared), so results
 * are mapped back through this corpus's keys and over-fetched to fill k.
 */
async function annRetriever(
  exact: VectorRetriever,
  store: VectorStore,
  fingerprint: string,
  bench: Benchmark,
  docKeys: string[],
  embedQueries: (queries: Query[]) => Promise<{ vectors: Float32Array[] }>,
  opts: RetrieverOptions,
): Promise<VectorRetriever> {
  if (!(await store.hasCurrentAnnIndex(fingerprint))) {
    opts.log?.(`${exact.name}: building the IVF_PQ index (once per preset; may take a minute)`);
    await store.buildAnnIndex(fingerprint);
  }
  const byKey = new Map<string, number[]>();
  docKeys.forEach((k, d) => byKey.set(k, [...(byKey.get(k) ?? []), d]));
  return {
    ...exact,
    name: `${exact.name} (ANN)`,
    async retrieve(queries: Query[], k: number): Promise<Run> {
      const { vectors } = await embedQueries(queries);
      const found = await store.annSearch(fingerprint, vectors, 2 * k, opts.ann);
      const rankings = new Map<string, string[]>();
      const scores = new Map<string, number[]>();
      queries.forEach((q, i) => {
        const ids: string[] = [];
        const sc: number[] = [];
        found[i].keys.forEach((key, r) => {
          for (const d of byKey.get(key) ?? []) if (ids.length < k) (ids.push(bench.docs[d].id), sc.push(found[i].scores[r]));
        });
        rankings.set(q.id, ids);
        scores.set(q.id, sc);
      });
      // Recall against exact search, so nobody trades accuracy for speed without seeing it.
      const reference = await exact.retrieve(queries, k);
      let overlap = 0;
      for (const [qid, list] of reference.rankings) {
        const got = new Set(rankings.get(qid));
        overlap += list.filter((d) => got.has(d)).length / Math.max(1, list.length);
      }
      opts.log?.(`${exact.name}: ANN recall@${k} against exact search ${(overlap / Math.max(1, queries.length)).toFixed(4)}`);
      return { rankings, scores };
    },
  };
}

/**
 * `lsi` (or `lsi:<dims>`): latent semantic indexing over the BM25-GREEKSTEMMER index, fitted on
 * the corpus at creation (seeded, so every run gives the same vectors). Needs no server.
 *
 * @example
 * const r = await lsiRetriever("lsi", bench, {});
 */
export async function lsiRetriever(name: string, bench: Benchmark, opts: RetrieverOptions): Promise<VectorRetriever> {
  const dims = name.includes(":") ? Number(name.slice(name.indexOf(":") + 1)) : 256;
  if (!Number.isInteger(dims) || dims < 1) throw new Error(`'${name}': expected lsi or lsi:<dimensions>, e.g. lsi:128`);
  const t0 = performance.now();
  const corpus = indexCorpus(bench.docs, greekStemmerTokenizer());
  const model = fitLsi(corpus, { dims });
  opts.log?.(`${name}: fitted ${model.dims} dimensions on ${bench.docs.length} documents in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return vectorRetriever(name, bench, model.embedDocs(), async (queries) => queries.map((q) => model.embedQuery(q.text)));
}

registerRetriever("dense:", denseRetriever);
registerRetriever("lsi", lsiRetriever);
registerRetriever("lsi:", lsiRetriever);
