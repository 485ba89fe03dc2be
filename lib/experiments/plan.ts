/** `gbr reproduce --plan`: the bill before the run, by the real code on stand-ins that call and write nothing. */
import { mkdtempSync, promises as fs, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { LoadedBenchmark } from "../data/source";
import { loadPrices, pricerFrom, workCost, type PriceTable } from "../eval/cost";
import { outputGuess } from "../llm/chat-for-method";
import type { PlanMode } from "../registry";
import { runContext } from "../retrievers";
import type { Run, RunInfo } from "../types";
import { splitModelId } from "../util/model-id";
import { addWork } from "../eval/run-cost";
import { runExperiments } from "./run-experiments";
import { writeOutput } from "./write-outputs";
import { selection, type ReproduceOptions } from "./reproduce";
import { runInfos } from "./setup";

/** One experiment of plan.json: `calls` as cost.csv counts them (cached included); tokens only of work to do. */
export interface PlanRow {
  id: string;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  /** Calls the caches held before the plan (replay cache, vector store; rerank requests whose pairs are all scored). */
  cached: number;
  /** Calls no earlier row counts: what this row adds to the total (the rows' newCalls add up to `total.calls`). */
  newCalls: number;
  /** The earlier rows that count the rest of its calls (same requests, or the part it reuses). */
  sharedWith: string[];
  /** False when partly estimated (`basis` says what). */
  exact: boolean;
  /** USD at the price table for the tokens still to spend (rerank requests are not priced). */
  cost: number;
  status: "ok" | "skipped" | "failed";
  reason?: string;
  basis: string;
  /** The parts of `inputTokens`, then of `calls`. */
  chatInputTokens: number;
  embeddingTokens: number;
  chatCalls: number;
  embeddedTexts: number;
  rerankRequests: number;
  rerankPairs: number;
}

type PlanTotal = Pick<PlanRow, "calls" | "inputTokens" | "outputTokens" | "cost" | "chatCalls" | "embeddedTexts" | "rerankRequests" | "rerankPairs">;

/** What plan.json holds; `total` counts each call once (the rows overlap). */
export interface Plan {
  dataset: string;
  queries: number;
  articles: number;
  experiments: PlanRow[];
  total: PlanTotal;
  outputGuesses: { model: string; perCall: number; basis: string }[];
  prices: string;
  notes: string[];
}

const INPUT_BASIS = "chat input tokens: o200k counts of the rendered system and user messages (the server adds its chat template's few tokens per call)";
const EMBED_BASIS = "embedding tokens: o200k counts of each templated text (a server with another tokenizer reports its own count)";
const REACT_BASIS =
  "REACT: round 1's planner prompts are exact; the rest is estimated by running every round with empty answers (each round searches the question itself, the observer keeps nothing), so observer prompts are sized like real ones and later planner prompts lack the kept articles (an underestimate)";
const RESULT_EMBED_BASIS = "embedding tokens of texts a model writes first (rewrites, translations) estimated from the texts it is given";
const RERANK_REACT_BASIS =
  "re-ranking REACT-BM25's output is planned at its most, 100 articles a question (the articles its stand-in rounds retrieved): how many it keeps only the run knows, so an upper bound";
const RERANK_BASIS = "cross-encoder: one request per question and batch of its first stage's articles (pairs are not priced)";
const LISTWISE_BASIS = "listwise re-ranking: the windows of the first stage's top articles as they stand, without the model's reordering (the same calls; tokens approximate)";

/** Whether a run, or a part of it, calls a model server (the stand-ins answer as endpoint "plan"; LSI is "local"). */
function callsModels(info: RunInfo): boolean {
  return runInfos(info).some((i) => i.llm || i.rerank || i.rounds !== undefined || (i.embedding && i.embedding.endpoint !== "local"));
}

/** The earlier rows each row shares calls with: those that first sent its requests, and the maker of a part it reuses. */
function sharers(rows: readonly { id: string; infos: RunInfo[] }[], requestedFrom: ReadonlyMap<string, Set<string>>): Map<string, string[]> {
  const madeIn = new Map<RunInfo, string>();
  const out = new Map<string, string[]>();
  for (const row of rows) {
    const found = new Set(requestedFrom.get(row.id) ?? []);
    for (const i of row.infos.flatMap((info) => (info.parts ?? []).flatMap(runInfos))) {
      const first = madeIn.get(i);
      if (first !== undefined && callsModels(i)) found.add(first);
    }
    for (const i of row.infos.flatMap(runInfos)) if (!madeIn.has(i)) madeIn.set(i, row.id);
    found.delete(row.id);
    out.set(row.id, [...found]);
  }
  return out;
}

/** The plan's numbers for one experiment's runs (a --repeat gives several). */
function rowOf(id: string, runs: readonly Pick<Run, "info" | "cost">[], prices: PriceTable): Omit<PlanRow, "status" | "reason" | "newCalls" | "sharedWith"> {
  let work = addWork();
  let cached = 0;
  let exact = true;
  const bases = new Set<string>();
  let dollars = 0;
  for (const run of runs) {
    const c = run.cost;
    if (c) {
      const w = addWork(c.online, c.corpus);
      work = addWork(work, w);
      dollars += workCost(prices, w, c.llmModel, c.embeddingModel);
      if (w.llmCalls > 0) bases.add(INPUT_BASIS);
      if (w.embeddingCalls > 0) bases.add(EMBED_BASIS);
    }
    const infos = runInfos(run.info);
    // A chat record shared by several parts counts its reused calls once.
    for (const llm of new Set(infos.flatMap((i) => (i.llm ? [i.llm] : [])))) cached += llm.reused;
    for (const i of infos) {
      const vectors = (i.embedding as { cachedVectors?: unknown } | undefined)?.cachedVectors;
      if (typeof vectors === "number") cached += vectors;
      const r = i.rerank;
      if (r?.kind === "cross-encoder" && r.pairs && r.reusedPairs) cached += Math.floor((r.calls * r.reusedPairs) / r.pairs);
    }
    const has = (f: (i: RunInfo) => unknown) => infos.some(f);
    const react = has((i) => i.rounds !== undefined);
    const listwise = has((i) => i.rerank?.kind === "listwise-llm");
    // What is embedded after a model wrote it cannot be counted before the model has written it.
    const written = has((i) => i.llm) && has((i) => i.embedding);
    if (has((i) => i.rerank?.kind === "cross-encoder")) bases.add(RERANK_BASIS);
    if (react) bases.add(REACT_BASIS);
    if (listwise) bases.add(LISTWISE_BASIS);
    if (react && has((i) => i.rerank)) bases.add(RERANK_REACT_BASIS);
    if (written) bases.add(RESULT_EMBED_BASIS);
    if (react || listwise || written) exact = false;
  }
  const chatCalls = work.llmCalls;
  const embeddedTexts = work.embeddingCalls;
  const rerankRequests = work.rerankCalls ?? 0;
  if (chatCalls + embeddedTexts + rerankRequests === 0) bases.add("no model calls");
  return {
    id,
    calls: chatCalls + embeddedTexts + rerankRequests,
    inputTokens: work.llmInput + work.embeddingTokens,
    outputTokens: work.llmOutput,
    cached,
    exact,
    cost: dollars,
    basis: [...bases].join("; "),
    chatInputTokens: work.llmInput,
    embeddingTokens: work.embeddingTokens,
    chatCalls,
    embeddedTexts,
    rerankRequests,
    rerankPairs: work.rerankPairs ?? 0,
  };
}

/** Plans the selected experiments into `<outDir>/plan.json` on stand-ins: each request counted once, sharing rows named. */
export async function planReproduce(loaded: LoadedBenchmark, opts: ReproduceOptions): Promise<{ plan: Plan; file: string }> {
  const context = runContext(opts.context);
  const config = context.providers.config;
  const { selected, outDir } = selection(loaded, opts, config);
  const prices = loadPrices(config.pricesFile);
  const guesses = new Map<string, { perCall: number; basis: string }>();
  const price = pricerFrom(prices);
  const total: PlanTotal = { calls: 0, inputTokens: 0, outputTokens: 0, cost: 0, chatCalls: 0, embeddedTexts: 0, rerankRequests: 0, rerankPairs: 0 };
  const bench = loaded.benchmark;
  const given = new WeakSet<object>([...bench.docs, ...bench.queries]);
  // The experiment being planned (they run one after another), the calls each adds, who first sent each request.
  let current = "";
  const newCalls = new Map<string, number>();
  const firstBy = new Map<string, string>();
  const requestedFrom = new Map<string, Set<string>>();
  const tokens = new Map<string, number>();
  const notes: string[] = [];
  const mode: PlanMode = {
    async outputGuess(modelId, cache) {
      let g = guesses.get(modelId);
      if (!g) guesses.set(modelId, (g = await outputGuess(cache, modelId)));
      return g.perCall;
    },
    given: (items) => items.every((it) => given.has(it)),
    tokensOf(key, count) {
      let n = tokens.get(key);
      if (n === undefined) tokens.set(key, (n = count()));
      return n;
    },
    note: (text) => void (notes.includes(text) || notes.push(text)),
    tally(kind, model, calls, input, output, key) {
      if (key !== undefined) {
        const k = `${kind} ${model} ${key}`;
        const first = firstBy.get(k);
        if (first !== undefined) {
          if (!requestedFrom.has(current)) requestedFrom.set(current, new Set());
          requestedFrom.get(current)!.add(first);
          return;
        }
        firstBy.set(k, current);
      }
      newCalls.set(current, (newCalls.get(current) ?? 0) + calls);
      total.calls += calls;
      if (kind === "chat") {
        total.chatCalls += calls;
        total.inputTokens += input;
        total.outputTokens += output;
        total.cost += price("chat", { model: splitModelId(model).model, input, output });
      } else if (kind === "embedding") {
        total.embeddedTexts += calls;
        total.inputTokens += input;
        total.cost += price("embed", { model, input, output: 0 });
      } else {
        total.rerankRequests += calls;
        total.rerankPairs += input;
      }
    },
  };
  // Work files and traces go to a scratch folder (removed on exit too, as on Ctrl-C): no real run finds a stand-in answer.
  const scratch = mkdtempSync(path.join(os.tmpdir(), "gbr-plan-"));
  const removeScratch = () => rmSync(scratch, { recursive: true, force: true });
  process.once("exit", removeScratch);
  try {
    const tracked = selected.map((e) => ({ ...e, run: (ctx: Parameters<typeof e.run>[0]) => ((current = e.id), e.run(ctx)) }));
    const records = await runExperiments(loaded, tracked, {
      log: opts.log,
      repeat: opts.repeat,
      seed: opts.seed,
      retrieverOptions: opts.retrieverOptions,
      // The methods' own progress lines (per batch, per item) describe stand-in work: a plan prints only its table.
      context: { ...context, log: () => {}, plan: mode, workDir: path.join(scratch, "llm"), traceDir: path.join(scratch, "traces") },
    });
    const infos = (r: (typeof records)[number]) => r.samples.flatMap((s) => (s.result.run.info ? [s.result.run.info] : []));
    const shared = sharers(records.map((r) => ({ id: r.experiment.id, infos: infos(r) })), requestedFrom);
    const experiments: PlanRow[] = records.map((r) => {
      const id = r.experiment.id;
      const row = { ...rowOf(id, r.samples.map((s) => s.result.run), prices), newCalls: newCalls.get(id) ?? 0, sharedWith: shared.get(id) ?? [] };
      return r.status === "ok" ? { ...row, status: "ok" } : { ...row, status: r.status, reason: r.reason, basis: r.status === "skipped" ? "skipped here" : "failed while planning" };
    });
    const plan: Plan = {
      dataset: bench.name,
      queries: bench.queries.length,
      articles: bench.docs.length,
      experiments,
      total,
      outputGuesses: [...guesses].map(([model, g]) => ({ model, perCall: g.perCall, basis: g.basis })),
      prices: config.pricesFile ?? "config/prices.json",
      notes: [
        "calls count the chat calls, texts embedded and rerank requests an experiment needs, as cost.csv does (one built on another, as rrf:, prf:, rerank:, oracle:, includes that one's work); cached counts those the caches held before the run; inputTokens, outputTokens and cost leave out only what the caches held",
        "the rows overlap: new counts the calls no earlier row counts, and shared with names the rows that count the rest; total counts each call once and is the sum of new",
        "a request made of the benchmark's own texts (a rewrite, a translation, an embedding) is counted once however many experiments send it, as a run asks the store first; one built on stand-in answers (REACT's rounds, listwise windows, re-ranking an LLM method's output) is counted each time it is sent",
        ...notes,
      ],
    };
    await fs.mkdir(outDir, { recursive: true });
    const file = path.join(outDir, "plan.json");
    await writeOutput(outDir, "plan.json", JSON.stringify(plan, null, 2) + "\n");
    return { plan, file };
  } finally {
    process.off("exit", removeScratch);
    removeScratch();
  }
}
