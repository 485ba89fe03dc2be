/** LSI (Deerwester et al. 1990): seeded randomized truncated SVD (Halko et al. 2011, Alg. 4.4, 5.1) of TF-IDF. */
import { csrOf, flipSigns, gaussianMatrix, gram, mulA, mulAt, mulDense, orthonormalRows, rayleighRitz, symmetricEigen, type DocTermMatrix } from "./svd";
import { releaseGatherKernel } from "../numeric/gather-kernel";
import { normalize } from "./exact-search";

/** k (default 256, capped at min(documents, terms)), the seed (42), extra columns (10) and power iterations (1). */
export interface LsiOptions {
  dims?: number;
  seed?: number;
  oversample?: number;
  /** On greeklaws-2021 a second iteration changed no Recall@100 (4th decimal) and cost 0.5 s. */
  powerIterations?: number;
}

export interface LsiPostings {
  readonly docCount: number;
  readonly termCount: number;
  readonly termStart: Int32Array;
  readonly postingDoc: Int32Array;
  readonly postingTf: Int32Array;
}

/** What LSI reads of an indexed corpus (lib/sparse's IndexedCorpus is one); unseen words map to -1 or past V. */
export interface LsiCorpus {
  readonly docIds: readonly string[];
  analyze(text: string): ArrayLike<number>;
  readonly index: LsiPostings;
}

/** TF-IDF in CSC form on the index's arrays, with ln(N/df) per term for folding in queries. */
export type TfidfMatrix = DocTermMatrix & { idf: Float64Array };

/** A[d, t] = (1 + ln tf) · ln(N/df), rows L2-normalised; plain idf (not BM25's floored one), 0 for a term in all. */
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

/** Documents and queries share one map, TF-IDF row × V_k, L2-normalised: A V_k ≈ U_k Σ_k weighs stronger dimensions more. */
export class LsiModel {
  /** Row-major: V_k (terms × dims), U_k and the unit rows of A V_k (documents × dims, in docIds order); σ descending. */
  constructor(
    readonly dims: number,
    readonly docIds: readonly string[],
    readonly idf: Float64Array,
    readonly termProjection: Float64Array,
    readonly singularValues: Float64Array,
    readonly docFactors: Float64Array,
    readonly docMatrix: Float32Array,
    private readonly analyze: (text: string) => ArrayLike<number>,
  ) {}

  embedDocs(): Float32Array[] {
    const k = this.dims;
    return Array.from({ length: this.docIds.length }, (_, d) => this.docMatrix.subarray(d * k, (d + 1) * k));
  }

  /** Folds a text in: (1 + ln tf) · idf × V_k, L2-normalised; only unseen or idf-0 terms give the zero vector. */
  embedQuery(text: string): Float32Array {
    const k = this.dims;
    const V = this.idf.length;
    const tf = new Map<number, number>();
    for (const id of Array.from(this.analyze(text))) if (id >= 0 && id < V && this.idf[id] > 0) tf.set(id, (tf.get(id) ?? 0) + 1);
    const acc = new Float64Array(k);
    for (const [t, n] of tf) {
      const w = (1 + Math.log(n)) * this.idf[t];
      const row = t * k;
      for (let j = 0; j < k; j++) acc[j] += w * this.termProjection[row + j];
    }
    return normalize(acc);
  }
}

/** The same corpus and options give bit-identical vectors. */
export function fitLsi(corpus: LsiCorpus, opts: LsiOptions = {}): LsiModel {
  try {
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

    // Range finder Q (N × l): only the document side is orthonormalised (loses σ_j/σ_1 < √ε, for a third of the cost).
    let Q = mulA(rows, gaussianMatrix(V * l, seed), l);
    if (powerIterations === 0) Q = orthonormalRows(Q, N, l);
    for (let i = 0; i < powerIterations; i++) {
      const next = mulA(rows, mulAt(A, Q, l), l);
      // The last basis is left to rayleighRitz (l × l, a third of the cost; Gram–Schmidt if ill-conditioned).
      Q = i < powerIterations - 1 ? orthonormalRows(next, N, l) : next;
    }

    // B Bᵀ = Qᵀ A Aᵀ Q without forming B = Qᵀ A (l × V); squaring costs accuracy only for σ_j far below σ_1.
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

    const U = mulDense(Q, N, l, vectors, l, k);
    const sigma = new Float64Array(k);
    for (let j = 0; j < k; j++) sigma[j] = Math.sqrt(Math.max(values[j], 0));
    flipSigns(U, N, k);

    // From √λ of a Gram matrix a zero σ shows up as about √(l·ε)·σ_1; dividing below that only amplifies round-off.
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

    const docRaw = mulA(rows, termProjection, k);
    const docMatrix = new Float32Array(N * k);
    for (let d = 0; d < N; d++) docMatrix.set(normalize(docRaw.subarray(d * k, (d + 1) * k)), d * k);

    return new LsiModel(k, corpus.docIds, A.idf, termProjection, sigma, U, docMatrix, (text) => corpus.analyze(text));
  } finally {
    // The kernel's memory holds a copy of the largest block (35 MB on greeklaws-2021); fits are rare.
    releaseGatherKernel();
  }
}

function checkInt(name: string, value: number, min?: number): number {
  if (!Number.isInteger(value) || (min !== undefined && value < min)) {
    throw new RangeError(`${name} must be an integer${min === undefined ? "" : ` ≥ ${min}`}, got ${value}`);
  }
  return value;
}
