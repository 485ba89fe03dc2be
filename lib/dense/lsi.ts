/**
 * Latent semantic indexing (Deerwester et al. 1990) as an offline "dense" retriever: a
 * truncated SVD of the corpus's TF-IDF matrix, computed here with a seeded randomized SVD
 * (Halko, Martinsson & Tropp 2011) on typed arrays (its products in a small WebAssembly SIMD
 * kernel), so it needs no model download, no API and no native code, and gives a reproducible
 * dense baseline next to BM25.
 *
 * The matrix A (documents × terms) is built from the postings of the BM25 index the caller
 * already has (normally BM25-GREEKSTEMMER), so LSI sees exactly the terms BM25 sees:
 *
 *   A[d, t] = (1 + ln tf(t, d)) · ln(N / df(t)), then each row divided by its L2 norm.
 *
 * Sublinear tf damps the long statutory articles' repeated boilerplate; the plain idf
 * ln(N/df) (not BM25's floored Okapi idf) is the classic LSI weight and is 0 for a term in
 * every document, which is right for a term that cannot tell documents apart. Row
 * normalisation keeps long articles from dominating the leading singular vectors.
 *
 * The factorisation A ≈ U_k Σ_k V_kᵀ is computed as follows (Halko et al., Algorithms 4.4 and
 * 5.1), with l = k + oversample columns:
 *   1. Ω (terms × l) Gaussian: Box–Muller over the project's seeded xoshiro128** stream
 *      (util/random.ts);
 *   2. Q = A Ω, then `powerIterations` times (default 1) Q = orth(A Aᵀ Q), where orth is
 *      Gram–Schmidt with re-orthogonalisation (`orthonormalRows`) on the document side; A Ω is
 *      orthonormalised only when no power iteration follows, and the term-side intermediate
 *      Aᵀ Q never (see `fit` for why);
 *   3. the small matrix B = Qᵀ A is never formed: its Gram matrix B Bᵀ = Qᵀ A (Aᵀ Q) costs two
 *      sparse products and one l × l × N product, and its eigen-decomposition B Bᵀ = Ũ Λ Ũᵀ
 *      comes from ml-matrix's symmetric solver (`symmetricEigen`).
 *      Squaring costs relative accuracy only in singular values far below σ_1 (an error of
 *      about l·ε·(σ_1/σ_j)² relative), orders of magnitude below anything retrieval notices;
 *   4. σ = √λ, U_k = Q Ũ_k, V_k = Aᵀ U_k Σ_k⁻¹ (a sparse product, cheaper than Bᵀ Ũ Σ⁻¹ by a
 *      dense one), and each singular pair's sign is fixed so the largest |entry| of u_i is
 *      positive (as scikit-learn's svd_flip does), so equal inputs give equal vectors.
 *
 * The linear algebra of those steps is in svd.ts; this module builds the matrix, composes the
 * steps and folds texts into the fitted space. It reads the BM25 index through `LsiCorpus`, a
 * structural view lib/sparse's IndexedCorpus satisfies, so dense/ does not depend on sparse/.
 */
import { createHash } from "node:crypto";
import { csrOf, dot, flipSigns, gaussianMatrix, gram, mulA, mulAt, mulDense, orthonormalRows, rayleighRitz, symmetricEigen, type DocTermMatrix } from "./svd";
import { gatherKernel, releaseGatherKernel } from "./gather-kernel";
import type { Embedder, EmbedResult, Side } from "./types";

/** Settings of `fitLsi`; every one is part of what makes two fits reproduce each other. */
export interface LsiOptions {
  /** Number of latent dimensions k (default 256); capped at min(documents, terms). */
  dims?: number;
  /** Seed of the Gaussian test matrix (default 42). */
  seed?: number;
  /** Extra random columns beyond k (default 10); more makes the trailing σ more accurate. */
  oversample?: number;
  /**
   * Power iterations of the range finder (default 1); more sharpens a slowly decaying spectrum.
   * On greeklaws-2021 a second one changed no Recall@100 in the fourth decimal (sample and long
   * queries) and cost 0.5 s of the fit, so the default is one.
   */
  powerIterations?: number;
}

/**
 * The postings LSI reads from a corpus index (lib/sparse's Bm25Index has them): term t's
 * postings are `[termStart[t], termStart[t+1])`, each a document and a term frequency.
 */
export interface LsiPostings {
  readonly docCount: number;
  readonly termCount: number;
  readonly termStart: Int32Array;
  readonly postingDoc: Int32Array;
  readonly postingTf: Int32Array;
}

/**
 * What LSI reads of an indexed corpus: the doc ids in corpus order, the analyzer that maps a text
 * to the index's term ids (-1 or ids past the vocabulary for unseen words), and the postings.
 * lib/sparse's IndexedCorpus is one, so the BM25 index a run already built is fitted directly.
 */
export interface LsiCorpus {
  readonly docIds: readonly string[];
  analyze(text: string): ArrayLike<number>;
  readonly index: LsiPostings;
}

/**
 * The TF-IDF matrix in compressed sparse column form (see `DocTermMatrix`), sharing the index's
 * `termStart` and `postingDoc` arrays, with the idf a query is folded in with.
 */
export interface TfidfMatrix extends DocTermMatrix {
  /** Row-normalised (1 + ln tf) · ln(N/df) per posting. */
  weight: Float64Array;
  /** ln(N/df) per term id, which folding in a query reuses. */
  idf: Float64Array;
}

/**
 * Builds the row-normalised TF-IDF matrix of an indexed corpus (the weighting is documented
 * at the top of this module).
 */
export function tfidfMatrix(corpus: LsiCorpus): TfidfMatrix {
  const { termStart, postingDoc, postingTf } = corpus.index;
  const N = corpus.index.docCount;
  const V = corpus.index.termCount;
  const idf = new Float64Array(V);
  const weight = new Float64Array(postingDoc.length);
  const rowSq = new Float64Array(N);
  for (let t = 0; t < V; t++) {
    const df = termStart[t + 1] - termStart[t];
    const w = df > 0 ? Math.log(N / df) : 0;
    idf[t] = w;
    for (let p = termStart[t]; p < termStart[t + 1]; p++) {
      const x = (1 + Math.log(postingTf[p])) * w;
      weight[p] = x;
      rowSq[postingDoc[p]] += x * x;
    }
  }
  const inv = new Float64Array(N);
  for (let d = 0; d < N; d++) inv[d] = rowSq[d] > 0 ? 1 / Math.sqrt(rowSq[d]) : 0;
  for (let p = 0; p < weight.length; p++) weight[p] *= inv[postingDoc[p]];
  return { rows: N, cols: V, termStart, postingDoc, weight, idf };
}

/**
 * A fitted LSI space. Documents and queries go through one and the same linear map: a text's
 * TF-IDF row (corpus idf) times `termProjection` = V_k, then L2-normalised. For a corpus
 * document that is the row of A V_k ≈ U_k Σ_k, i.e. the classic LSI comparison space in which
 * documents are scaled by the singular values (Deerwester et al. §4), so dimensions that
 * explain more of the corpus weigh more, and a query folded in is directly comparable with
 * the documents by dot product. (Projecting with V_k Σ_k⁻¹ instead would give U_k coordinates,
 * where every latent dimension, noisy trailing ones included, counts the same.)
 */
export class LsiModel {
  /** @internal built by `fitLsi` */
  constructor(
    /** Latent dimensions actually kept (the requested `dims` capped at min(documents, terms)). */
    readonly dims: number,
    readonly seed: number,
    readonly oversample: number,
    readonly powerIterations: number,
    /** Corpus doc ids in corpus order; row d of every per-document array is docIds[d]. */
    readonly docIds: readonly string[],
    /** ln(N/df) per term id of the corpus index. */
    readonly idf: Float64Array,
    /** V_k, terms × dims, row-major. */
    readonly termProjection: Float64Array,
    /** σ_1 ≥ … ≥ σ_k. */
    readonly singularValues: Float64Array,
    /** U_k, documents × dims, row-major (kept for `reconstructionError`). */
    readonly docFactors: Float64Array,
    /** L2-normalised rows of A V_k, documents × dims, row-major (zero for a document with no informative term). */
    readonly docMatrix: Float32Array,
    private readonly analyze: (text: string) => ArrayLike<number>,
  ) {}

  /**
   * One unit vector per corpus document, in corpus order (views into `docMatrix`).
   */
  embedDocs(): Float32Array[] {
    const k = this.dims;
    return Array.from({ length: this.docIds.length }, (_, d) => this.docMatrix.subarray(d * k, (d + 1) * k));
  }

  /**
   * Folds a text into the space: analyze → (1 + ln tf) · idf → × V_k → L2-normalise. Terms the
   * corpus never saw, and terms in every document (idf 0), carry no weight, so a text with
   * none of the others gets the zero vector (it then scores 0 against everything). Folding in
   * a corpus document's own text gives its `embedDocs()` vector up to float32 rounding.
   */
  embedQuery(text: string): Float32Array {
    const k = this.dims;
    const V = this.idf.length;
    const tf = new Map<number, number>();
    for (const id of Array.from(this.analyze(text))) {
      // Ids past the vocabulary (or -1) are words first seen outside the corpus.
      if (id >= 0 && id < V && this.idf[id] > 0) tf.set(id, (tf.get(id) ?? 0) + 1);
    }
    const acc = new Float64Array(k);
    for (const [t, n] of tf) {
      const w = (1 + Math.log(n)) * this.idf[t];
      const row = t * k;
      for (let j = 0; j < k; j++) acc[j] += w * this.termProjection[row + j];
    }
    return unitFloat32(acc, 0, k);
  }
}

/**
 * Fits LSI on an indexed corpus: TF-IDF matrix, then a seeded randomized truncated SVD (see
 * the module comment for the exact algorithm). Deterministic: the same corpus and options give
 * bit-identical vectors. greeklaws-2021 (5,692 articles) at 256 dims takes about 1.5 s of CPU
 * here, where the products in plain JavaScript alone would take 3.5 s (the same bits).
 */
export function fitLsi(corpus: LsiCorpus, opts: LsiOptions = {}): LsiModel {
  try {
    return fit(corpus, opts);
  } finally {
    // The kernel's memory holds a copy of the largest block (35 MB on greeklaws-2021): a fit is
    // rare enough to make a new kernel for each.
    releaseGatherKernel();
  }
}

function fit(corpus: LsiCorpus, opts: LsiOptions): LsiModel {
  const dims = checkInt("dims", opts.dims ?? 256, 1);
  const seed = checkInt("seed", opts.seed ?? 42);
  const oversample = checkInt("oversample", opts.oversample ?? 10, 0);
  const powerIterations = checkInt("powerIterations", opts.powerIterations ?? 1, 0);
  const A = tfidfMatrix(corpus);
  const N = A.rows;
  const V = A.cols;
  if (N === 0 || V === 0) throw new RangeError(`cannot fit LSI on a corpus with ${N} documents and ${V} terms`);
  const k = Math.min(dims, N, V);
  const l = Math.min(k + oversample, N, V);

  const rows = csrOf(A);

  // Range finder: Q (N × l) with orthonormal columns spanning (nearly) the top of range(A).
  // Only the document side is orthonormalised: Aᵀ Q is an intermediate whose span is all that
  // matters, and orthonormalising A Aᵀ Q right after it loses only directions with
  // σ_j / σ_1 below √ε ≈ 1e-8, far under anything LSI keeps, for a third of the cost (the
  // term side is three times longer than the document side on greeklaws).
  // Before a power iteration A Ω need not be orthonormal, only of full rank: the iteration
  // multiplies it by A Aᵀ and orthonormalises the result, which is where the span is fixed (on
  // greeklaws-2021 skipping this first pass changed no Recall@100 in the fourth decimal, and
  // saves 0.3 s). The terms × l intermediates (Ω, Aᵀ Q: 35 MB each on greeklaws) are not
  // held in variables, so each can be collected as soon as its product is done.
  // Ω is written straight into the product kernel's memory, where A Ω reads it.
  let Q = mulA(rows, gaussianMatrix(V * l, seed, gatherKernel().xArea(V * l) ?? new Float64Array(V * l)), l);
  if (powerIterations === 0) Q = orthonormalRows(Q, N, l);
  for (let i = 0; i < powerIterations; i++) {
    // Q is replaced by the product below; A Aᵀ Q's intermediate is used once.
    const next = mulA(rows, mulAt(A, Q, l), l);
    // The last iteration's basis is not orthonormalised here: the Rayleigh–Ritz step below does
    // it in the l × l space (rayleighRitz), a third of the cost, falling back to Gram–Schmidt
    // when the basis is too ill-conditioned for that.
    Q = i < powerIterations - 1 ? orthonormalRows(next, N, l) : next;
  }

  // B Bᵀ = Qᵀ A Aᵀ Q without forming B = Qᵀ A (l × V).
  let AAtQ = mulA(rows, mulAt(A, Q, l), l);
  let small = powerIterations > 0 ? rayleighRitz(Q, AAtQ, N, l) : undefined;
  if (!small) {
    if (powerIterations > 0) {
      Q = orthonormalRows(Q, N, l);
      AAtQ = mulA(rows, mulAt(A, Q, l), l);
    }
    small = symmetricEigen(gram(Q, AAtQ, N, l), l);
  }
  const { values, vectors } = small;

  // U_k = Q Ũ_k.
  const U = mulDense(Q, N, l, vectors, l, k);
  const sigma = new Float64Array(k);
  for (let j = 0; j < k; j++) sigma[j] = Math.sqrt(Math.max(values[j], 0));
  flipSigns(U, N, k);

  // V_k = Aᵀ U_k Σ_k⁻¹. σ comes from √λ of a Gram matrix, so a zero singular value
  // (rank-deficient A) shows up as about √(l·ε)·σ_1, not 0; below that there is no direction
  // to recover, and dividing by it would only amplify round-off.
  const termProjection = mulAt(A, U, k);
  const tol = sigma[0] * Math.sqrt(l * 1e-14);
  const scale = new Float64Array(k);
  for (let j = 0; j < k; j++) scale[j] = sigma[j] > tol ? 1 / sigma[j] : 0;
  for (let t = 0; t < V; t++) for (let j = 0; j < k; j++) termProjection[t * k + j] *= scale[j];
  for (let j = 0; j < k; j++) {
    if (scale[j] === 0) {
      for (let d = 0; d < N; d++) U[d * k + j] = 0;
      sigma[j] = 0;
    }
  }

  // Documents through the very map queries use (A V_k, not U_k Σ_k), so folding in a corpus
  // text lands exactly on its document vector.
  const docRaw = mulA(rows, termProjection, k);
  const docMatrix = new Float32Array(N * k);
  for (let d = 0; d < N; d++) docMatrix.set(unitFloat32(docRaw, d * k, k), d * k);

  return new LsiModel(
    k,
    seed,
    oversample,
    powerIterations,
    corpus.docIds,
    A.idf,
    termProjection,
    sigma,
    U,
    docMatrix,
    (text) => corpus.analyze(text),
  );
}

/**
 * Adapts a fitted model to the `Embedder` interface. Both sides fold the given text in
 * (`embedQuery`), so any text can be embedded; given the corpus texts in corpus order on the
 * "document" side it reproduces `model.embedDocs()` (up to float32 rounding), and callers that
 * hold the model can take `embedDocs()` directly instead. The id names the space: dims, seed,
 * oversampling, power iterations and a hash of the corpus doc ids in order.
 */
export function lsiEmbedder(model: LsiModel): Embedder {
  const hash = createHash("sha256").update(model.docIds.join("\n")).digest("hex").slice(0, 12);
  return {
    id: `lsi:k=${model.dims}:seed=${model.seed}:o=${model.oversample}:p=${model.powerIterations}:${hash}`,
    dims: model.dims,
    // Local and cheap: the batch size only bounds how much a caller queues per call.
    maxBatch: 4096,
    endpoint: "local",
    async embed(texts: string[], _side: Side): Promise<EmbedResult> {
      return { vectors: texts.map((t) => model.embedQuery(t)), tokens: 0 };
    },
  };
}

/**
 * Relative Frobenius error ‖A − U_k Σ_k V_kᵀ‖_F / ‖A‖_F of the model's factors (or of their
 * leading `k` components), computed row by row without a dense A: for row a_d with
 * c_d = (U_k Σ_k)_d, ‖a_d − c_d V_kᵀ‖² = ‖a_d‖² − 2 c_d·(a_d V_k) + c_d (V_kᵀV_k) c_dᵀ. The
 * Gram V_kᵀV_k is computed, not assumed to be I, so a factorisation that is not exactly
 * orthogonal is charged for it. Round-off leaves about 1e-8 where the true error is 0.
 */
export function reconstructionError(model: LsiModel, corpus: LsiCorpus, k = model.dims): number {
  checkInt("k", k, 0);
  if (k > model.dims) throw new RangeError(`k = ${k} exceeds the model's ${model.dims} dimensions`);
  const A = tfidfMatrix(corpus);
  if (A.rows !== model.docIds.length || A.cols !== model.idf.length) {
    throw new RangeError("the corpus is not the one the model was fitted on");
  }
  const K = model.dims;
  const N = A.rows;
  const V = A.cols;
  // Leading k columns of V_k and of C = U_k Σ_k, contiguous.
  const Vk = new Float64Array(V * k);
  for (let t = 0; t < V; t++) for (let j = 0; j < k; j++) Vk[t * k + j] = model.termProjection[t * K + j];
  const C = new Float64Array(N * k);
  for (let d = 0; d < N; d++) for (let j = 0; j < k; j++) C[d * k + j] = model.docFactors[d * K + j] * model.singularValues[j];
  const AV = mulA(csrOf(A), Vk, k);
  const CG = mulDense(C, N, k, gram(Vk, Vk, V, k), k, k);
  const rowSq = new Float64Array(N);
  for (let p = 0; p < A.weight.length; p++) rowSq[A.postingDoc[p]] += A.weight[p] * A.weight[p];
  let total = 0;
  let residual = 0;
  for (let d = 0; d < N; d++) {
    total += rowSq[d];
    residual += rowSq[d] - 2 * dot(C, d * k, AV, d * k, k) + dot(C, d * k, CG, d * k, k);
  }
  return total > 0 ? Math.sqrt(Math.max(residual, 0) / total) : 0;
}

/** x[o .. o+k) scaled to unit length as float32; zero stays zero. */
function unitFloat32(x: Float64Array, o: number, k: number): Float32Array {
  let s = 0;
  for (let j = 0; j < k; j++) s += x[o + j] * x[o + j];
  const out = new Float32Array(k);
  if (s > 0) {
    const inv = 1 / Math.sqrt(s);
    for (let j = 0; j < k; j++) out[j] = x[o + j] * inv;
  }
  return out;
}

function checkInt(name: string, value: number, min?: number): number {
  if (!Number.isInteger(value) || (min !== undefined && value < min)) {
    throw new RangeError(`${name} must be an integer${min === undefined ? "" : ` ≥ ${min}`}, got ${value}`);
  }
  return value;
}
