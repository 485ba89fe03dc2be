/** The wiring: a retriever name is parsed into a typed description, and `build` calls each folder's constructors. */
import type { Benchmark, Query, Retriever, Run } from "./types";
import { supportsFeedback, type FeedbackRetriever, type PartBuilder, type RetrieverFactory, type RetrieverOptions, type RunContext, type RunContextInit } from "./registry";
import { denseRetriever, lsiRetriever } from "./dense/retriever";
import { fuseRetriever, parseFuseName, rrfRetriever, type Fusion } from "./fusion/retriever";
import { reactRetriever, reformRetriever, translateRetriever } from "./llm/retriever";
import { loadSpacyLexicon } from "./data/spacy-tables";
import { createProviders } from "./providers";
import { chatForMethod } from "./llm/chat-for-method";
import { openDataStore, type Store } from "./store";
import { loadPromptSet, type PromptSetName } from "./llm/prompts";
import { reformulate, type RewriteKind } from "./llm/reformulate";
import { parseRerankName, rerankRetriever } from "./rerank/retriever";
import { bm25Retriever } from "./sparse/retriever";
import { TOKENIZERS } from "./text/registry";
import { GbrError } from "./util/errors";
import { didYouMean } from "./util/suggest";

export * from "./registry";

/** What a retriever name means; composite kinds hold the descriptions of their parts. */
export type RetrieverSpec =
  | { kind: "bm25"; name: string }
  | { kind: "dense"; name: string; preset: string }
  | { kind: "lsi"; name: string; dims: number }
  | { kind: "prf"; name: string; of: RetrieverSpec }
  | { kind: "rrf"; name: string; of: RetrieverSpec[] }
  | { kind: "fuse"; name: string; fusion: Fusion; of: RetrieverSpec[] }
  | { kind: "reform"; name: string; of: RetrieverSpec }
  | { kind: "translate"; name: string; of: RetrieverSpec }
  | { kind: "react"; name: string }
  | { kind: "rerank"; name: string; reranker: string; of: RetrieverSpec }
  | { kind: "user"; name: string; factory: RetrieverFactory };

/** User retrievers by name (a name ending in `:` is a prefix), in registration order. */
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

/**
 * The names registered with `registerRetriever`, in registration order.
 *
 * @example
 * registerRetriever("mine", factory);
 * registeredRetrievers(); // ["mine"]
 */
export function registeredRetrievers(): string[] {
  return [...userFactories.keys()];
}

/**
 * A retriever name's description and those of all its parts, outermost first (none when the name is malformed).
 *
 * @example
 * registerRetriever("mine", factory);
 * retrieverParts("rrf:bm25-greekstemmer+mine").map((p) => p.kind); // ["rrf", "bm25", "user"]
 */
export function retrieverParts(name: string): RetrieverSpec[] {
  const flat = (s: RetrieverSpec): RetrieverSpec[] => [s, ...("of" in s ? [s.of].flat().flatMap(flat) : [])];
  try {
    return flat(parseRetrieverName(name));
  } catch {
    return [];
  }
}

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

/** A retriever name as a typed description; a malformed name is a usage error saying which form was meant. */
export function parseRetrieverName(name: string): RetrieverSpec {
  const colon = name.indexOf(":");
  const user = userFactories.get(name) ?? (colon > 0 ? userFactories.get(name.slice(0, colon + 1)) : undefined);
  if (user) return { kind: "user", name, factory: user };
  if (name in TOKENIZERS) return { kind: "bm25", name };
  if (name === "react-bm25") return { kind: "react", name };
  if (name === "lsi" || name.startsWith("lsi:")) {
    const dims = name === "lsi" ? 256 : Number(name.slice(4));
    if (!(Number.isInteger(dims) && dims >= 1)) throw usage(`'${name}': expected lsi or lsi:<dimensions>, e.g. lsi:128`);
    // A fit holds dense documents × dimensions matrices: past this it takes minutes and gigabytes (the paper uses 256).
    if (dims > MAX_LSI_DIMS) throw usage(`'${name}': at most ${MAX_LSI_DIMS} dimensions (the paper uses 256)`);
    return { kind: "lsi", name, dims };
  }
  const rest = name.slice(colon + 1);
  switch (colon > 0 ? name.slice(0, colon) : "") {
    case "dense":
      if (!rest) throw usage(`'${name}': expected dense:<preset>, e.g. dense:qwen3-8b`);
      return { kind: "dense", name, preset: rest };
    case "prf":
      return { kind: "prf", name, of: parseRetrieverName(rest) };
    case "rrf": {
      const parts = rest.split("+").filter(Boolean);
      if (parts.length < 2) throw usage(`'${name}': rrf needs at least two retrievers, as rrf:<a>+<b>`);
      return { kind: "rrf", name, of: parts.map(parseRetrieverName) };
    }
    case "fuse": {
      const { fusion, parts } = parseFuseName(name);
      return { kind: "fuse", name, fusion, of: parts.map(parseRetrieverName) };
    }
    case "reform":
      return { kind: "reform", name, of: parseRetrieverName(rest) };
    case "translate":
      return { kind: "translate", name, of: parseRetrieverName(rest) };
    case "rerank": {
      const { reranker, retriever } = parseRerankName(name);
      return { kind: "rerank", name, reranker, of: parseRetrieverName(retriever) };
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

/** A complete RunContext: providers from the environment, the data store (opened on first use), replay, no log. */
export function runContext(init: RunContextInit = {}): RunContext {
  if (isComplete(init)) return init;
  const log = init.log ?? (() => {});
  const given = init.store;
  let opened: Promise<Store> | undefined;
  const store = typeof given === "function" ? given : () => (opened ??= given ? Promise.resolve(given) : openDataStore({ log }));
  return { loadSpacyLexicon, replay: "use", ...init, log, providers: init.providers ?? createProviders(), store };
}

function isComplete(ctx: RunContextInit): ctx is RunContext {
  return ctx.providers !== undefined && typeof ctx.store === "function" && ctx.replay !== undefined && ctx.log !== undefined && ctx.loadSpacyLexicon !== undefined;
}

/**
 * Queries rewritten by the chat model as `reform:` rewrites them ("sparse": keywords for BM25, "dense": legal
 * prose), through the store, so asking again costs nothing. Rejects, saying what to set, without a chat model.
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
  const model = await chatForMethod(opts, runContext(ctx));
  return reformulate(queries, kind, model, loadPromptSet(opts.prompts ?? "project"));
}

/** RunContext fields a JavaScript caller may still pass in the options, where they would be silently ignored. */
const CONTEXT_KEYS = new Set(["providers", "store", "replay", "log", "onProgress", "cache", "plan", "vectorStore", "workDir", "traceDir", "cacheDir", "offline", "loadSpacyLexicon"]);

async function build(spec: RetrieverSpec, bench: Benchmark, opts: RetrieverOptions, ctx: RunContext): Promise<Retriever> {
  const part: PartBuilder = (name, on = bench) => createRetriever(name, on, opts, ctx);
  switch (spec.kind) {
    case "bm25":
      return bm25Retriever(spec.name, bench, opts, ctx);
    case "dense":
      return denseRetriever(spec.name, bench, opts, ctx);
    case "lsi":
      // Plain `lsi` fits min(256, documents); dimensions asked for by name must exist.
      if (spec.name !== "lsi" && spec.dims > bench.docs.length) throw usage(`'${spec.name}': ${spec.dims} dimensions, more than the ${bench.docs.length} documents of ${bench.name}; use at most lsi:${bench.docs.length}`);
      return lsiRetriever(spec.name, bench, ctx, part, spec.dims);
    case "prf":
      return prfRetriever(spec.name, await part(spec.of.name));
    case "rrf": {
      const inputs: Retriever[] = [];
      for (const p of spec.of) inputs.push(await part(p.name));
      return rrfRetriever(spec.name, inputs);
    }
    case "fuse": {
      const inputs: Retriever[] = [];
      for (const p of spec.of) inputs.push(await part(p.name));
      return fuseRetriever(spec.name, spec.fusion, inputs);
    }
    case "reform":
      return reformRetriever(spec.name, bench, opts, ctx, part);
    case "translate":
      return translateRetriever(spec.name, bench, opts, ctx, part);
    case "react":
      return reactRetriever(spec.name, bench, opts, ctx);
    case "rerank":
      return rerankRetriever(spec.name, bench, opts, ctx, part);
    case "user":
      return spec.factory(spec.name, bench, opts, ctx);
  }
}

/** `prf:<name>`: the retriever's own `FeedbackRetriever` pass (query expansion for BM25, Rocchio for dense and LSI). */
function prfRetriever(name: string, inner: Retriever): Retriever {
  if (!supportsFeedback(inner)) throw usage(`'${inner.name}' has no pseudo-relevance feedback; prf: works with BM25, dense and lsi retrievers`);
  return { name, retrieve: (queries: Query[], k: number) => inner.retrieveWithFeedback(queries, k) };
}

const MAX_LSI_DIMS = 4096;

function usage(message: string): GbrError {
  return new GbrError(message, "USAGE");
}

/** Runs memoised per (queries array, k): a composite's shared parts retrieve once a job; the rest via the prototype. */
function withRunMemo(r: Retriever): Retriever {
  const runs = new WeakMap<readonly Query[], Map<string, Promise<Run>>>();
  const memo =
    (kind: string, search: (queries: Query[], k: number) => Promise<Run> | Run) =>
    (queries: Query[], k: number): Promise<Run> => {
      let byK = runs.get(queries);
      if (!byK) runs.set(queries, (byK = new Map()));
      const key = `${kind} ${k}`;
      let run = byK.get(key);
      if (!run) byK.set(key, (run = Promise.resolve(search(queries, k))));
      return run;
    };
  const shared = Object.create(r) as Retriever;
  shared.retrieve = memo("retrieve", (q, k) => r.retrieve(q, k));
  if (supportsFeedback(r)) (shared as FeedbackRetriever).retrieveWithFeedback = memo("feedback", (q, k) => r.retrieveWithFeedback(q, k));
  return shared;
}
