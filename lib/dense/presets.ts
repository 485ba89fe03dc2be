import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { EmbedderSpec, LocalModel, Side } from "../models/embed";
import type { Config, EmbedNaming } from "../config";
import { GbrError, parsedOr } from "../util/errors";
import { didYouMean } from "../util/suggest";

/** One embedding model as the paper ran it; `{text}` in a template is replaced by the query or article. */
export interface EmbeddingPreset extends EmbedderSpec {
  queryTemplate: string;
  documentTemplate: string;
  /** Paper's Recall@100 on all 283 queries, for the reproduction table. */
  paperRecall100?: number;
  note?: string;
}

/** The instruction the paper gives the Qwen3 embedding models. */
export const QWEN_TASK =
  "Given a legal question with facts, retrieve relevant legal passages, statutes, or documents that answer the query";

const qwen = (name: string, model: string, dims: number, paperRecall100: number): EmbeddingPreset => ({
  name,
  provider: "openai",
  model,
  dims,
  queryTemplate: `Instruct: ${QWEN_TASK}\nQuery:{text}`,
  documentTemplate: "{text}",
  paperRecall100,
});

/** The paper's nine embedding models (DESIGN.md §6) plus `embgemma-300m-raw` (the authors' quickstart), by HF id. */
export const BUILTIN_PRESETS: readonly EmbeddingPreset[] = [
  qwen("qwen3-8b", "Qwen/Qwen3-Embedding-8B", 4096, 0.67),
  qwen("qwen3-4b", "Qwen/Qwen3-Embedding-4B", 2560, 0.62),
  qwen("qwen3-0.6b", "Qwen/Qwen3-Embedding-0.6B", 1024, 0.45),
  {
    name: "euler-legal-v1",
    provider: "openai",
    model: "Mira190/Euler-Legal-Embedding-V1",
    queryTemplate: "{text}",
    documentTemplate: "{text}",
    paperRecall100: 0.68,
    note: "no templates",
  },
  { name: "jina-v5-small", provider: "openai", model: "jinaai/jina-embeddings-v5-text-small", queryTemplate: "Query: {text}", documentTemplate: "Document: {text}" },
  { name: "arctic-v2", provider: "openai", model: "Snowflake/snowflake-arctic-embed-l-v2.0", dims: 1024, queryTemplate: "query: {text}", documentTemplate: "{text}" },
  {
    name: "embgemma-300m",
    provider: "openai",
    model: "google/embeddinggemma-300m",
    dims: 768,
    queryTemplate: "task: search result | query: {text}",
    documentTemplate: "title: none | text: {text}",
    note: "with the model's retrieval prompts, as the authors' experiments notebook encodes",
  },
  {
    name: "embgemma-300m-raw",
    provider: "openai",
    model: "google/embeddinggemma-300m",
    dims: 768,
    queryTemplate: "{text}",
    documentTemplate: "{text}",
    note: "raw texts, no prompts, as the authors' retrieval quickstart encodes (its ≈0.39 Recall@100 on the public release)",
  },
  {
    name: "nomic-v1.5",
    provider: "openai",
    model: "nomic-ai/nomic-embed-text-v1.5",
    dims: 768,
    queryTemplate: "search_query: {text}",
    documentTemplate: "search_document: {text}",
    paperRecall100: 0.08,
  },
  {
    name: "gemini-001",
    provider: "gemini",
    model: "gemini-embedding-001",
    dims: 3072,
    // Gemini takes the side as a task type (RETRIEVAL_QUERY / RETRIEVAL_DOCUMENT), not as text.
    queryTemplate: "{text}",
    documentTemplate: "{text}",
    batchSize: 100,
    paperRecall100: 0.77,
  },
];

/** The built-ins' in-process forms (`--local`): the ONNX exports, with the pooling and limits their model cards give (docs/dense.md). */
export const LOCAL_FORMS: Readonly<Record<string, LocalModel>> = Object.freeze({
  "qwen3-0.6b": { model: "onnx-community/Qwen3-Embedding-0.6B-ONNX", revision: "main", dtype: "fp32", pooling: "last", normalize: true, maxTokens: 8192, params: 596 },
  "arctic-v2": { model: "Snowflake/snowflake-arctic-embed-l-v2.0", revision: "509645281ad1ef0e627995dbcc9d7e4b57db0f38", dtype: "fp32", pooling: "cls", normalize: true, maxTokens: 8192, params: 568 },
  "embgemma-300m": { model: "onnx-community/embeddinggemma-300m-ONNX", revision: "75a84c732f1884df76bec365346230e32f582c82", dtype: "fp32", pooling: "model", normalize: true, maxTokens: 2048, params: 308 },
  "embgemma-300m-raw": { model: "onnx-community/embeddinggemma-300m-ONNX", revision: "75a84c732f1884df76bec365346230e32f582c82", dtype: "fp32", pooling: "model", normalize: true, maxTokens: 2048, params: 308 },
  "nomic-v1.5": { model: "nomic-ai/nomic-embed-text-v1.5", revision: "main", dtype: "fp32", pooling: "mean", normalize: true, maxTokens: 2048, params: 137 },
});

/** Each built-in preset's model name in the authors' runs (experiments notebook at commit 992f5224). */
export const AUTHORS_SERVED_NAMES: Readonly<Record<string, { model: string; server?: "lmstudio" }>> = Object.freeze({
  "qwen3-8b": { model: "text-embedding-qwen3-embedding-8b", server: "lmstudio" },
  "qwen3-4b": { model: "text-embedding-qwen3-embedding-4b", server: "lmstudio" },
  "qwen3-0.6b": { model: "text-embedding-qwen3-embedding-0.6b", server: "lmstudio" },
  "embgemma-300m": { model: "text-embedding-embeddinggemma-300m-qat", server: "lmstudio" },
  "embgemma-300m-raw": { model: "text-embedding-embeddinggemma-300m-qat", server: "lmstudio" },
  "nomic-v1.5": { model: "text-embedding-nomic-embed-text-v1.5", server: "lmstudio" },
  "euler-legal-v1": { model: "Mira190/Euler-Legal-Embedding-V1" },
  "jina-v5-small": { model: "jinaai/jina-embeddings-v5-text-small" },
  "arctic-v2": { model: "Snowflake/snowflake-arctic-embed-l-v2.0" },
  "gemini-001": { model: "gemini-embedding-001" },
});

/** "authors" naming sends request for request what their notebook sent (served names, one plain string per request). */
export function builtinPresets(naming: EmbedNaming = "hf", local = false): EmbeddingPreset[] {
  if (local) return BUILTIN_PRESETS.map((p) => (LOCAL_FORMS[p.name] ? inProcess(p, LOCAL_FORMS[p.name]) : { ...p }));
  if (naming === "hf") return BUILTIN_PRESETS.map((p) => ({ ...p, ...(LOCAL_FORMS[p.name] ? { local: LOCAL_FORMS[p.name] } : {}) }));
  return BUILTIN_PRESETS.map((p) => {
    const served = AUTHORS_SERVED_NAMES[p.name];
    if (!served) throw new Error(`preset '${p.name}': no served name recorded for GBR_EMBED_NAMES=authors`);
    const out: EmbeddingPreset = { ...p, model: served.model, batchSize: 1 };
    if (p.provider === "openai") out.input = "string";
    if (served.server) out.server = served.server;
    return out;
  });
}

/** A preset run in-process: its templates and size, the ONNX model's repository and settings. */
function inProcess(p: EmbeddingPreset, local: LocalModel): EmbeddingPreset {
  const { batchSize: _batch, input: _input, server: _server, ...rest } = p;
  return { ...rest, provider: "local", model: local.model, local };
}

export function renderTemplate(p: EmbeddingPreset, side: Side, text: string): string {
  return fillTemplate(side === "query" ? p.queryTemplate : p.documentTemplate, "{text}", text);
}

/** split/join, not replace: a "$" in legal text must not be read as a replacement pattern. */
export function fillTemplate(template: string, slot: string, text: string): string {
  return template.split(slot).join(text);
}

/** The identity of a vector space (provider, model, size, templates); it names the cache table. */
export function presetFingerprint(p: EmbeddingPreset): string {
  const fields: unknown[] = [p.provider, p.model, p.dims ?? null, p.queryTemplate, p.documentTemplate];
  // In-process settings change the vectors; servers' fingerprints stay as earlier versions wrote them.
  if (p.provider === "local" && p.local) fields.push(p.local.revision, p.local.dtype, p.local.pooling ?? "mean", p.local.normalize ?? false, p.local.maxTokens ?? null);
  const identity = JSON.stringify(fields);
  const hash = createHash("sha256").update(identity).digest("hex").slice(0, 12);
  return `${p.name.replace(/[^A-Za-z0-9_-]/g, "_")}-${hash}`;
}

/** A text is never sent twice, even from another benchmark. */
export function textKey(rendered: string): string {
  return createHash("sha256").update(rendered).digest("hex");
}

/** The configuration's presets file (`GBR_PRESETS`), else `gbr-presets.json` in the working directory if present. */
export function userPresetsFile(config: Pick<Config, "presetsFile">): string | undefined {
  if (config.presetsFile) return config.presetsFile;
  const local = path.resolve("gbr-presets.json");
  return existsSync(local) ? local : undefined;
}

/** Built-in presets plus the user's (`{"presets": [...]}`); a user preset replaces a built-in of its name. */
export function allPresets(file: string | undefined, naming: EmbedNaming, local = false): EmbeddingPreset[] {
  const byName = new Map(builtinPresets(naming, local).map((p) => [p.name, p]));
  if (file) for (const p of readUserPresets(file)) byName.set(p.name, p);
  return [...byName.values()];
}

/** The preset of that name, else a usage error naming the nearest and the known ones (`kind`: "embedding", "re-ranker"). */
export function preset<P extends { name: string }>(name: string, presets: readonly P[], kind = "embedding", hint?: string): P {
  const p = presets.find((x) => x.name === name);
  const names = presets.map((x) => x.name);
  if (!p) throw new GbrError(`unknown ${kind} preset '${name}'${didYouMean(name, names)}; known: ${names.join(", ")}`,
    "USAGE", { hint });
  return p;
}

/** The presets file's array under `key`, if it has one. */
export function presetsInFile(file: string, key: "presets" | "rerankers"): unknown[] {
  const parsed: unknown = parsedOr(() => JSON.parse(readFileSync(file, "utf8")), (why) => new GbrError(`${file}: not a readable presets file (${why})`, "USAGE"));
  const keys = parsed && typeof parsed === "object" && !Array.isArray(parsed) ? Object.keys(parsed) : [];
  if (!keys.includes("presets") && !keys.includes("rerankers")) throw new GbrError(`${file}: neither "presets" nor "rerankers" is there`, "USAGE");
  const list = (parsed as Record<string, unknown>)[key] ?? [];
  if (!Array.isArray(list)) throw new GbrError(`${file}: "${key}" must be an array of presets`, "USAGE");
  return list;
}

function readUserPresets(file: string): EmbeddingPreset[] {
  return presetsInFile(file, "presets").map((raw, i) => {
    const p = raw as Partial<EmbeddingPreset>;
    const where = `${file}: presets[${i}]`;
    for (const field of ["name", "provider", "model"] as const) {
      if (typeof p[field] !== "string" || p[field] === "") throw new Error(`${where}: "${field}" must be a non-empty string`);
    }
    if (!["openai", "gemini", "local"].includes(p.provider!)) throw new Error(`${where}: provider must be "openai", "gemini" or "local"`);
    if (p.provider === "local") p.local = localModelOf(raw as Record<string, unknown>, where);
    for (const field of ["queryTemplate", "documentTemplate"] as const) {
      if (p[field] === undefined) p[field] = "{text}";
      if (typeof p[field] !== "string" || !p[field]!.includes("{text}")) throw new Error(`${where}: ${field} must contain {text}`);
    }
    if (p.dims !== undefined && !(Number.isInteger(p.dims) && p.dims > 0)) throw new Error(`${where}: dims must be a positive integer`);
    if (p.batchSize !== undefined && !(Number.isInteger(p.batchSize) && p.batchSize > 0)) throw new Error(`${where}: batchSize must be a positive integer`);
    if (p.input !== undefined && p.input !== "array" && p.input !== "string") throw new Error(`${where}: input must be "array" or "string"`);
    if (p.input === "string" && p.provider !== "openai") throw new Error(`${where}: input "string" applies to provider "openai" only`);
    if (p.input === "string" && p.batchSize !== undefined && p.batchSize !== 1) throw new Error(`${where}: input "string" sends one text per request, so batchSize must be 1`);
    if (p.server !== undefined && p.server !== "lmstudio") throw new Error(`${where}: server must be "lmstudio" when given`);
    return p as EmbeddingPreset;
  });
}

const POOLINGS = ["mean", "cls", "last", "model"];

/** A user preset's in-process fields (`"provider": "local"`), checked; `where` names the entry in errors. */
export function localModelOf(u: Record<string, unknown>, where: string): LocalModel {
  const bad = (what: string) => new GbrError(`${where}: ${what}`, "USAGE");
  if (typeof u.revision !== "string" || u.revision === "") throw bad('"revision" must be a non-empty string (a branch, tag or commit)');
  const dtype = u.dtype ?? "fp32";
  if (typeof dtype !== "string") throw bad('"dtype" must be a string such as "fp32" or "q8"');
  if (u.pooling !== undefined && !POOLINGS.includes(u.pooling as string)) throw bad(`"pooling" must be one of ${POOLINGS.join(", ")}`);
  if (u.normalize !== undefined && typeof u.normalize !== "boolean") throw bad('"normalize" must be true or false');
  if (u.maxTokens !== undefined && !(Number.isInteger(u.maxTokens) && (u.maxTokens as number) > 0)) throw bad('"maxTokens" must be a positive integer');
  const m: LocalModel = { model: u.model as string, revision: u.revision, dtype };
  if (u.pooling !== undefined) m.pooling = u.pooling as LocalModel["pooling"];
  if (u.normalize !== undefined) m.normalize = u.normalize as boolean;
  if (u.maxTokens !== undefined) m.maxTokens = u.maxTokens as number;
  return m;
}
