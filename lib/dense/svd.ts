/** Linear algebra of LSI's seeded randomized truncated SVD (Halko et al. 2011); dense matrices row-major Float64. */
import { EigenvalueDecomposition, Matrix } from "ml-matrix";
import { Pcg64 } from "../numeric/random";
import { gatherKernel } from "../numeric/gather-kernel";

/** Documents × terms in CSC form: column t holds `weight[termStart[t] .. termStart[t+1])` at rows `postingDoc[…]`. */
export type DocTermMatrix = { rows: number; cols: number; termStart: Int32Array; postingDoc: Int32Array; weight: Float64Array };

/** Eigenpairs of S's symmetric part (ml-matrix), values descending (ties in solver order); column i is values[i]'s. */
export function symmetricEigen(S: Float64Array, n: number): { values: Float64Array; vectors: Float64Array } {
  const rows: number[][] = [];
  for (let i = 0; i < n; i++) {
    const row = new Array<number>(n);
    for (let j = 0; j < n; j++) row[j] = 0.5 * (S[i * n + j] + S[j * n + i]);
    rows.push(row);
  }
  const e = new EigenvalueDecomposition(new Matrix(rows), { assumeSymmetric: true });
  const raw = e.realEigenvalues;
  const V = e.eigenvectorMatrix;
  const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => raw[y] - raw[x] || x - y);
  const values = new Float64Array(n);
  const vectors = new Float64Array(n * n);
  for (let j = 0; j < n; j++) {
    const src = order[j];
    values[j] = raw[src];
    for (let r = 0; r < n; r++) vectors[r * n + j] = V.get(r, src);
  }
  return { values, vectors };
}

/** Classical Gram–Schmidt on the columns (4 per pass, 2× the modified one), re-projected below 1/√2 (DGKS); dependent → 0. */
export function orthonormalRows(X: Float64Array, m: number, n: number): Float64Array {
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

/** Four accumulators break the add dependency chain (about 2× faster). */
export function dot(a: Float64Array, oa: number, b: Float64Array, ob: number, m: number): number {
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
export type CsrMatrix = ReturnType<typeof csrOf>;
export function csrOf(A: DocTermMatrix) {
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

export function mulA(A: CsrMatrix, X: Float64Array, c: number): Float64Array {
  const out = new Float64Array(A.rows * c);
  gatherRows(A.rowStart, A.rowTerm, A.rowWeight, X, c, out, A.rows);
  return out;
}

export function mulAt(A: DocTermMatrix, Y: Float64Array, c: number): Float64Array {
  const out = new Float64Array(A.cols * c);
  gatherRows(A.termStart, A.postingDoc, A.weight, Y, c, out, A.cols);
  return out;
}

/** out[r] = Σ weight[p] · X[index[p]] over row r's entries, for the first `rows` rows, in the WebAssembly kernel. */
export function gatherRows(
  starts: Int32Array,
  index: Int32Array,
  weight: Float64Array,
  X: Float64Array,
  c: number,
  out: Float64Array,
  rows: number,
): void {
  if (gatherKernel().rows(starts, index, weight, X, c, out, 0, rows)) return;
  throw new RangeError(`a product of ${rows} rows × ${c} columns does not fit the kernel's memory (4 GiB)`);
}

/** X (m × n) times the first `c` columns of Y (n × yCols). */
export function mulDense(X: Float64Array, m: number, n: number, Y: Float64Array, yCols: number, c: number): Float64Array {
  const out = new Float64Array(m * c);
  const scratch = new Float64Array(c * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < c; j++) scratch[i * c + j] = Y[i * yCols + j];
  const all = new Int32Array(m * n);
  for (let r = 0; r < m; r++) for (let i = 0; i < n; i++) all[r * n + i] = i;
  const starts = Int32Array.from({ length: m + 1 }, (_, r) => r * n);
  gatherRows(starts, all, X.subarray(0, m * n), scratch, c, out, m);
  return out;
}

/** G = Xᵀ Y for a product known to be symmetric: only the upper triangle is summed, in the WebAssembly kernel. */
export function gram(X: Float64Array, Y: Float64Array, m: number, n: number): Float64Array {
  const G = gatherKernel().gramUpper(X, Y, m, n);
  if (!G) throw new RangeError(`a Gram matrix of ${m} × ${n} does not fit the kernel's memory (4 GiB)`);
  for (let i = 0; i < n; i++) for (let j = 0; j < i; j++) G[i * n + j] = G[j * n + i];
  return G;
}

/** Makes each column's largest-magnitude entry positive (ties: the first), as scikit-learn's svd_flip does. */
export function flipSigns(U: Float64Array, m: number, k: number): void {
  for (let j = 0; j < k; j++) {
    let best = 0;
    for (let r = 0; r < m; r++) if (Math.abs(U[r * k + j]) > Math.abs(best)) best = U[r * k + j];
    if (best < 0) for (let r = 0; r < m; r++) U[r * k + j] = -U[r * k + j];
  }
}

/** Standard normals by Box–Muller on numpy's `random()` doubles for the seed (not its ziggurat), so the seed fixes all. */
export function gaussianMatrix(size: number, seed: number): Float64Array {
  const out = new Float64Array(size);
  const u = Pcg64.fromSeed(seed).fillDoubles(new Float64Array(size + (size % 2)));
  for (let i = 0; i < size; i += 2) {
    const radius = Math.sqrt(-2 * Math.log(1 - u[i]));
    const angle = 2 * Math.PI * u[i + 1];
    out[i] = radius * Math.cos(angle);
    if (i + 1 < size) out[i + 1] = radius * Math.sin(angle);
  }
  return out;
}

/** Rayleigh–Ritz on a non-orthonormal Y (cheaper than orthonormalising it): Y Z are Ritz vectors; undefined if singular. */
export function rayleighRitz(Y: Float64Array, AAtY: Float64Array, m: number, l: number): { values: Float64Array; vectors: Float64Array } | undefined {
  const G = gram(Y, Y, m, l);
  // Cholesky G = L Lᵀ.
  const L = new Float64Array(l * l);
  for (let j = 0; j < l; j++) {
    let d = G[j * l + j];
    for (let p = 0; p < j; p++) d -= L[j * l + p] * L[j * l + p];
    if (!(d > 1e-10 * G[j * l + j])) return undefined;
    const ljj = Math.sqrt(d);
    L[j * l + j] = ljj;
    for (let i = j + 1; i < l; i++) {
      let s = G[i * l + j];
      for (let p = 0; p < j; p++) s -= L[i * l + p] * L[j * l + p];
      L[i * l + j] = s / ljj;
    }
  }
  const H = gram(Y, AAtY, m, l);
  // X = L⁻¹ H (forward substitution), a whole row at a time.
  const X = H.slice();
  for (let i = 0; i < l; i++) {
    const oi = i * l;
    for (let p = 0; p < i; p++) {
      const f = L[oi + p];
      const op = p * l;
      for (let c = 0; c < l; c++) X[oi + c] -= f * X[op + c];
    }
    const inv = L[oi + i];
    for (let c = 0; c < l; c++) X[oi + c] /= inv;
  }
  // M = X L⁻ᵀ = (L⁻¹ Xᵀ)ᵀ, symmetric in exact arithmetic; its symmetric part is taken.
  const M = new Float64Array(l * l);
  for (let r = 0; r < l; r++) {
    for (let i = 0; i < l; i++) {
      let s = X[r * l + i];
      for (let p = 0; p < i; p++) s -= L[i * l + p] * M[r * l + p];
      M[r * l + i] = s / L[i * l + i];
    }
  }
  for (let i = 0; i < l; i++) {
    for (let j = 0; j < i; j++) {
      const v = 0.5 * (M[i * l + j] + M[j * l + i]);
      M[i * l + j] = v;
      M[j * l + i] = v;
    }
  }
  const { values, vectors: W } = symmetricEigen(M, l);
  // Z = L⁻ᵀ W (back substitution), a whole row at a time, last row first.
  const Z = W.slice();
  for (let i = l - 1; i >= 0; i--) {
    const oi = i * l;
    for (let p = i + 1; p < l; p++) {
      const f = L[p * l + i];
      const op = p * l;
      for (let c = 0; c < l; c++) Z[oi + c] -= f * Z[op + c];
    }
    const inv = L[oi + i];
    for (let c = 0; c < l; c++) Z[oi + c] /= inv;
  }
  return { values, vectors: Z };
}
