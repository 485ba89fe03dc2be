/** The wiring: a retriever name is parsed once into a typed description, and `build` hands its parts to each folder's constructors. */
import type { Benchmark, Query, Retriever } from "./types";
import { BuildCache, supportsFeedback, type FeedbackRetriever, type RetrieverFactory, type RetrieverOptions, type RunContext, type RunContextInit } from "./registry";
import { denseRetriever, lsiRetriever } from "./dense/retriever";
import { fuseRetriever, parseFuseName, rrfRetriever, type Fusion } from "./fusion/retriever";
import { reactRetriever, reformRetriever, translateRetriever } from "./llm/retriever";
import { spacyLoader } from "./data/spacy-tables";
import { environmentConfig } from "./paths";
import { createProviders } from "./providers";
import { chatForMethod } from "./llm/chat-for-method";
import { openDataStore, type Store } from "./store";
import { loadPromptSet, officialPromptsDir, type PromptSetName } from "./llm/prompts";
import { reformulate, type RewriteKind } from "./llm/reformulate";
import { reranker, rerankRetriever } from "./rerank/retriever";
import { bm25Retriever } from "./sparse/retriever";
import { buildTokenizer, TOKENIZERS } from "./text/registry";
import { GbrError } from "./util/errors";
import { didYouMean } from "./util/suggest";

export * from "./registry";

/** What a retriever name means; composite kinds hold the descriptions of their parts. */
export type RetrieverSpec =
  | { kind: "bm25"; name: string }
  | { kind: "dense"; name: string; preset: string }
  | { kind: "lsi"; name: string; dims?: number }
  | { kind: "prf"; name: string; of: RetrieverSpec }
  | { kind: "rrf"; name: string; of: RetrieverSpec[] }
  | { kind: "fuse"; name: string; fusion: Fusion; of: RetrieverSpec[] }
  | { kind: "reform"; name: string; of: RetrieverSpec }
  | { kind: "translate"; name: string; of: RetrieverSpec }
  | { kind: "react"; name: string }
  | { kind: "rerank"; name: string; reranker: string; of: RetrieverSpec }
  | { kind: "user"; name: string; factory: RetrieverFactory };

const userFactories = new Map<string, RetrieverFactory>();

/**
 * Makes a retriever of your own available by name, alone or composed, to `createRetriever` and as an experiment id to
 * `reproduce`'s `only` (`gbr search` and `gbr reproduce` load the module that calls this with `--require FILE`). It
 * wins over a built-in of the same name. A name ending in `:` registers a prefix (`mine:` serves `mine:anything`).
 *
 * @example
 * registerRetriever("first-doc", async (_name, bench) => ({
 *   name: "first-doc",
 *   retrieve: (queries) => ({ rankings: new Map(queries.map((q) => [q.id, [bench.docs[0].id]])) }),
 * }));
 */
export function registerRetriever(name: string, factory: RetrieverFactory): void {
  userFactories.set(name, factory);
}

/** A retriever name's description and those of all its parts, outermost first (none when the name is malformed). */
export function retrieverParts(name: string): RetrieverSpec[] {
  try {
    return flat(parseRetrieverName(name));
  } catch {
    return [];
  }
}

const flat = (s: RetrieverSpec): RetrieverSpec[] => [s, ...("of" in s ? [s.of].flat().flatMap(flat) : [])];

const BUILT_IN_FORMS = ["dense:<preset>", "lsi", "lsi:<dims>", "prf:<retriever>", "rrf:<a>+<b>", "fuse:<method>:<a>+<b>", "reform:<retriever>", "translate:<retriever>", "react-bm25", "rerank:<reranker>:<retriever>"];

/**
 * The names and forms `createRetriever` accepts: the BM25 variants, the built-in forms, then registered user names.
 *
 * @example
 * retrieverNames().slice(0, 4); // ["bm25-greekstemmer", "bm25-spacy", "bm25-grnlp", "bm25-english"]
 */
export function retrieverNames(): string[] {
  return [...Object.keys(TOKENIZERS), ...BUILT_IN_FORMS, ...registeredRetrievers()];
}

/** The names registered with `registerRetriever`, in registration order. */
export const registeredRetrievers = (): string[] => [...userFactories.keys()];

/** A retriever name as a typed description; a malformed name is a usage error saying which form was meant. */
export function parseRetrieverName(name: string): RetrieverSpec {
  const colon = name.indexOf(":");
  const user = userFactories.get(name) ?? (colon > 0 ? userFactories.get(name.slice(0, colon + 1)) : undefined);
  if (user) return { kind: "user", name, factory: user };
  if (name in TOKENIZERS) return { kind: "bm25", name };
  if (name === "react-bm25") return { kind: "react", name };
  if (name === "lsi") return { kind: "lsi", name };
  if (name.startsWith("lsi:")) {
    const dims = Number(name.slice(4));
    if (!(Number.isInteger(dims) && dims >= 1)) throw usage(`'${name}': expected lsi or lsi:<dimensions>, e.g. lsi:128`);
    // A fit holds documents × dimensions dense matrices: past 4,096 it takes minutes and gigabytes (the paper uses 256).
    if (dims > 4096) throw usage(`'${name}': at most 4096 dimensions (the paper uses 256)`);
    return { kind: "lsi", name, dims };
  }
  const rest = name.slice(colon + 1);
  const prefix = colon > 0 ? name.slice(0, colon) : "";
  switch (prefix) {
    case "dense":
      if (!rest) throw usage(`'${name}': expected dense:<preset>, e.g. dense:qwen3-8b`);
      return { kind: "dense", name, preset: rest };
    case "prf":
    case "reform":
    case "translate":
      return { kind: prefix, name, of: parseRetrieverName(rest) };
    case "rrf": {
      const parts = rest.split("+").filter(Boolean);
      if (parts.length < 2) throw usage(`'${name}': rrf needs at least two retrievers, as rrf:<a>+<b>`);
      return { kind: "rrf", name, of: parts.map(parseRetrieverName) };
    }
    case "fuse": {
      const { fusion, parts } = parseFuseName(name);
      return { kind: "fuse", name, fusion, of: parts.map(parseRetrieverName) };
    }
    case "rerank": {
      // Re-ranker names (presets, `llm`) have no colon; the first stage may (`rerank:llm:reform:bm25-greekstemmer`).
      const m = /^([^:]+):(.+)$/.exec(rest);
      if (!m) throw usage(`'${name}' is not rerank:<reranker>:<retriever> (e.g. rerank:bge-reranker-v2-m3:bm25-greekstemmer or rerank:llm:react-bm25)`);
      if (m[2].startsWith("rerank:")) throw usage(`'${name}': re-ranking a re-ranked run is not supported`);
      return { kind: "rerank", name, reranker: m[1], of: parseRetrieverName(m[2]) };
    }
  }
  throw usage(`unknown retriever '${name}'${didYouMean(name, retrieverNames())}; available: ${retrieverNames().join(", ")}`);
}

/**
 * A retriever by name (see `retrieverNames`); `opts` are the method's parameters, `ctx` what the run supplies (defaults
 * from the environment). The corpus is indexed (or embedded) once, when created; with `ctx.cache`, once per job.
 *
 * @example
 * const bm25 = await createRetriever("bm25-greekstemmer", bench, { bm25: { k1: 1.2 } });
 * const run = await bm25.retrieve(bench.queries, 100);
 */
export async function createRetriever(name: string, bench: Benchmark, opts: RetrieverOptions = {}, ctx: RunContextInit = {}): Promise<Retriever> {
  const moved = Object.keys(opts).filter((k) => CONTEXT_KEYS.has(k));
  if (moved.length) throw usage(`createRetriever: ${moved.join(", ")} belong${moved.length > 1 ? "" : "s"} to the run context now: pass { ${moved.join(", ")} } as the fourth argument`);
  const spec = parseRetrieverName(name);
  const run = runContext(ctx);
  if (run.cache) return run.cache.once(bench, `retriever ${name} ${JSON.stringify(opts, Object.keys(opts).sort())}`, async () => withRunMemo(await build(spec, bench, opts, run)));
  return build(spec, bench, opts, run);
}

/** A complete RunContext, made once per run: the providers' configuration (else the environment's), its store opened lazily. */
export function runContext(init: RunContextInit = {}): RunContext {
  if (isComplete(init)) return init;
  const log = init.log ?? (() => {});
  const providers = init.providers ?? createProviders({ ...environmentConfig(), ...(init.local ? { local: true } : {}) }, { log });
  const { dataDir, replayFile } = providers.config;
  const given = init.store;
  let opened: Promise<Store> | undefined;
  const store = typeof given === "function" ? given : () => (opened ??= given ? Promise.resolve(given) : openDataStore({ dataDir, replayFile, log }));
  return { loadSpacyLexicon: spacyLoader(providers.config), replay: "use", ...init, log, providers, store };
}

function isComplete(ctx: RunContextInit): ctx is RunContext {
  return ctx.providers !== undefined && typeof ctx.store === "function" && ctx.replay !== undefined && ctx.log !== undefined && ctx.loadSpacyLexicon !== undefined;
}

/**
 * Queries rewritten by the chat model as `reform:` does ("sparse": keywords, "dense": legal prose), through the store.
 *
 * @example
 * const rewrites = await rewriteQueries(bench.queries.slice(0, 1), "sparse");
 * rewrites.get(bench.queries[0].id); // "μίσθωση καταγγελία …"
 */
export async function rewriteQueries(
  queries: readonly { id: string; text: string }[],
  kind: RewriteKind,
  opts: { llm?: string; prompts?: PromptSetName } = {},
  ctx: RunContextInit = {},
): Promise<Map<string, string>> {
  const run = runContext(ctx);
  const model = await chatForMethod(opts, run);
  return reformulate(queries, kind, model, loadPromptSet(opts.prompts ?? "project", { cacheDir: officialPromptsDir(run.providers.config.dataDir) }));
}

/** RunContext fields a JavaScript caller may pass in the options, where they would be silently ignored. */
const CONTEXT_KEYS = new Set(["providers", "store", "replay", "log", "onProgress", "cache", "plan", "vectorStore", "workDir", "traceDir", "cacheDir", "offline", "loadSpacyLexicon"]);

async function build(spec: RetrieverSpec, bench: Benchmark, opts: RetrieverOptions, ctx: RunContext): Promise<Retriever> {
  const part = (of: RetrieverSpec, on = bench) => createRetriever(of.name, on, opts, ctx);
  const parts = async (of: RetrieverSpec[]) => {
    const built: Retriever[] = [];
    for (const p of of) built.push(await part(p));
    return built;
  };
  switch (spec.kind) {
    case "bm25":
      return bm25Retriever(spec.name, bench, opts, ctx);
    case "dense":
      return denseRetriever(spec.preset, bench, opts, ctx);
    case "lsi":
      // Plain `lsi` fits min(256, documents); dimensions asked for by name must exist.
      if (spec.dims !== undefined && spec.dims > bench.docs.length) throw usage(`'${spec.name}': ${spec.dims} dimensions, more than the ${bench.docs.length} documents of ${bench.name}; use at most lsi:${bench.docs.length}`);
      return lsiRetriever(await createRetriever("bm25-greekstemmer", bench, opts, ctx), bench, ctx, spec.dims, spec.name);
    case "prf":
      return prfRetriever(await part(spec.of), spec.name);
    case "rrf":
      return rrfRetriever(await parts(spec.of), spec.name);
    case "fuse":
      return fuseRetriever(await parts(spec.of), spec.fusion, spec.name);
    case "reform":
      return reformRetriever(await part(spec.of), bench, opts, ctx, spec.name);
    case "translate":
      // Its tokenizers' tables first: one that cannot be had skips the method before the first paid translation.
      for (const p of flat(spec.of)) if (p.kind === "bm25") await buildTokenizer(p.name, ctx);
      return translateRetriever((english) => part(spec.of, english), bench, opts, ctx, spec.name);
    case "react":
      return reactRetriever(spec.name, bench, opts, ctx);
    case "rerank": {
      // The re-ranker first: one that cannot run here is reported before the first stage is built.
      const by = await reranker(spec.reranker, bench, opts, ctx);
      return rerankRetriever(await part(spec.of), by, spec.name);
    }
    case "user":
      return spec.factory(spec.name, bench, opts, ctx);
  }
}

/** `prf:<name>`: the retriever's own `FeedbackRetriever` pass (query expansion for BM25, Rocchio for dense and LSI). */
function prfRetriever(inner: Retriever, name = `prf:${inner.name}`): Retriever {
  if (!supportsFeedback(inner)) throw usage(`'${inner.name}' has no pseudo-relevance feedback; prf: works with BM25, dense and lsi retrievers`);
  return { name, retrieve: (queries: Query[], k: number) => inner.retrieveWithFeedback(queries, k) };
}

/**
 * The composites as values over retrievers at hand (PyTerrier's operators), each named as its string form; `rerank`
 * and `reform` take what `createRetriever` does. A fusion is `{ kind: "comb", method, norm }` or `{ kind: "wrrf", weights }`.
 *
 * @example
 * const bm25 = await createRetriever("bm25-greekstemmer", bench);
 * const lsi = await createRetriever("lsi", bench);
 * const hybrid = compose.rrf([bm25, lsi]);                       // hybrid.name: "rrf:bm25-greekstemmer+lsi"
 * const mnz = compose.fuse([bm25, lsi], { kind: "comb", method: "combmnz", norm: "zscore" });
 * const reranked = await compose.rerank(hybrid, "llm", bench);  // "rerank:llm:rrf:bm25-greekstemmer+lsi"
 */
export const compose = {
  rrf: rrfRetriever,
  fuse: fuseRetriever,
  prf: prfRetriever,
  reform: async (inner: Retriever, bench: Benchmark, opts: RetrieverOptions = {}, ctx: RunContextInit = {}): Promise<Retriever> => reformRetriever(inner, bench, opts, runContext(ctx)),
  rerank: async (first: Retriever, by: string, bench: Benchmark, opts: RetrieverOptions = {}, ctx: RunContextInit = {}): Promise<Retriever> => rerankRetriever(first, await reranker(by, bench, opts, runContext(ctx))),
};

function usage(message: string): GbrError {
  return new GbrError(message, "USAGE");
}

/** Runs memoised per (queries array, k), failures too: a composite's shared parts retrieve once a job. */
function withRunMemo(r: Retriever): Retriever {
  const runs = new BuildCache();
  const shared = Object.create(r) as Retriever;
  shared.retrieve = (queries: Query[], k: number) => runs.once(queries, `retrieve ${k}`, async () => r.retrieve(queries, k));
  if (supportsFeedback(r)) (shared as FeedbackRetriever).retrieveWithFeedback = (queries: Query[], k: number) => runs.once(queries, `feedback ${k}`, async () => r.retrieveWithFeedback(queries, k));
  return shared;
}
