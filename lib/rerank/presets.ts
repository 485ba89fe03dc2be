/**
 * Cross-encoder presets. Articles are cut client-side (vLLM and TEI fail a whole batch on one long one, 400/413);
 * limits assume ~3 chars/token for Greek legal text (not English's ~4), with room for the query (long: ~1,200 tokens).
 */
import { createHash } from "node:crypto";
import { GbrError } from "../util/errors";
import { fillTemplate, localModelOf, preset, presetsInFile } from "../dense/presets";
import type { LocalModel } from "../models/embed";

/** One cross-encoder re-ranker; templates (`{query}`, `{text}`) are applied client-side, articles cut first. */
export interface RerankPreset {
  name: string;
  model: string;
  queryTemplate: string;
  documentTemplate: string;
  /** Articles longer than this (UTF-16 units, i.e. characters for Greek) are cut before sending. */
  maxDocumentChars: number;
  batchSize: number;
  note?: string;
  /** "local": run in-process (lib/providers/local-model.ts) as `local` says, not through the rerank server. */
  provider?: "local";
  local?: LocalModel;
}

/** The built-ins' in-process forms (`--local`); 512 tokens a pair, as the model card's examples. */
const LOCAL_RERANK_FORMS: Readonly<Record<string, LocalModel>> = Object.freeze({
  "bge-reranker-v2-m3": { model: "onnx-community/bge-reranker-v2-m3-ONNX", revision: "main", dtype: "fp32", maxTokens: 512, params: 568 },
});

const DEFAULT_RERANK_BATCH = 32;

/** The project's own instruction for this task (the model card's default speaks of web search). */
export const QWEN3_RERANK_INSTRUCTION =
  "Given a Greek bar-exam question with its case facts, judge whether the statutory article is relevant to answering it";

// The model card's framing for vLLM's score API; vLLM concatenates the strings as they are, so the client adds it.
const QWEN3_SYSTEM =
  'Judge whether the Document meets the requirements based on the Query and the Instruct provided. Note that the answer can only be "yes" or "no".';
const QWEN3_QUERY = `<|im_start|>system\n${QWEN3_SYSTEM}<|im_end|>\n<|im_start|>user\n<Instruct>: ${QWEN3_RERANK_INSTRUCTION}\n<Query>: {query}\n`;
const QWEN3_DOCUMENT = "<Document>: {text}<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n";

const qwen3 = (size: string): RerankPreset => ({
  name: `qwen3-reranker-${size.toLowerCase()}`,
  model: `Qwen/Qwen3-Reranker-${size}`,
  queryTemplate: QWEN3_QUERY,
  documentTemplate: QWEN3_DOCUMENT,
  // 32k context, but servers usually run --max-model-len 8192: 20,000 chars (~6,700 tokens) plus query fit.
  maxDocumentChars: 20_000,
  batchSize: DEFAULT_RERANK_BATCH,
  note: "vLLM with hf_overrides Qwen3ForSequenceClassification / classifier_from_token [no, yes] / is_original_qwen3_reranker; framing applied client-side",
});

/** Model names are the Hugging Face ids vLLM and TEI serve; a user preset of the same name fixes other naming. */
export const BUILTIN_RERANK_PRESETS: readonly RerankPreset[] = [
  {
    name: "bge-reranker-v2-m3",
    model: "BAAI/bge-reranker-v2-m3",
    queryTemplate: "{query}",
    documentTemplate: "{text}",
    // 8,192 tokens per pair: ~6,700 for the article leaves room for the longest query.
    maxDocumentChars: 20_000,
    batchSize: DEFAULT_RERANK_BATCH,
    note: "plain pairs; the server adds the separator tokens",
  },
  {
    name: "jina-reranker-v2-base-multilingual",
    model: "jinaai/jina-reranker-v2-base-multilingual",
    queryTemplate: "{query}",
    documentTemplate: "{text}",
    // 1,024 tokens per pair: ~800 for the article, ~220 for a standard query; long queries (≈1,200) cannot fit.
    maxDocumentChars: 2_400,
    batchSize: DEFAULT_RERANK_BATCH,
    note: "1,024-token pairs: about a quarter of the articles are cut",
  },
  qwen3("0.6B"),
  qwen3("4B"),
  qwen3("8B"),
];

export function renderRerankQuery(p: RerankPreset, query: string): string {
  return fillTemplate(p.queryTemplate, "{query}", query);
}

/** Cut to `maxDocumentChars` (never inside a surrogate pair), then framed. */
export function renderRerankDocument(p: RerankPreset, article: string): string {
  let body = article.slice(0, p.maxDocumentChars);
  const last = body.charCodeAt(body.length - 1);
  if (body.length < article.length && last >= 0xd800 && last <= 0xdbff) body = body.slice(0, -1);
  return fillTemplate(p.documentTemplate, "{text}", body);
}

/** Model, templates and article limit (not name or batch size): in every score cache key, so a change rescores. */
export function rerankFingerprint(p: RerankPreset): string {
  const fields: unknown[] = [p.model, p.queryTemplate, p.documentTemplate, p.maxDocumentChars];
  if (p.provider === "local" && p.local) fields.push(p.local.revision, p.local.dtype, p.local.maxTokens ?? null);
  const identity = JSON.stringify(fields);
  return createHash("sha256").update(identity).digest("hex").slice(0, 16);
}

/** Built-ins plus the presets file's `rerankers`: a user preset overrides a built-in's fields by name. */
export function allRerankPresets(file: string | null | undefined, local = false): RerankPreset[] {
  const byName = new Map(BUILTIN_RERANK_PRESETS.map((p) => [p.name, { ...p }]));
  if (file) for (const p of readUserRerankers(file, byName)) byName.set(p.name, p);
  // The in-process form replaces the server model of a built-in (a user's override of its other fields included).
  const form = (p: RerankPreset): RerankPreset => {
    const m = local && !p.provider ? LOCAL_RERANK_FORMS[p.name] : undefined;
    return m && p.model === BUILTIN_RERANK_PRESETS.find((b) => b.name === p.name)?.model ? { ...p, provider: "local", model: m.model, local: m } : p;
  };
  return [...byName.values()].map(form);
}

export function rerankPreset(name: string, presets: readonly RerankPreset[] = BUILTIN_RERANK_PRESETS): RerankPreset {
  return preset(name, presets, "re-ranker",
    'add it to the "rerankers" array of gbr-presets.json (or the file GBR_PRESETS names)');
}

function readUserRerankers(file: string, builtins: ReadonlyMap<string, RerankPreset>): RerankPreset[] {
  return presetsInFile(file, "rerankers").map((raw, i) => {
    const where = `${file}: rerankers[${i}]`;
    if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw new GbrError(`${where}: expected an object`, "USAGE");
    const u = raw as Partial<Record<keyof RerankPreset, unknown>>;
    if (typeof u.name !== "string" || u.name === "") throw new GbrError(`${where}: "name" must be a non-empty string`, "USAGE");
    const base = builtins.get(u.name);
    const p = { queryTemplate: "{query}", documentTemplate: "{text}", batchSize: DEFAULT_RERANK_BATCH, ...base, ...u } as Record<keyof RerankPreset, unknown>;
    const at = `${where} ('${u.name}')`;
    if (typeof p.model !== "string" || p.model === "") throw new GbrError(`${at}: "model" must be a non-empty string`, "USAGE");
    if (typeof p.queryTemplate !== "string" || !p.queryTemplate.includes("{query}")) throw new GbrError(`${at}: queryTemplate must contain {query}`, "USAGE");
    if (typeof p.documentTemplate !== "string" || !p.documentTemplate.includes("{text}")) throw new GbrError(`${at}: documentTemplate must contain {text}`, "USAGE");
    for (const field of ["maxDocumentChars", "batchSize"] as const) {
      if (!(Number.isInteger(p[field]) && (p[field] as number) > 0)) throw new GbrError(`${at}: ${field} must be a positive integer${p[field] === undefined ? " (required for a new preset)" : ""}`, "USAGE");
    }
    if (p.note !== undefined && typeof p.note !== "string") throw new GbrError(`${at}: note must be a string`, "USAGE");
    if (p.provider !== undefined && p.provider !== "local") throw new GbrError(`${at}: provider must be "local" when given (a server is the default)`, "USAGE");
    if (p.provider === "local") p.local = localModelOf(p as Record<string, unknown>, at);
    return p as unknown as RerankPreset;
  });
}
