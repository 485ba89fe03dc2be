/**
 * In-process ONNX models through @huggingface/transformers (an optional peer), weights fetched by pullModel.
 * Every call runs one fixed shape per length bucket (rows × tokens): onnxruntime's CPU kernels give other bits for
 * other shapes, and a vector must not depend on the texts it was batched with.
 */
import path from "node:path";
import type { Config } from "../config";
import { pullModel } from "../data/hub-model";
import { EmbeddingError, LOCAL_THREADS, localRuntime, type Embedder, type LocalModel } from "../models/embed";
import { RerankError, type RerankClient } from "../models/rerank";

/** Tokens per model call (rows × padded length): bounds memory on long texts. */
const TOKENS_PER_CALL = 16_384;

// The few parts of transformers.js used here, typed locally: the package is optional and its types need no loading.
type Tensor = { data: Float32Array | BigInt64Array; dims: number[]; normalize(p: number, dim: number): Tensor };
type Encoding = Record<string, Tensor> & { attention_mask: Tensor };
interface Tokenizer {
  (texts: string[], o: { text_pair?: string[]; padding: "max_length"; max_length: number; truncation: true }): Encoding;
  encode(text: string, o?: { text_pair?: string }): number[];
  model_max_length?: number;
}
type Model = ((enc: Encoding) => Promise<Record<string, Tensor>>) & { dispose?(): Promise<void> };
interface Transformers {
  env: { allowRemoteModels: boolean; allowLocalModels: boolean; useFSCache: boolean; localModelPath: string };
  AutoTokenizer: { from_pretrained(id: string): Promise<Tokenizer> };
  AutoModel: { from_pretrained(id: string, o: object): Promise<Model> };
  AutoModelForSequenceClassification: { from_pretrained(id: string, o: object): Promise<Model> };
  Tensor: new (type: string, data: Float32Array, dims: number[]) => Tensor;
  mean_pooling(h: Tensor, mask: Tensor): Tensor;
}

const PACKAGE = "@huggingface/transformers";

interface Loaded {
  T: Transformers;
  tokenizer: Tokenizer;
  model: Model;
  /** The tokenizer's model_max_length, when it gives a real one (many say 1e30). */
  ownLimit?: number;
}

/** Tokens a text is cut to: the preset's maxTokens, at most the tokenizer's own limit; 512 when neither says. */
const limitOf = (l: Loaded, m: LocalModel) => Math.min(m.maxTokens ?? l.ownLimit ?? 512, l.ownLimit ?? Infinity);

const loads = new Map<string, Promise<Loaded>>();
// One model opens at a time: transformers.js's settings (env) are global to the process.
let opening: Promise<unknown> = Promise.resolve();

/** The model of `m`, fetched (or from the cache) and opened once per process and kind. */
function load(config: Config, m: LocalModel, kind: "embed" | "rerank", log?: (message: string) => void): Promise<Loaded> {
  const key = JSON.stringify([kind, m.model, m.revision, m.dtype, config.dataDir]);
  let loaded = loads.get(key);
  if (!loaded) {
    loaded = opening.then(() => open(config, m, kind, log));
    opening = loaded.catch(() => undefined);
    loads.set(key, loaded);
    loaded.catch(() => loads.delete(key));
  }
  return loaded;
}

async function open(config: Config, m: LocalModel, kind: "embed" | "rerank", log?: (message: string) => void): Promise<Loaded> {
  const T = await transformers(kind);
  const { dir } = await pullModel({ ...config.hub, cacheRoot: path.join(config.dataDir, "hf"), repo: m.model, revision: m.revision, dtype: m.dtype, ...(log ? { log } : {}) });
  // Loaded from the verified folder only: transformers.js's own cache would skip the checks and the pinned revision.
  // The id is the folder's name ("files", as transformers.js accepts only owner/name ids): opens run one at a time.
  Object.assign(T.env, { allowRemoteModels: false, allowLocalModels: true, useFSCache: false, localModelPath: path.dirname(dir) + path.sep });
  const id = path.basename(dir);
  const tokenizer = await T.AutoTokenizer.from_pretrained(id);
  const Auto = kind === "embed" ? T.AutoModel : T.AutoModelForSequenceClassification;
  const model = await Auto.from_pretrained(id, { dtype: m.dtype, session_options: { intraOpNumThreads: LOCAL_THREADS } });
  const own = tokenizer.model_max_length;
  return { T, tokenizer, model, ...(own !== undefined && own > 0 && own < 1e6 ? { ownLimit: own } : {}) };
}

async function transformers(kind: "embed" | "rerank"): Promise<Transformers> {
  try {
    // A variable, so TypeScript does not need the optional package's types.
    const name = PACKAGE;
    return (await import(name)) as Transformers;
  } catch (err) {
    const brief = `in-process models need ${PACKAGE}: npm i ${PACKAGE}`;
    const message = `${brief} (not found: ${(err as Error).message.split("\n")[0]})`;
    const hint = "on Linux x64 set ONNXRUNTIME_NODE_INSTALL=skip first: onnxruntime-node otherwise downloads CUDA binaries";
    if (kind === "embed") throw new EmbeddingError(message, "NOT_CONFIGURED", { brief, hint });
    throw new RerankError(message, "NOT_CONFIGURED", undefined, false, undefined, hint, brief);
  }
}

/** The padded length of a text of `tokens`: a power of two from 16, at most the model's limit. */
export function bucket(tokens: number, limit: number): number {
  let length = 16;
  while (length < tokens) length *= 2;
  return Math.min(length, limit);
}

/**
 * Runs inputs of these token counts in fixed shapes, shortest first: a call holds one length bucket, with the rows
 * that bucket always has (the last input repeated to fill them); `call` gets each row's input index.
 */
export async function inFixedShapes(
  lengths: readonly number[],
  limit: number,
  maxRows: number,
  call: (rows: number[], length: number) => Promise<void>,
): Promise<void> {
  const order = lengths.map((_, i) => i).sort((a, b) => lengths[a] - lengths[b] || a - b);
  const rowsAt = (length: number) => Math.max(1, Math.min(maxRows, Math.floor(TOKENS_PER_CALL / length)));
  for (let s = 0; s < order.length; ) {
    // A call holds one bucket only: a text's padded length must not depend on its neighbours.
    const length = bucket(lengths[order[s]], limit);
    let e = s + 1;
    while (e < order.length && e - s < rowsAt(length) && bucket(lengths[order[e]], limit) === length) e++;
    const rows = order.slice(s, e);
    while (rows.length < rowsAt(length)) rows.push(rows[rows.length - 1]);
    await call(rows, length);
    s = e;
  }
}

/**
 * An Embedder running `m` in-process: pooled as `m.pooling` says, L2-normalised when `m.normalize`.
 * @example
 * // const e = localEmbedder(config, { model: "org/tiny-embed", revision: "main", dtype: "fp32", pooling: "mean", normalize: true });
 * // const { vectors } = await e.embed(["άρθρο 57 ΑΚ"], "query");
 */
export function localEmbedder(config: Config, m: LocalModel, batchSize = 32, log?: (message: string) => void): Embedder {
  const pooling = m.pooling ?? "mean";
  const lengths = async (texts: string[]) => {
    const l = await load(config, m, "embed", log);
    return { l, limit: limitOf(l, m), lengths: texts.map((t) => l.tokenizer.encode(t).length) };
  };
  return {
    id: `local:${m.model}@${m.revision}:${m.dtype}`,
    maxBatch: batchSize,
    endpoint: "local",
    capacity: 1,
    lengthSorted: true,
    async overLimit(texts) {
      const { limit, lengths: n } = await lengths(texts);
      return n.filter((x) => x > limit).length;
    },
    async embed(texts) {
      const { l, limit, lengths: n } = await lengths(texts);
      const vectors = new Array<Float32Array>(texts.length);
      await inFixedShapes(n, limit, batchSize, async (rows, length) => {
        const enc = l.tokenizer(rows.map((i) => texts[i]), { padding: "max_length", max_length: length, truncation: true });
        const pooled = pool(l, await l.model(enc), enc, pooling, m.model);
        const out = (m.normalize ? pooled.normalize(2, -1) : pooled).data as Float32Array;
        const dims = pooled.dims[1];
        rows.forEach((i, r) => (vectors[i] ??= out.slice(r * dims, (r + 1) * dims)));
      });
      return { vectors, tokens: n.reduce((a, x) => a + Math.min(x, limit), 0) };
    },
  };
}

/** [rows, dims] from the model's outputs; cls and last read the hidden states at the first and last real token. */
function pool(l: Loaded, out: Record<string, Tensor>, enc: Encoding, pooling: NonNullable<LocalModel["pooling"]>, model: string): Tensor {
  if (pooling === "model") {
    const own = out.sentence_embedding ?? Object.values(out).find((t) => t.dims.length === 2);
    if (!own) throw new EmbeddingError(`${model}: pooling "model" but the graph has no pooled output (it gives ${Object.keys(out).join(", ")})`, "BAD_VECTOR");
    return own;
  }
  const h = out.last_hidden_state ?? out.token_embeddings;
  if (!h) throw new EmbeddingError(`${model}: the graph has no last_hidden_state (it gives ${Object.keys(out).join(", ")})`, "BAD_VECTOR");
  if (pooling === "mean") return l.T.mean_pooling(h, enc.attention_mask);
  const [rows, length, dims] = h.dims;
  const mask = enc.attention_mask.data as BigInt64Array;
  const data = new Float32Array(rows * dims);
  for (let r = 0; r < rows; r++) {
    let at = 0;
    if (pooling === "last") for (let t = 0; t < length; t++) if (mask[r * length + t] !== 0n) at = t;
    data.set((h.data as Float32Array).subarray((r * length + at) * dims, (r * length + at + 1) * dims), r * dims);
  }
  return new l.T.Tensor("float32", data, [rows, dims]);
}

/**
 * A cross-encoder run in-process: the raw first logit of each (query, document) text pair, in fixed shapes.
 * @example
 * // const c = localReranker(config, { model: "org/tiny-ce", revision: "main", dtype: "fp32" });
 * // const { scores } = await c.rerank("org/tiny-ce", "προσβολή", ["άρθρο 57", "άρθρο 59"]);
 */
export function localReranker(config: Config, m: LocalModel, batchSize = 32, log?: (message: string) => void): RerankClient {
  return {
    id: `local:${m.model}@${m.revision}:${m.dtype}`,
    endpoint: "local",
    runtime: localRuntime(m),
    capacity: 1,
    async rerank(_model, query, documents) {
      const l = await load(config, m, "rerank", log);
      const limit = limitOf(l, m);
      const n = documents.map((d) => l.tokenizer.encode(query, { text_pair: d }).length);
      const scores = new Array<number>(documents.length);
      await inFixedShapes(n, limit, batchSize, async (rows, length) => {
        const enc = l.tokenizer(rows.map(() => query), { text_pair: rows.map((i) => documents[i]), padding: "max_length", max_length: length, truncation: true });
        const { logits } = await l.model(enc);
        const labels = logits.dims[1];
        rows.forEach((i, r) => (scores[i] ??= (logits.data as Float32Array)[r * labels]));
      });
      return { scores, standIn: false, tokens: n.reduce((a, x) => a + Math.min(x, limit), 0), truncated: n.filter((x) => x > limit).length };
    },
  };
}
