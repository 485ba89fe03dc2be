/**
 * Latent semantic indexing (Deerwester et al. 1990) as an offline "dense" retriever: a
 * truncated SVD of the corpus's TF-IDF matrix, computed here with a seeded randomized SVD
 * (Halko, Martinsson & Tropp 2011) on typed arrays, so it needs no model download, no API and
 * no native code, and gives a reproducible dense baseline next to BM25.
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
 *   1. Ω (terms × l) Gaussian from a seeded mulberry32 + Box–Muller stream;
 *   2. Q = orth(A Ω), then `powerIterations` times Q = orth(A Aᵀ Q), where orth is
 *      Gram–Schmidt with re-orthogonalisation (`orthonormalRows`) on the document side; the
 *      term-side intermediate Aᵀ Q is not orthonormalised (see `fitLsi` for why);
 *   3. the small matrix B = Qᵀ A is never formed: its Gram matrix B Bᵀ = Qᵀ A (Aᵀ Q) costs two
 *      sparse products and one l × l × N product, and its eigen-decomposition B Bᵀ = Ũ Λ Ũᵀ
 *      comes from the cyclic Jacobi method (`symmetricEigen`), which is accurate and simple.
 *      Squaring costs relative accuracy only in singular values far below σ_1 (an error of
 *      about l·ε·(σ_1/σ_j)² relative), orders of magnitude below anything retrieval notices;
 *   4. σ = √λ, U_k = Q Ũ_k, V_k = Aᵀ U_k Σ_k⁻¹ (a sparse product, cheaper than Bᵀ Ũ Σ⁻¹ by a
 *      dense one), and each singular pair's sign is fixed so the largest |entry| of u_i is
 *      positive (as scikit-learn's svd_flip does), so equal inputs give equal vectors.
 */
import { createHash } from "node:crypto";
import type { IndexedCorpus } from "../sparse/bm25-retriever";
import type { Embedder, EmbedResult, Side } from "./types";

/** Settings of `fitLsi`; every one is part of what makes two fits reproduce each other. */
export interface LsiOptions {
  /** Number of latent dimensions k (default 256); capped at min(documents, terms). */
  dims?: number;
  /** Seed of the Gaussian test matrix (default 42). */
  seed?: number;
  /** Extra random columns beyond k (default 10); more makes the trailing σ more accurate. */
  oversample?: number;
  /** Power iterations of the range finder (default 2); more sharpens a slowly decaying spectrum. */
  powerIterations?: number;
}

/**
 * The TF-IDF matrix in compressed sparse column form, sharing the index's `termStart` and
 * `postingDoc` arrays: column t holds `weight[termStart[t] .. termStart[t+1])` at rows
 * `postingDoc[…]`. Column-major storage serves both A·X and Aᵀ·Y with one pass each.
 *
 * @example
 * const A = tfidfMatrix(corpus);
 * A.weight.length === corpus.index.postingCount; // true
 */
export interface TfidfMatrix {
  rows: number;
  cols: number;
  termStart: Int32Array;
  postingDoc: Int32Array;
  /** Row-normalised (1 + ln tf) · ln(N/df) per posting. */
  weight: Float64Array;
  /** ln(N/df) per term id, which folding in a query reuses. */
  idf: Float64Array;
}

/**
 * Builds the row-normalised TF-IDF matrix of an indexed corpus (the weighting is documented
 * at the top of this module).
 *
 * @example
 * const corpus = indexCorpus(bench.docs, greekStemmerTokenizer());
 * const A = tfidfMatrix(corpus); // A.rows === bench.docs.length
 */
export function tfidfMatrix(corpus: IndexedCorpus): TfidfMatrix {
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
 *
 * @example
 * const model = fitLsi(corpus, { dims: 256 });
 * const docs = model.embedDocs();               // Float32Array per document, unit length
 * const q = model.embedQuery("καταγγελία μίσθωσης");
 * let best = 0; // dot products rank documents
 * for (let d = 1; d < docs.length; d++) if (dot(q, docs[d]) > dot(q, docs[best])) best = d;
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
   *
   * @example
   * const vecs = model.embedDocs(); vecs.length === corpus.docIds.length; // true
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
   *
   * @example
   * const q = model.embedQuery("Ο εκμισθωτής καταγγέλλει τη μίσθωση"); // Float32Array(model.dims)
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
 * bit-identical vectors. greeklaws-2021 (5,692 articles) at 256 dims takes a few seconds.
 *
 * @example
 * const corpus = indexCorpus(bench.docs, greekStemmerTokenizer());
 * const model = fitLsi(corpus, { dims: 256, seed: 42 });
 * model.singularValues[0]; // largest σ
 */
export function fitLsi(corpus: IndexedCorpus, opts: LsiOptions = {}): LsiModel {
  const dims = checkInt("dims", opts.dims ?? 256, 1);
  const seed = checkInt("seed", opts.seed ?? 42);
  const oversample = checkInt("oversample", opts.oversample ?? 10, 0);
  const powerIterations = checkInt("powerIterations", opts.powerIterations ?? 2, 0);
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
  const omega = gaussianMatrix(V * l, seed);
  let Q = orthonormalRows(mulA(rows, omega, l), N, l);
  for (let i = 0; i < powerIterations; i++) Q = orthonormalRows(mulA(rows, mulAt(A, Q, l), l), N, l);

  // B Bᵀ = Qᵀ A Aᵀ Q without forming B = Qᵀ A (l × V).
  const AAtQ = mulA(rows, mulAt(A, Q, l), l);
  const { values, vectors } = symmetricEigen(gram(Q, AAtQ, N, l), l);

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
 * hold the model can take `embedDocs()` directly instead. The id names the space: dims, seed and
 * a hash of the corpus doc ids in order (oversample and power iterations are not part of it;
 * use the defaults when vectors are cached under this id).
 *
 * @example
 * const embedder = lsiEmbedder(fitLsi(corpus, { dims: 256 }));
 * embedder.id; // "lsi:k=256:seed=42:3f2a9c1e0b7d"
 * const { vectors } = await embedder.embed(["Ο εκμισθωτής καταγγέλλει"], "query");
 */
export function lsiEmbedder(model: LsiModel): Embedder {
  const hash = createHash("sha256").update(model.docIds.join("\n")).digest("hex").slice(0, 12);
  return {
    id: `lsi:k=${model.dims}:seed=${model.seed}:${hash}`,
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
 *
 * @example
 * reconstructionError(model, corpus);      // 0.80 at k = 256 on greeklaws-2021
 * reconstructionError(model, corpus, 64);  // leading 64 components only
 */
export function reconstructionError(model: LsiModel, corpus: IndexedCorpus, k = model.dims): number {
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

/**
 * Eigen-decomposition of a symmetric n × n matrix (row-major; only its symmetric part is
 * meaningful) by the cyclic Jacobi method: rotations annihilate each off-diagonal entry in
 * turn until the off-diagonal mass is below round-off. Slower than tridiagonal QR for big n,
 * but for the l ≈ 266 of LSI it takes well under a second, and it is short, robust and gives
 * eigenvalues accurate to round-off relative to the matrix norm. Values come sorted
 * descending; column i of `vectors` (row-major n × n) is the unit eigenvector of values[i].
 *
 * @example
 * const { values, vectors } = symmetricEigen(Float64Array.of(2, 1, 1, 2), 2);
 * values; // Float64Array [3, 1]; vectors column 0 ≈ [0.7071, 0.7071]
 */
export function symmetricEigen(S: Float64Array, n: number): { values: Float64Array; vectors: Float64Array } {
  if (S.length !== n * n) throw new RangeError(`expected ${n * n} entries, got ${S.length}`);
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) a[i * n + j] = 0.5 * (S[i * n + j] + S[j * n + i]);
  // Rotations act on rows p and q of the eigenvector matrix stored transposed, so every
  // update loop but the mirror into columns p and q of `a` runs over contiguous memory.
  const vt = new Float64Array(n * n);
  for (let i = 0; i < n; i++) vt[i * n + i] = 1;
  let norm2 = 0;
  for (let i = 0; i < n * n; i++) norm2 += a[i] * a[i];

  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += a[p * n + q] * a[p * n + q];
    if (off === 0 || off <= 1e-32 * norm2) break;
    for (let p = 0; p < n - 1; p++) {
      for (let q = p + 1; q < n; q++) {
        const rp = p * n;
        const rq = q * n;
        const apq = a[rp + q];
        if (apq === 0) continue;
        const app = a[rp + p];
        const aqq = a[rq + q];
        // Below round-off of both diagonal entries the rotation would change nothing.
        if (sweep > 3 && Math.abs(apq) < 1e-18 * (Math.abs(app) + Math.abs(aqq))) {
          a[rp + q] = 0;
          a[rq + p] = 0;
          continue;
        }
        const theta = (aqq - app) / (2 * apq);
        const t = (theta >= 0 ? 1 : -1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let r = 0; r < n; r++) {
          const apr = a[rp + r];
          const aqr = a[rq + r];
          a[rp + r] = c * apr - s * aqr;
          a[rq + r] = s * apr + c * aqr;
        }
        a[rp + p] = app - t * apq;
        a[rq + q] = aqq + t * apq;
        a[rp + q] = 0;
        a[rq + p] = 0;
        for (let r = 0; r < n; r++) {
          if (r === p || r === q) continue;
          a[r * n + p] = a[rp + r];
          a[r * n + q] = a[rq + r];
        }
        for (let r = 0; r < n; r++) {
          const vp = vt[rp + r];
          const vq = vt[rq + r];
          vt[rp + r] = c * vp - s * vq;
          vt[rq + r] = s * vp + c * vq;
        }
      }
    }
  }
  const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => a[y * n + y] - a[x * n + x] || x - y);
  const values = new Float64Array(n);
  const vectors = new Float64Array(n * n);
  for (let j = 0; j < n; j++) {
    const src = order[j];
    values[j] = a[src * n + src];
    for (let r = 0; r < n; r++) vectors[r * n + j] = vt[src * n + r];
  }
  return { values, vectors };
}

/**
 * Orthonormalises the columns of a row-major m × n matrix, left to right, by classical
 * Gram–Schmidt with re-orthogonalisation: each column is projected against all earlier ones,
 * and again whenever its norm fell below 1/√2 of what it was (the DGKS criterion; "twice is
 * enough", Giraud et al. 2005), which keeps orthogonality at round-off level like Householder
 * QR. Classical rather than modified Gram–Schmidt because its projections are independent, so
 * four columns are handled per pass over memory, about twice as fast in JavaScript. A column
 * numerically dependent on the earlier ones becomes zero rather than noise, so the rank of
 * the result is the numerical rank of the input. Returns a new row-major matrix.
 *
 * @example
 * const Q = orthonormalRows(Float64Array.of(1, 1, 0, 1, 0, 0), 3, 2); // columns e1, e2
 */
export function orthonormalRows(X: Float64Array, m: number, n: number): Float64Array {
  // Column-major scratch: every step below walks whole columns.
  const C = new Float64Array(m * n);
  for (let r = 0; r < m; r++) for (let j = 0; j < n; j++) C[j * m + r] = X[r * n + j];
  const h = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    const oj = j * m;
    const original = Math.sqrt(dot(C, oj, C, oj, m));
    let before = original;
    let after = original;
    for (let pass = 0; pass < 3 && before > 0; pass++) {
      project(C, m, j, h);
      after = Math.sqrt(dot(C, oj, C, oj, m));
      if (after >= Math.SQRT1_2 * before) break;
      before = after;
    }
    const scale = after > 1e-10 * original ? 1 / after : 0;
    for (let r = 0; r < m; r++) C[oj + r] *= scale;
  }
  const out = new Float64Array(m * n);
  for (let j = 0; j < n; j++) for (let r = 0; r < m; r++) out[r * n + j] = C[j * m + r];
  return out;
}

/** Column j of column-major C (m rows) minus its projection on columns 0..j-1; h is scratch. */
function project(C: Float64Array, m: number, j: number, h: Float64Array): void {
  const oj = j * m;
  let i = 0;
  for (; i + 3 < j; i += 4) {
    const o0 = i * m;
    const o1 = o0 + m;
    const o2 = o1 + m;
    const o3 = o2 + m;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    for (let r = 0; r < m; r++) {
      const x = C[oj + r];
      s0 += C[o0 + r] * x;
      s1 += C[o1 + r] * x;
      s2 += C[o2 + r] * x;
      s3 += C[o3 + r] * x;
    }
    h[i] = s0;
    h[i + 1] = s1;
    h[i + 2] = s2;
    h[i + 3] = s3;
  }
  for (; i < j; i++) h[i] = dot(C, i * m, C, oj, m);
  i = 0;
  for (; i + 3 < j; i += 4) {
    const o0 = i * m;
    const o1 = o0 + m;
    const o2 = o1 + m;
    const o3 = o2 + m;
    const h0 = h[i];
    const h1 = h[i + 1];
    const h2 = h[i + 2];
    const h3 = h[i + 3];
    for (let r = 0; r < m; r++) C[oj + r] -= h0 * C[o0 + r] + h1 * C[o1 + r] + h2 * C[o2 + r] + h3 * C[o3 + r];
  }
  for (; i < j; i++) {
    const oi = i * m;
    const hi = h[i];
    if (hi !== 0) for (let r = 0; r < m; r++) C[oj + r] -= hi * C[oi + r];
  }
}

/** Four accumulators break the add dependency chain, roughly doubling throughput. */
function dot(a: Float64Array, oa: number, b: Float64Array, ob: number, m: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let r = 0;
  for (; r + 3 < m; r += 4) {
    s0 += a[oa + r] * b[ob + r];
    s1 += a[oa + r + 1] * b[ob + r + 1];
    s2 += a[oa + r + 2] * b[ob + r + 2];
    s3 += a[oa + r + 3] * b[ob + r + 3];
  }
  for (; r < m; r++) s0 += a[oa + r] * b[ob + r];
  return s0 + s1 + s2 + s3;
}

/** The same matrix by rows, for A X: gathering into one output row beats scattering into many. */
interface Csr {
  rows: number;
  rowStart: Int32Array;
  rowTerm: Int32Array;
  rowWeight: Float64Array;
}

function csrOf(A: TfidfMatrix): Csr {
  const rowStart = new Int32Array(A.rows + 1);
  for (let p = 0; p < A.postingDoc.length; p++) rowStart[A.postingDoc[p] + 1]++;
  for (let d = 0; d < A.rows; d++) rowStart[d + 1] += rowStart[d];
  const fill = rowStart.slice(0, A.rows);
  const rowTerm = new Int32Array(A.postingDoc.length);
  const rowWeight = new Float64Array(A.postingDoc.length);
  for (let t = 0; t < A.cols; t++) {
    for (let p = A.termStart[t]; p < A.termStart[t + 1]; p++) {
      const at = fill[A.postingDoc[p]]++;
      rowTerm[at] = t;
      rowWeight[at] = A.weight[p];
    }
  }
  return { rows: A.rows, rowStart, rowTerm, rowWeight };
}

/** A X for X terms × c (row-major); the result is documents × c. */
function mulA(A: Csr, X: Float64Array, c: number): Float64Array {
  const out = new Float64Array(A.rows * c);
  for (let d = 0; d < A.rows; d++) gatherRow(A.rowStart[d], A.rowStart[d + 1], A.rowTerm, A.rowWeight, X, c, out, d * c);
  return out;
}

/** Aᵀ Y for Y documents × c (row-major); the result is terms × c. */
function mulAt(A: TfidfMatrix, Y: Float64Array, c: number): Float64Array {
  const out = new Float64Array(A.cols * c);
  for (let t = 0; t < A.cols; t++) gatherRow(A.termStart[t], A.termStart[t + 1], A.postingDoc, A.weight, Y, c, out, t * c);
  return out;
}

/**
 * out[o .. o+c) += Σ weight[p] · X[index[p]·c .. +c) over p in [start, end): the kernel of
 * both sparse products. Four postings per pass over the output row cut its loads and stores
 * by four, which (not the multiplications) is what bounds this loop; 2.5× faster measured.
 */
function gatherRow(
  start: number,
  end: number,
  index: Int32Array,
  weight: Float64Array,
  X: Float64Array,
  c: number,
  out: Float64Array,
  o: number,
): void {
  let p = start;
  for (; p + 3 < end; p += 4) {
    const w0 = weight[p];
    const w1 = weight[p + 1];
    const w2 = weight[p + 2];
    const w3 = weight[p + 3];
    const x0 = index[p] * c;
    const x1 = index[p + 1] * c;
    const x2 = index[p + 2] * c;
    const x3 = index[p + 3] * c;
    for (let j = 0; j < c; j++) out[o + j] += w0 * X[x0 + j] + w1 * X[x1 + j] + w2 * X[x2 + j] + w3 * X[x3 + j];
  }
  for (; p < end; p++) {
    const w = weight[p];
    const x = index[p] * c;
    for (let j = 0; j < c; j++) out[o + j] += w * X[x + j];
  }
}

/** X (m × n) times the first `c` columns of Y (n × yCols), all row-major; the result is m × c. */
function mulDense(X: Float64Array, m: number, n: number, Y: Float64Array, yCols: number, c: number): Float64Array {
  const out = new Float64Array(m * c);
  const scratch = new Float64Array(c * n);
  // Y's first c columns, contiguous by rows, so the kernel can read them as a dense n × c block.
  for (let i = 0; i < n; i++) for (let j = 0; j < c; j++) scratch[i * c + j] = Y[i * yCols + j];
  const all = Int32Array.from({ length: n }, (_, i) => i);
  for (let r = 0; r < m; r++) gatherRow(0, n, all, X.subarray(r * n, (r + 1) * n), scratch, c, out, r * c);
  return out;
}

/**
 * G = Xᵀ Y for row-major m × n X and Y whose product is known to be symmetric (here Qᵀ A Aᵀ Q):
 * only the upper triangle is accumulated, four rows per pass over G.
 */
function gram(X: Float64Array, Y: Float64Array, m: number, n: number): Float64Array {
  const G = new Float64Array(n * n);
  let r = 0;
  for (; r + 3 < m; r += 4) {
    const o0 = r * n;
    const o1 = o0 + n;
    const o2 = o1 + n;
    const o3 = o2 + n;
    for (let i = 0; i < n; i++) {
      const x0 = X[o0 + i];
      const x1 = X[o1 + i];
      const x2 = X[o2 + i];
      const x3 = X[o3 + i];
      const g = i * n;
      for (let j = i; j < n; j++) G[g + j] += x0 * Y[o0 + j] + x1 * Y[o1 + j] + x2 * Y[o2 + j] + x3 * Y[o3 + j];
    }
  }
  for (; r < m; r++) {
    const o = r * n;
    for (let i = 0; i < n; i++) {
      const x = X[o + i];
      const g = i * n;
      for (let j = i; j < n; j++) G[g + j] += x * Y[o + j];
    }
  }
  for (let i = 0; i < n; i++) for (let j = 0; j < i; j++) G[i * n + j] = G[j * n + i];
  return G;
}

/** Makes the largest-magnitude entry of every column of U positive (ties: the first). */
function flipSigns(U: Float64Array, m: number, k: number): void {
  for (let j = 0; j < k; j++) {
    let best = 0;
    for (let r = 0; r < m; r++) if (Math.abs(U[r * k + j]) > Math.abs(best)) best = U[r * k + j];
    if (best < 0) for (let r = 0; r < m; r++) U[r * k + j] = -U[r * k + j];
  }
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

/**
 * Standard normal samples from mulberry32 (a 32-bit PRNG with good equidistribution for its
 * size) through Box–Muller, both outputs of each pair used. Written here, not taken from a
 * package, so the stream and therefore every fitted vector is fixed by the seed alone.
 */
function gaussianMatrix(size: number, seed: number): Float64Array {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return ((z ^ (z >>> 14)) >>> 0) / 4294967296;
  };
  const out = new Float64Array(size);
  for (let i = 0; i < size; i += 2) {
    // 1 − u is in (0, 1], so the logarithm is finite.
    const radius = Math.sqrt(-2 * Math.log(1 - next()));
    const angle = 2 * Math.PI * next();
    out[i] = radius * Math.cos(angle);
    if (i + 1 < size) out[i + 1] = radius * Math.sin(angle);
  }
  return out;
}

function checkInt(name: string, value: number, min?: number): number {
  if (!Number.isInteger(value) || (min !== undefined && value < min)) {
    throw new RangeError(`${name} must be an integer${min === undefined ? "" : ` ≥ ${min}`}, got ${value}`);
  }
  return value;
}
