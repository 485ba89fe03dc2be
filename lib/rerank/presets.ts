/**
 * Cross-encoder re-rankers as this project serves them: the model name a rerank endpoint knows,
 * how query and article are framed before they are sent, how long an article may be, and how
 * many articles go in one request.
 *
 * ## Why articles are cut here, before sending
 * Rerank servers disagree on over-long input: vLLM and Text Embeddings Inference (without
 * `truncate`) answer 400/413 for the whole request, so one long article would fail its 31
 * neighbours in the batch; others cut silently, somewhere we cannot see and at a length we do not
 * know. Cutting on the client makes the input the model saw a property of the preset: it is part
 * of the score cache key and is counted (`truncated` in the run's info).
 *
 * ## Characters per token
 * Limits are set in characters from each model's maximum input in tokens, assuming about 3
 * characters per token for Greek legal text under these models' multilingual tokenizers (XLM-R
 * for bge-m3 and Jina, Qwen's BPE): Greek words split into more pieces than English ones, so
 * English's ~4 would overflow. The budget also leaves room for the query (the bar-exam questions
 * are under 500 characters; the "long" variant's case facts reach 3,500, about 1,200 tokens) and
 * for the template and special tokens.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { GbrError } from "../util/errors";
import { didYouMean } from "../util/suggest";
import { userPresetsFile } from "../dense/presets";

/**
 * One cross-encoder re-ranker: model name as the server knows it, the text framing of each side
 * (`{query}` and `{text}` are replaced), the longest article sent, and the documents per request.
 */
export interface RerankPreset {
  name: string;
  /** Model name sent in each request (override per deployment with a user preset). */
  model: string;
  /** Applied client-side; "{query}" unless the model card prescribes a framing the server does not apply. */
  queryTemplate: string;
  /** Applied client-side to each article (after cutting it to `maxDocumentChars`). */
  documentTemplate: string;
  /** Articles longer than this (UTF-16 units, i.e. characters for Greek) are cut before sending. */
  maxDocumentChars: number;
  /** Documents per request (default 32). */
  batchSize: number;
  note?: string;
}

/** Documents per rerank request when a preset does not say. */
export const DEFAULT_RERANK_BATCH = 32;

/**
 * The instruction the Qwen3 re-rankers get: the project's own, for this task (the model card's
 * default speaks of web search).
 */
export const QWEN3_RERANK_INSTRUCTION =
  "Given a Greek bar-exam question with its case facts, judge whether the statutory article is relevant to answering it";

// The chat framing the Qwen3-Reranker model card prescribes for vLLM's score/rerank API, whose
// classifier reads the "yes"/"no" logits after the assistant turn; vLLM concatenates the two
// strings as they are, so the whole framing must come from the client.
const QWEN3_SYSTEM =
  'Judge whether the Document meets the requirements based on the Query and the Instruct provided. Note that the answer can only be "yes" or "no".';
const QWEN3_QUERY = `<|im_start|>system\n${QWEN3_SYSTEM}<|im_end|>\n<|im_start|>user\n<Instruct>: ${QWEN3_RERANK_INSTRUCTION}\n<Query>: {query}\n`;
const QWEN3_DOCUMENT = "<Document>: {text}<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n";

const qwen3 = (size: string): RerankPreset => ({
  name: `qwen3-reranker-${size.toLowerCase()}`,
  model: `Qwen/Qwen3-Reranker-${size}`,
  queryTemplate: QWEN3_QUERY,
  documentTemplate: QWEN3_DOCUMENT,
  // 32k context, but servers are usually started with --max-model-len 8192 to fit memory; 20,000
  // characters (~6,700 tokens) plus the query and framing stays inside that.
  maxDocumentChars: 20_000,
  batchSize: DEFAULT_RERANK_BATCH,
  note: "vLLM with hf_overrides Qwen3ForSequenceClassification / classifier_from_token [no, yes] / is_original_qwen3_reranker; framing applied client-side",
});

/**
 * The built-in re-rankers. Model names are the Hugging Face ids vLLM and TEI serve them under; a
 * user preset of the same name fixes any other server's naming.
 */
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
    // 1,024 tokens per pair: ~800 for the article, ~220 for a standard query. The long queries
    // (≈1,200 tokens) do not fit this model at all; the server then cuts or refuses them.
    maxDocumentChars: 2_400,
    batchSize: DEFAULT_RERANK_BATCH,
    note: "1,024-token pairs: about a quarter of the articles are cut",
  },
  qwen3("0.6B"),
  qwen3("4B"),
  qwen3("8B"),
];

/**
 * Fills the query template.
 */
export function renderRerankQuery(p: RerankPreset, query: string): string {
  // split/join, not replace: a "$" in legal text must not be read as a replacement pattern.
  return p.queryTemplate.split("{query}").join(query);
}

/**
 * An article as sent: cut to `maxDocumentChars` (never inside a surrogate pair), then framed by
 * the document template; `truncated` says whether it was cut.
 */
export function renderRerankDocument(p: RerankPreset, article: string): { text: string; truncated: boolean } {
  let body = article;
  const truncated = article.length > p.maxDocumentChars;
  if (truncated) {
    body = article.slice(0, p.maxDocumentChars);
    const last = body.charCodeAt(body.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) body = body.slice(0, -1);
  }
  return { text: p.documentTemplate.split("{text}").join(body), truncated };
}

/**
 * The identity of a preset's scores: model, both templates and the article limit (not the name,
 * nor the batch size, which change no score). Part of every score cache key, so a changed
 * template or limit is scored again and nothing stale is reused.
 */
export function rerankFingerprint(p: RerankPreset): string {
  const identity = JSON.stringify([p.model, p.queryTemplate, p.documentTemplate, p.maxDocumentChars]);
  return createHash("sha256").update(identity).digest("hex").slice(0, 16);
}

/**
 * Built-in presets plus the user's, read from the `rerankers` array of the embedding presets file
 * (`GBR_PRESETS`, else ./gbr-presets.json): `{"rerankers": [{name, model?, queryTemplate?,
 * documentTemplate?, maxDocumentChars?, batchSize?, note?}]}`. A user preset with a built-in's name
 * replaces it, its missing fields taken from the built-in (so `{name, model}` renames the model
 * for one server); a new name needs `model` and `maxDocumentChars`. `null` reads no file (an
 * explicit undefined, as any default parameter, means the default file).
 */
export function allRerankPresets(file: string | null | undefined = userPresetsFile()): RerankPreset[] {
  const byName = new Map(BUILTIN_RERANK_PRESETS.map((p) => [p.name, { ...p }]));
  if (file) for (const p of readUserRerankers(file, byName)) byName.set(p.name, p);
  return [...byName.values()];
}

/**
 * A re-ranker preset by name (built-in or user); a usage error with the nearest name otherwise.
 */
export function rerankPreset(name: string, presets: readonly RerankPreset[] = allRerankPresets()): RerankPreset {
  const p = presets.find((x) => x.name === name);
  if (p) return p;
  const names = presets.map((x) => x.name);
  throw new GbrError(`unknown re-ranker preset '${name}'${didYouMean(name, names)}; known: ${names.join(", ")}`, "USAGE", {
    hint: 'add it to the "rerankers" array of gbr-presets.json (or the file GBR_PRESETS names)',
  });
}

function readUserRerankers(file: string, builtins: ReadonlyMap<string, RerankPreset>): RerankPreset[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw new GbrError(`${file}: not a readable presets file (${(err as Error).message})`, "USAGE");
  }
  const list = (parsed as { rerankers?: unknown } | null)?.rerankers;
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new GbrError(`${file}: "rerankers" must be an array of presets`, "USAGE");
  return list.map((raw, i) => {
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
    return p as unknown as RerankPreset;
  });
}
