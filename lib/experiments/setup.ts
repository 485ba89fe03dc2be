/** What produced a run, in one line from its `RunInfo`: the setup column of summary.csv and reproduction.csv. */
import type { LlmRunInfo, RerankRunInfo, RunInfo } from "../types";

function describeParams(p: Record<string, string | number>): string {
  return Object.entries(p)
    .filter(([k]) => k !== "calls")
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
}

function describeLlm(llm: LlmRunInfo): string {
  const prompts = llm.prompts.commit ? `${llm.prompts.name}@${llm.prompts.commit.slice(0, 8)}` : llm.prompts.name;
  const roles = Object.entries(llm.requests).map(
    ([role, sets]) => `${role}: ${sets.map((p) => `${describeParams(p)} (${p.calls} request${p.calls === 1 ? "" : "s"})`).join(" | ")}`,
  );
  return [`LLM ${llm.model} at ${llm.endpoint}`, `prompts ${prompts}`, `parser ${llm.parser}`, ...roles].join("; ");
}

function describeRerank(r: RerankRunInfo): string {
  const what = r.kind === "cross-encoder" ? `cross-encoder ${r.model} ${r.runtime ?? `at ${r.endpoint}`}` : `listwise LLM, window ${r.window} step ${r.step}`;
  const overLimit = r.truncatedPairs ? `, ${r.truncatedPairs} pairs over the token limit` : "";
  const pairs = r.pairs === undefined ? "" : `, ${r.pairs} pairs (${r.reusedPairs ?? 0} cached, ${r.truncated ?? 0} articles cut${overLimit})`;
  const unparsed = r.unparsed ? `, ${r.unparsed} answers unparsed` : "";
  return `rerank ${r.reranker}: ${what}, depth ${r.depth}${pairs}${unparsed}`;
}

/** A run's record and those of the runs it was made from, depth first. */
export function runInfos(info: RunInfo | undefined): RunInfo[] {
  return info ? [info, ...(info.parts ?? []).flatMap(runInfos)] : [];
}

function describeOwn(info: RunInfo): string[] {
  const out: string[] = [];
  const { bm25: b, embedding: e } = info;
  if (b) out.push(`BM25 ${b.tokenizer} k1 ${b.k1} b ${b.b} epsilon ${b.epsilon}${b.positiveOnly ? " positive-only" : ""}`);
  if (e) {
    const at = typeof e.runtime === "string" ? ` ${e.runtime}` : typeof e.endpoint === "string" ? ` at ${e.endpoint}` : "";
    out.push(`embeddings ${String(e.model ?? e.preset ?? "?")}${at}`);
  }
  if (info.llm) out.push(describeLlm(info.llm));
  if (info.rounds !== undefined) out.push(`rounds ${info.rounds}`);
  if (info.rerank) out.push(describeRerank(info.rerank));
  return out;
}

/** The setup of a run in one line, parts of composite runs included, each fact once. */
export function describeRun(info: RunInfo | undefined): string {
  return [...new Set(runInfos(info).flatMap(describeOwn))].join("; ");
}

/** One provider a run called, as recorded (`servedModel` "" when no answer said). */
export interface Provenance {
  kind: "chat" | "embedding" | "rerank";
  provider: string;
  endpoint: string;
  requestedModel: string;
  servedModel: string;
  standIn: boolean;
}

/** Every provider behind a run (its parts included), each once. */
export function provenanceOf(info: RunInfo | undefined): Provenance[] {
  const out = new Map<string, Provenance>();
  const add = (p: Provenance) => out.set(JSON.stringify(p), p);
  const str = (v: unknown) => (typeof v === "string" ? v : "");
  for (const i of runInfos(info)) {
    if (i.llm) add({ kind: "chat", provider: i.llm.provider, endpoint: i.llm.endpoint, requestedModel: i.llm.model, servedModel: i.llm.servedModels.join(", "), standIn: i.llm.standIn });
    const e = i.embedding;
    if (e) {
      add({
        kind: "embedding",
        provider: str(e.provider) || "local",
        endpoint: str(e.endpoint),
        requestedModel: str(e.model),
        servedModel: str(e.servedModel),
        standIn: e.standIn === true,
      });
    }
    // The listwise re-ranker's chat calls are already in `llm`; a cross-encoder is a provider of its own.
    const r = i.rerank;
    if (r?.kind === "cross-encoder") add({ kind: "rerank", provider: r.runtime ? "local" : "rerank", endpoint: r.endpoint, requestedModel: r.model, servedModel: r.servedModels.join(", "), standIn: r.standIn });
  }
  return [...out.values()];
}

/** The providers behind a run in one line (the provenance column of summary.csv). */
export function describeProvenance(list: readonly Provenance[]): string {
  return list
    .map((p) => `${p.kind} ${p.provider} at ${p.endpoint || "(local)"}: ${p.requestedModel}${p.servedModel && p.servedModel !== p.requestedModel ? ` (served as ${p.servedModel})` : ""}${p.standIn ? " [test double]" : ""}`)
    .join("; ");
}
