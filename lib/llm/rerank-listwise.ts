/** RankGPT-style listwise re-ranking: numbered windows answered `[3] > [1] > [2]`, sliding bottom-up; project prompts. */
import { DEFAULT_CONCURRENCY } from "../config";
import path from "node:path";
import type { DocId, LlmRunInfo, Query, Run, RunInfo } from "../types";
import { DataError, GbrError } from "../util/errors";
import { addCosts } from "../eval/run-cost";
import { untilFailure } from "../util/pool";
import { fillPrompt, loadPromptSet, notebookParams, PROJECT_PROMPTS_DIR, readPromptFile } from "./prompts";
import { digestOf } from "../util/safe-files";
import { llmCost, llmRunInfo, type RequestEntry } from "./run-info";
import { relabel } from "./cached-calls";
import { chatParams, stripReasoning, type ChatModel, type ChatRequest, type ChatResponse } from "../models/chat";

/** Temperature 0 for repeatable rankings; 42,000 tokens as gpt-oss reasons first (a small cap cuts the answer). */
export const RERANK_PARAMS = notebookParams(0, 42000) satisfies Partial<ChatRequest>;

/** Drops a list's own "1.", "2.", … only when every line has them in sequence, so "3. 1. 2." is never numbering. */
function dropListNumbering(text: string): string {
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  if (lines.length < 2) return text;
  const numbered = lines.map((l) => /^\s*(\d+)[.)]\s+(?=\S*\d)/.exec(l));
  if (!numbered.every((m, i) => m !== null && Number(m[1]) === i + 1)) return text;
  return lines.map((l, i) => l.slice(numbered[i]![0].length)).join("\n");
}

/** `order`: a 0-based permutation (bad ids skipped, repeats at their first place, left-out ones after); `found`: ids named. */
export function readPermutation(answer: string, size: number): { order: number[]; found: number } {
  const text = stripReasoning(answer);
  // The prompt asks for bracketed ids; when present, bare numbers ("Άρθρο 914") are prose, not ids.
  let ids = [...text.matchAll(/\[\s*(\d+)\s*\]/g)].map((m) => Number(m[1]));
  if (ids.length === 0) ids = [...dropListNumbering(text).matchAll(/\d+/g)].map((m) => Number(m[0]));
  const seen = new Set<number>();
  const order: number[] = [];
  for (const id of ids) {
    if (!Number.isSafeInteger(id) || id < 1 || id > size || seen.has(id)) continue;
    seen.add(id);
    order.push(id - 1);
  }
  const found = order.length;
  for (let i = 0; i < size; i++) if (!seen.has(i + 1)) order.push(i);
  return { order, found };
}

/** RankGPT's windows, bottom first, each `step` higher; the last is cut at 0 (RankGPT's loop can leave the top out). */
export function slidingWindows(n: number, window: number, step: number): { start: number; end: number }[] {
  if (!(Number.isInteger(window) && window >= 2)) throw new GbrError(`re-ranking window must be an integer ≥ 2, got ${window}`, "USAGE");
  // A step larger than the window would jump over articles that no window ever shows the model.
  if (!(Number.isInteger(step) && step >= 1 && step <= window)) {
    throw new GbrError(`re-ranking step must be an integer from 1 to the window (${window}), got ${step}`, "USAGE");
  }
  if (n < 2) return [];
  if (n <= window) return [{ start: 0, end: n }];
  const out: { start: number; end: number }[] = [];
  for (let start = n - window, end = n; end > 0; start -= step, end -= step) {
    const w = { start: Math.max(0, start), end };
    if (w.end - w.start >= 2) out.push(w);
    if (start <= 0) break;
  }
  return out;
}

let loaded: { system: string; user: string; sha256: Record<string, string> } | undefined;

/** The project's re-ranking prompts as sent, with their sha256 (what `info.llm.prompts` records); read once. */
function rerankPrompts(): NonNullable<typeof loaded> {
  if (!loaded) {
    const system = readPromptFile(path.join(PROJECT_PROMPTS_DIR, "RERANK_SYSTEM.txt"));
    const user = readPromptFile(path.join(PROJECT_PROMPTS_DIR, "RERANK_USER.txt"), ["query", "passages", "count", "chars"]);
    loaded = { system, user, sha256: { RERANK_SYSTEM: digestOf(system), RERANK_USER: digestOf(user) } };
  }
  return loaded;
}

/** Whitespace made single spaces (line breaks would blur where `[n]` starts); cut to `maxChars` code points with "…". */
export function excerpt(text: string, maxChars: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const chars = Array.from(flat);
  return chars.length <= maxChars ? flat : `${chars.slice(0, maxChars).join("").trimEnd()}…`;
}

/** Characters of each article shown to the model. */
const EXCERPT_CHARS = 1500;
// Made once per article (up to 20,000 kept): the same articles fill the windows of many queries and experiments.
const excerpts = new Map<string, string>();
function excerptOnce(text: string): string {
  let e = excerpts.get(text);
  if (e === undefined) {
    if (excerpts.size >= 20_000) excerpts.clear();
    excerpts.set(text, (e = excerpt(text, EXCERPT_CHARS)));
  }
  return e;
}

/** The system prompt; the question and articles numbered [1]…[n], each cut to EXCERPT_CHARS; RERANK_PARAMS. */
export function buildRerankRequest(queryText: string, passages: readonly string[]): ChatRequest {
  const p = rerankPrompts();
  const block = passages.map((t, i) => `[${i + 1}] ${excerptOnce(t)}`).join("\n\n");
  return {
    system: p.system,
    user: fillPrompt(p.user, { query: queryText, passages: block, count: passages.length, chars: EXCERPT_CHARS }),
    ...RERANK_PARAMS,
  };
}

export interface ListwiseRerankOptions {
  /** The run's retriever name (default "rerank:llm:" + the first stage's). */
  name?: string;
  /** Defaults: depth 100 re-ranked, window 20, step 10, k 100 returned; a query's windows go one after another. */
  depth?: number;
  window?: number;
  step?: number;
  k?: number;
  concurrency?: number;
  log?: (message: string) => void;
  onProgress?: (label: string, done: number, total: number) => void;
}

type Call = { entry: RequestEntry; res: ChatResponse; found: number; size: number };

/** Re-ranks each query's top `depth`, appends the rest, cuts to `k`; an unusable answer keeps the window's order. */
export async function listwiseRerankRun(
  model: ChatModel,
  queries: Query[],
  firstStage: Run,
  docText: ReadonlyMap<DocId, string>,
  opts: ListwiseRerankOptions = {},
): Promise<Run> {
  const depth = opts.depth ?? 100;
  const window = opts.window ?? 20;
  const step = opts.step ?? 10;
  const k = opts.k ?? 100;
  if (!(Number.isInteger(depth) && depth >= 1)) throw new GbrError(`re-ranking depth must be a positive integer, got ${depth}`, "USAGE");
  if (!(Number.isInteger(k) && k >= 1)) throw new GbrError(`k must be a positive integer, got ${k}`, "USAGE");
  const prompts = rerankPrompts();
  const name = opts.name ?? `rerank:llm:${firstStage.info?.retriever ?? "(unknown)"}`;

  // A failure stops queries before their next call, instead of paying for a run already lost.
  let failed = false;
  let done = 0;
  const rerankOne = async (q: Query): Promise<{ ranking: DocId[]; calls: Call[] }> => {
    // A repeated id counts at its first place, as the evaluation does.
    const all = [...new Set(firstStage.rankings.get(q.id) ?? [])];
    let top = all.slice(0, depth);
    const calls: Call[] = [];
    for (const w of slidingWindows(top.length, window, step)) {
      if (failed) break;
      const ids = top.slice(w.start, w.end);
      const texts = ids.map((id) => {
        const t = docText.get(id);
        if (t === undefined) throw new DataError(`rerank:llm: the first stage ranks '${id}' for query ${q.id}, but the corpus has no such article`);
        return t;
      });
      const req = buildRerankRequest(q.text, texts);
      const res = await model.complete(req).catch((err: unknown) => {
        failed = true;
        throw relabel(err, `rerank:llm: query ${q.id}, articles ${w.start + 1}–${w.end} of ${top.length}: ${(err as Error)?.message ?? String(err)}`);
      });
      const { order, found } = readPermutation(res.raw, ids.length);
      top = [...top.slice(0, w.start), ...order.map((p) => ids[p]), ...top.slice(w.end)];
      calls.push({
        entry: { role: "rerank", params: chatParams(req), reused: res.replayed === true, servedModel: res.servedModel, standIn: res.standIn },
        res,
        found,
        size: ids.length,
      });
    }
    opts.onProgress?.("rerank:llm", ++done, queries.length);
    return { ranking: [...top, ...all.slice(depth)].slice(0, k), calls };
  };

  const results: { ranking: DocId[]; calls: Call[] }[] = [];
  const concurrency = opts.concurrency ?? model.capacity ?? DEFAULT_CONCURRENCY.chat;
  const failure = await untilFailure(queries.length, concurrency, async (i) => void (results[i] = await rerankOne(queries[i])));
  if (failure) throw failure.error;
  const rankings = new Map(queries.map((q, i) => [q.id, results[i].ranking] as const));
  const calls = results.flatMap((r) => r.calls);
  const entries = calls.map((c) => c.entry);
  const unparsed = calls.filter((c) => c.found === 0);
  const incomplete = calls.filter((c) => c.found > 0 && c.found < c.size).length;
  const made = entries.filter((e) => !e.reused).length;
  for (const c of unparsed.slice(0, 3)) opts.log?.(`rerank:llm: no usable id in an answer, window order kept: ${JSON.stringify(c.res.raw.slice(0, 120))}`);
  opts.log?.(
    `rerank:llm: ${calls.length} call(s) for ${queries.length} quer${queries.length === 1 ? "y" : "ies"} (${made} made now, ${calls.length - made} from the replay cache); ` +
      `${unparsed.length} answer(s) without a usable id (window order kept), ${incomplete} incomplete (missing ids kept in their order)`,
  );

  const llm: LlmRunInfo = {
    // "project" gives the set's name and parser only; the prompts are the two re-ranking files (see the header).
    ...llmRunInfo(model, loadPromptSet("project"), [], entries),
    prompts: { name: "project", commit: null, sha256: { ...prompts.sha256 } },
  };
  const info: RunInfo = {
    retriever: name,
    llm,
    rerank: {
      reranker: "llm",
      kind: "listwise-llm",
      model: llm.model,
      endpoint: llm.endpoint,
      depth,
      window,
      step,
      calls: made,
      servedModels: llm.servedModels,
      standIn: llm.standIn,
      unparsed: unparsed.length,
    },
    parts: firstStage.info ? [firstStage.info] : [],
  };
  // The calls' own (recorded) seconds: a query's windows run in sequence, so their sum is its latency.
  const own = llmCost(model.id, calls.map((c) => c.res.usage), calls.reduce((s, c) => s + c.res.seconds, 0));
  return { rankings, info, cost: addCosts(own, firstStage.cost)! };
}
