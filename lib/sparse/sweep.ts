/**
 * The paper's BM25 tuning sweep (DESIGN.md §6): 16 values of k1 × 12 values of b, positive-only
 * top-100 rankings, the five metrics per setting, and the best setting by mean Recall@100.
 *
 * The paper picks the best setting on the very queries it reports, so its "+0.05 (original
 * queries), +0.01 (reformulated)" (§7) is an oracle upper bound, not a deployable gain: it had
 * no development split. `crossValidatedTuning` adds the honest counterpart from the same sweep
 * (k-fold cross-validation: each query is scored with a setting chosen without it), and
 * `sweepHeatmap` lays the grid out for plotting.
 */
import type { DocId, QueryId, Query } from "../types";
import { DEPTH, meanOf, METRICS, queryMetrics, type Metric, type MetricValues } from "../eval/metrics";
import type { IndexedCorpus } from "./bm25-retriever";
import { okapiIdf } from "./bm25";

/**
 * Values built from integers and divided once, so every value is the double nearest its
 * decimal (0.6, not 0.2 + 0.2 + 0.2 = 0.6000000000000001) and equals the literal a user would
 * type: `SWEEP_K1.includes(0.6)` holds, and run labels print as "0.6". Hundredths rather than
 * tenths only because b's 0.75 needs them; division is correctly rounded, so 20 / 100 and
 * 2 / 10 are the same double. Deduplicating the integers adds 1.5 and 0.75 without repeats.
 */
function gridFromHundredths(start: number, stop: number, step: number, extra: number): number[] {
  const set = new Set<number>([extra]);
  for (let v = start; v <= stop; v += step) set.add(v);
  return [...set].sort((x, y) => x - y).map((v) => v / 100);
}

/**
 * The paper's k1 grid: 0.2, 0.4, …, 3.0 plus rank_bm25's default 1.5 (16 values, ascending).
 *
 * @example
 * SWEEP_K1.length; // 16
 * SWEEP_K1.slice(0, 3); // [0.2, 0.4, 0.6]
 * SWEEP_K1.includes(1.5); // true
 */
export const SWEEP_K1: readonly number[] = Object.freeze(gridFromHundredths(20, 300, 20, 150));

/**
 * The paper's b grid: 0.0, 0.1, …, 1.0 plus rank_bm25's default 0.75 (12 values, ascending).
 *
 * @example
 * SWEEP_B.length; // 12
 * SWEEP_B.slice(7, 10); // [0.7, 0.75, 0.8]
 */
export const SWEEP_B: readonly number[] = Object.freeze(gridFromHundredths(0, 100, 10, 75));

/** rank_bm25's defaults, the paper's untuned BM25 (ε is the sweep's `epsilon` option). */
const DEFAULT_K1 = 1.5;
const DEFAULT_B = 0.75;

/**
 * One (k1, b) setting of a sweep and how it scored.
 *
 * @example
 * const e = sweep.grid.find((x) => x.k1 === 1.2 && x.b === 0.75)!;
 * e.mean["nDCG@10"]; e.perQuery.get("Q-N4765-16")!["Recall@100"];
 */
export interface SweepEntry {
  k1: number;
  b: number;
  /** Macro average over the evaluated queries, summed in qrels order (as `evaluate` does). */
  mean: MetricValues;
  perQuery: Map<QueryId, MetricValues>;
  /** Positive-only top-100 doc ids per query; only with `keepRankings` (192 × queries × 100 ids otherwise held for nothing). */
  rankings?: Map<QueryId, DocId[]>;
}

/**
 * A setting and its value of the sweep's chosen metric.
 *
 * @example
 * const { k1, b, value } = sweep.best; // value: mean Recall@100 at (k1, b)
 */
export interface SweepChoice {
  k1: number;
  b: number;
  value: number;
}

/**
 * What `bm25Sweep` returns: every setting's scores, the oracle best and the default.
 *
 * @example
 * const gain = sweep.best.value - sweep.default.value; // the paper's "oracle tuning" gain
 */
export interface SweepResult {
  /** Entries in grid order: k1 ascending, then b ascending within each k1. */
  grid: SweepEntry[];
  /** The setting with the highest mean of `metric`; ties go to the first in grid order. */
  best: SweepChoice;
  /** rank_bm25's default (k1 1.5, b 0.75) on the same queries, positive-only like the rest. */
  default: SweepChoice;
  /** The default's full entry: the grid's own when the grid has (1.5, 0.75), else run apart. */
  defaultEntry: SweepEntry;
  metric: Metric;
  k1s: readonly number[];
  bs: readonly number[];
  epsilon: number;
  /** The evaluated queries, in qrels order (the order every mean is summed in). */
  queryIds: QueryId[];
}

/**
 * Options of `bm25Sweep`; every one defaults to the paper's setup.
 *
 * @example
 * bm25Sweep(corpus, queries, qrels, { k1s: [0.9, 1.2], bs: [0.4, 0.75], metric: "nDCG@10" });
 */
export interface SweepOptions {
  /** k1 values (default `SWEEP_K1`). */
  k1s?: readonly number[];
  /** b values (default `SWEEP_B`). */
  bs?: readonly number[];
  /** Negative-idf floor, fixed across the sweep as in the paper (default 0.25). */
  epsilon?: number;
  /** The metric `best` maximises (default "Recall@100", the paper's). */
  metric?: Metric;
  /** Keep each setting's rankings on its entry (default false). */
  keepRankings?: boolean;
}

/**
 * Runs BM25 positive-only top-100 for every (k1, b) of the grid and evaluates each setting.
 *
 * The rankings are exactly those of `Bm25Index.withParams({ k1, b, epsilon })` followed by
 * `searchIds(terms, 100, { positiveOnly: true })` — same order, same ties (corpus order) — but
 * computed without scoring every query token against every posting 192 times (see
 * `QuerySweep`), which for ~300-token queries is the difference between a minute and seconds.
 * Each query is analysed once. Evaluation follows `evaluate`: every query of `qrels` with at
 * least one relevant document counts, in qrels order, and one missing from `queries` scores 0;
 * queries without qrels are not run.
 *
 * `best` is the setting with the highest mean of `metric`; on a tie the first setting in grid
 * order (k1 ascending, then b ascending) wins, so the choice is reproducible and favours the
 * smaller k1 and b.
 *
 * `default` is (1.5, 0.75), evaluated positive-only; when the grid lacks it, it is run apart
 * (and not added to `grid`).
 *
 * @example
 * const corpus = indexCorpus(bench.docs, greekStemmerTokenizer());
 * const sweep = bm25Sweep(corpus, bench.queries, bench.qrels);
 * sweep.grid.length; // 192
 * console.log(sweep.best, sweep.default); // { k1, b, value: mean Recall@100 }
 */
export function bm25Sweep(
  corpus: IndexedCorpus,
  queries: readonly Query[],
  qrels: ReadonlyMap<QueryId, ReadonlySet<DocId>>,
  opts: SweepOptions = {},
): SweepResult {
  const k1s = validGrid(opts.k1s ?? SWEEP_K1, "k1s", (v) => v >= 0);
  const bs = validGrid(opts.bs ?? SWEEP_B, "bs", (v) => v >= 0 && v <= 1);
  const epsilon = opts.epsilon ?? 0.25;
  const metric = opts.metric ?? "Recall@100";
  if (!METRICS.includes(metric)) throw new RangeError(`unknown metric '${metric}' (one of ${METRICS.join(", ")})`);
  if (!Number.isFinite(epsilon)) throw new RangeError(`epsilon must be finite, got ${epsilon}`);

  const settings: { k1: number; b: number }[] = [];
  for (const k1 of k1s) for (const b of bs) settings.push({ k1, b });
  const hasDefault = settings.some((s) => s.k1 === DEFAULT_K1 && s.b === DEFAULT_B);
  if (!hasDefault) settings.push({ k1: DEFAULT_K1, b: DEFAULT_B });

  const entries: SweepEntry[] = settings.map(({ k1, b }) => {
    const e: SweepEntry = { k1, b, mean: meanOf([]), perQuery: new Map() };
    if (opts.keepRankings) e.rankings = new Map();
    return e;
  });
  const textOf = new Map<QueryId, string>();
  for (const q of queries) if (!textOf.has(q.id)) textOf.set(q.id, q.text);

  // Query-major: one query's precomputed structure stays in cache while all settings use it.
  const engine = new QuerySweep(corpus, settings, epsilon);
  const evaluator = new RankEvaluator(corpus.docIds);
  const queryIds: QueryId[] = [];
  for (const [id, gold] of qrels) {
    if (gold.size === 0) continue;
    queryIds.push(id);
    const text = textOf.get(id);
    if (text === undefined) {
      const zero = queryMetrics([], gold);
      for (const e of entries) {
        e.perQuery.set(id, { ...zero });
        e.rankings?.set(id, []);
      }
      continue;
    }
    engine.setQuery(corpus.analyze(text));
    evaluator.setGold(gold);
    for (let s = 0; s < settings.length; s++) {
      const ranking = engine.rank(s, DEPTH);
      entries[s].perQuery.set(id, evaluator.metrics(ranking));
      entries[s].rankings?.set(id, Array.from(ranking, (d) => corpus.docIds[d]));
    }
  }
  for (const e of entries) e.mean = meanOf([...e.perQuery.values()]);

  const grid = hasDefault ? entries : entries.slice(0, -1);
  const bestEntry = argmaxFirst(grid, (e) => e.mean[metric]);
  const defaultEntry = hasDefault ? grid.find((e) => e.k1 === DEFAULT_K1 && e.b === DEFAULT_B)! : entries[entries.length - 1];
  return {
    grid,
    best: { k1: bestEntry.k1, b: bestEntry.b, value: bestEntry.mean[metric] },
    default: { k1: DEFAULT_K1, b: DEFAULT_B, value: defaultEntry.mean[metric] },
    defaultEntry,
    metric,
    k1s,
    bs,
    epsilon,
    queryIds,
  };
}

/**
 * Exact positive-only top-k BM25 rankings of one query under many (k1, b) settings; the
 * engine behind `bm25Sweep`, exported for tests and benchmarks.
 *
 * The direct scorer adds, for each query token in order, idf · F(tf, L_d) to every document
 * containing it, F(tf, L) = tf·(k1+1) / (tf + L), L_d = k1·(1 − b + b·|d|/avgdl). For a
 * 300-token query that is ~300,000 additions per setting, most of them for a few very common
 * terms repeated many times. But the score depends on the setting only through F, and a
 * document has few distinct tf values, so
 *
 *   score(d) ≈ Σ over the distinct tf values v of d:  F(v, L_d) · S_d(v),
 *   S_d(v) = Σ over distinct query terms t with tf(t, d) = v of qtf(t) · idf(t),
 *
 * where S_d(v) does not depend on (k1, b) and is computed once per query: a handful of
 * operations per document and setting. F grows with tf and shrinks with L, so a document
 * scores at most F(max tf, min L)·A_d with A_d = Σ_v |S_d(v)|; visiting documents by
 * decreasing A_d lets a setting stop once that bound falls below the k-th best score found so
 * far (about a quarter of the matching documents get visited on greeklaws-2021).
 *
 * Regrouping changes the floating-point summation order, so it can move a score by a few ulps,
 * and documents whose scores are equal in exact arithmetic (common: terms with the same df share
 * an idf) could swap places. To stay bit-for-bit faithful, each approximate score carries a
 * rigorous error bound (a few n·2⁻⁵³ times the sum of absolute contributions); documents whose
 * intervals overlap each other or zero are re-scored exactly as the direct scorer does (same
 * operations, same order) and ordered by those exact scores, ties by corpus position. The other
 * documents' order is certain from the intervals. Typically a few documents per query and
 * setting need the exact pass.
 *
 * @example
 * const engine = new QuerySweep(corpus, [{ k1: 1.2, b: 0.75 }, { k1: 1.5, b: 0.75 }], 0.25);
 * engine.setQuery(corpus.analyze(query.text));
 * engine.rank(1, 100); // Int32Array of corpus positions, as scorer.searchIds(…, 100, { positiveOnly: true }).docs
 */
export class QuerySweep {
  private readonly N: number;
  private readonly V: number;
  private readonly idf: Float64Array;
  /** Per setting: k1, b, k1 + 1 and the smallest L_d. */
  private readonly k1: Float64Array;
  private readonly b: Float64Array;
  private readonly k1p1: Float64Array;
  private readonly minLenNorm: Float64Array;
  private readonly avgdl: number;
  private readonly index: IndexedCorpus["index"];

  // ---- the current query
  private tokens = new Int32Array(0);
  /** Distinct-term slot of each token (-1: outside the vocabulary). */
  private tokenSlot = new Int32Array(0);
  private tolerance = 0;
  private nonNegative = true;
  private maxTf = 1;
  /** Matched documents by decreasing A_d; their (v, S, A) entries are [entStart[m], entStart[m+1]). */
  private docs = new Int32Array(0);
  private docAbs = new Float64Array(0);
  /** |d| of each matched document, in visit order (read sequentially instead of a random L_d lookup). */
  private docLen = new Float64Array(0);
  private entStart = new Int32Array(1);
  private entTf = new Int32Array(0);
  private entS = new Float64Array(0);
  private entA = new Float64Array(0);
  /** The m-th visited document's (slot, tf) pairs are [rawFrom[m], rawTo[m]), for exact re-scoring. */
  private rawFrom = new Int32Array(0);
  private rawTo = new Int32Array(0);
  private rawSlot = new Int32Array(0);
  private rawTf = new Int32Array(0);

  // ---- scratch
  private readonly slotOf: Int32Array;
  private readonly count: Int32Array;
  private readonly posOf: Int32Array;
  private tfBySlot = new Int32Array(0);
  private lo = new Float64Array(0);
  private hi = new Float64Array(0);
  private heap = new Float64Array(0);
  private cand = new Int32Array(0);

  constructor(corpus: IndexedCorpus, settings: readonly { k1: number; b: number }[], epsilon: number) {
    // The early stop relies on L growing with |d| and F being at most F(max tf, min L): true for
    // k1 >= 0 and 0 <= b <= 1, the ranges any BM25 tuning uses.
    for (const { k1, b } of settings) {
      if (!(Number.isFinite(k1) && k1 >= 0 && Number.isFinite(b) && b >= 0 && b <= 1)) {
        throw new RangeError(`QuerySweep needs k1 >= 0 and 0 <= b <= 1, got k1=${k1} b=${b}`);
      }
    }
    if (!Number.isFinite(epsilon)) throw new RangeError(`epsilon must be finite, got ${epsilon}`);
    const index = corpus.index;
    this.index = index;
    this.N = index.docCount;
    this.V = index.termCount;
    // Same idf and avgdl as Bm25Scorer computes (same function, same summation order).
    this.idf = okapiIdf(index, epsilon);
    let total = 0;
    for (let d = 0; d < this.N; d++) total += index.docLen[d];
    const avgdl = total / this.N;
    this.avgdl = avgdl;
    this.k1 = Float64Array.from(settings, (s) => s.k1);
    this.b = Float64Array.from(settings, (s) => s.b);
    this.k1p1 = Float64Array.from(settings, (s) => s.k1 + 1);
    // L grows with |d| (k1, b >= 0, and every rounding step is monotone), so the shortest
    // document has the smallest L.
    const minLen = index.docLen.reduce((m, v) => Math.min(m, v), Infinity);
    this.minLenNorm = Float64Array.from(settings, ({ k1, b }) => k1 * (1 - b + (b * minLen) / avgdl));
    this.slotOf = new Int32Array(this.V).fill(-1);
    this.count = new Int32Array(this.N);
    this.posOf = new Int32Array(this.N);
  }

  /**
   * Precomputes the setting-independent part for a query given as term ids.
   *
   * @example
   * engine.setQuery(corpus.analyze("καταγγελία σύμβασης εργασίας"));
   */
  setQuery(termIds: ArrayLike<number>): void {
    const { V, N, idf, slotOf, count, posOf, index } = this;
    const n = termIds.length;
    this.tokens = Int32Array.from(termIds);
    this.tokenSlot = new Int32Array(n);
    const slotTerm: number[] = [];
    const qtf: number[] = [];
    for (let i = 0; i < n; i++) {
      const t = this.tokens[i];
      if (!(t >= 0 && t < V)) {
        this.tokenSlot[i] = -1;
        continue;
      }
      if (slotOf[t] < 0) {
        slotOf[t] = slotTerm.length;
        slotTerm.push(t);
        qtf.push(0);
      }
      this.tokenSlot[i] = slotOf[t];
      qtf[slotOf[t]]++;
    }
    for (const t of slotTerm) slotOf[t] = -1;
    this.tfBySlot = new Int32Array(slotTerm.length);
    // |approx − exact| ≤ 2·γ(n+2)·Σ|contributions| with γ(m) ≈ m·2⁻⁵³; 2⁻⁵⁰ per token gives a
    // safety factor of about 4 on top of that (a looser bound only costs more exact re-scoring).
    this.tolerance = (n + 16) * 2 ** -50;

    // Counting sort of the query terms' postings by document (corpus order first).
    const { termStart, postingDoc, postingTf } = index;
    let total = 0;
    for (const t of slotTerm) {
      for (let p = termStart[t]; p < termStart[t + 1]; p++) count[postingDoc[p]]++;
      total += termStart[t + 1] - termStart[t];
    }
    let M = 0;
    for (let d = 0; d < N; d++) if (count[d] > 0) M++;
    const byDoc = new Int32Array(M);
    const start = new Int32Array(M + 1);
    M = 0;
    for (let d = 0; d < N; d++) {
      if (count[d] === 0) continue;
      byDoc[M] = d;
      posOf[d] = start[M];
      start[M + 1] = start[M] + count[d];
      count[d] = 0;
      M++;
    }
    const rawSlot = new Int32Array(total);
    const rawTf = new Int32Array(total);
    let maxTf = 1;
    for (let s = 0; s < slotTerm.length; s++) {
      const t = slotTerm[s];
      for (let p = termStart[t]; p < termStart[t + 1]; p++) {
        const at = posOf[postingDoc[p]]++;
        rawSlot[at] = s;
        rawTf[at] = postingTf[p];
        if (postingTf[p] > maxTf) maxTf = postingTf[p];
      }
    }
    this.maxTf = maxTf;
    const coef = Float64Array.from(slotTerm, (t, s) => qtf[s] * idf[t]);
    this.nonNegative = coef.every((c) => c >= 0);

    // Visit order: decreasing Σ|c| (the bound the early stop uses), ties by corpus position.
    const absSum = new Float64Array(M);
    for (let m = 0; m < M; m++) {
      let a = 0;
      for (let i = start[m]; i < start[m + 1]; i++) a += Math.abs(coef[rawSlot[i]]);
      absSum[m] = a;
    }
    const order = new Int32Array(M);
    for (let m = 0; m < M; m++) order[m] = m;
    order.sort((x, y) => absSum[y] - absSum[x] || x - y);

    // Per document in visit order: its raw (slot, tf) pairs, and entries merging the
    // contributions that share a tf value (small tf only: large ones are rare and stay separate
    // entries, which is still correct, only less compact).
    const docs = new Int32Array(M);
    const docAbs = new Float64Array(M);
    const docLenQ = new Float64Array(M);
    const rFrom = new Int32Array(M);
    const entTf = new Int32Array(total);
    const entS = new Float64Array(total);
    const entA = new Float64Array(total);
    const entStart = new Int32Array(M + 1);
    const SMALL = 64;
    const bucket = new Int32Array(SMALL).fill(-1);
    let E = 0;
    for (let m = 0; m < M; m++) {
      const src = order[m];
      docs[m] = byDoc[src];
      docAbs[m] = absSum[src];
      docLenQ[m] = index.docLen[byDoc[src]];
      rFrom[m] = start[src];
      entStart[m] = E;
      const first = E;
      for (let i = start[src]; i < start[src + 1]; i++) {
        const tf = rawTf[i];
        const c = coef[rawSlot[i]];
        if (tf < SMALL && bucket[tf] >= 0) {
          entS[bucket[tf]] += c;
          entA[bucket[tf]] += Math.abs(c);
          continue;
        }
        if (tf < SMALL) bucket[tf] = E;
        entTf[E] = tf;
        entS[E] = c;
        entA[E] = Math.abs(c);
        E++;
      }
      for (let j = first; j < E; j++) if (entTf[j] < SMALL) bucket[entTf[j]] = -1;
    }
    entStart[M] = E;
    this.docs = docs;
    this.docAbs = docAbs;
    this.docLen = docLenQ;
    this.rawFrom = rFrom;
    this.rawTo = Int32Array.from(order, (src) => start[src + 1]);
    this.rawSlot = rawSlot;
    this.rawTf = rawTf;
    this.entStart = entStart;
    this.entTf = entTf.slice(0, E);
    this.entS = entS.slice(0, E);
    this.entA = entA.slice(0, E);
    if (this.lo.length < M) {
      this.lo = new Float64Array(M);
      this.hi = new Float64Array(M);
    }
  }

  /**
   * The positive-only top-k documents (corpus positions) of the current query under setting s,
   * in the direct scorer's order: exact score descending, ties by corpus position.
   *
   * @example
   * const top = engine.rank(0, 100);
   */
  rank(s: number, k: number): Int32Array {
    if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
    if (!(Number.isInteger(s) && s >= 0 && s < this.k1.length)) throw new RangeError(`no setting ${s}`);
    const { docs, docAbs, docLen, entStart, entTf, entS, entA, lo, hi, nonNegative, avgdl } = this;
    const k1 = this.k1[s];
    const b = this.b[s];
    const k1p1 = this.k1p1[s];
    const tol = this.tolerance;
    const M = docs.length;
    if (this.heap.length < k) this.heap = new Float64Array(k);
    const heap = this.heap;
    let size = 0;
    // F(v, L) ≤ F(maxTf, min L) for every entry of this query, so a document scores at most
    // fMax·A_d (the margin covers rounding in computing either side).
    const fMax = ((this.maxTf * k1p1) / (this.maxTf + this.minLenNorm[s])) * (1 + 4 * tol);
    // Intervals [lo, hi] certainly holding each exact score; the k-th largest lower bound among
    // documents that may score > 0 bounds which documents can still reach the top k.
    let visited = 0;
    for (let m = 0; m < M; m++) {
      if (size === k && fMax * docAbs[m] < heap[0]) break;
      visited++;
      // L_d by the scorer's own expression: recomputing it from a sequential |d| beats looking it
      // up in one of 192 per-setting tables, which do not stay in cache together.
      const Ld = k1 * (1 - b + (b * docLen[m]) / avgdl);
      let a = 0;
      let e: number;
      if (nonNegative) {
        for (let j = entStart[m]; j < entStart[m + 1]; j++) {
          const tf = entTf[j];
          // The same F the direct scorer computes (same operations); only the grouping differs.
          a += entS[j] * ((tf * k1p1) / (tf + Ld));
        }
        e = tol * a;
      } else {
        let abs = 0;
        for (let j = entStart[m]; j < entStart[m + 1]; j++) {
          const tf = entTf[j];
          const F = (tf * k1p1) / (tf + Ld);
          a += entS[j] * F;
          abs += entA[j] * F;
        }
        e = tol * abs;
      }
      const l = a - e;
      const h = a + e;
      lo[m] = l;
      hi[m] = h;
      if (!(h > 0)) continue;
      if (size < k) heapPush(heap, size++, l);
      else if (l > heap[0]) heapReplaceRoot(heap, size, l);
    }
    const threshold = size === k ? heap[0] : -Infinity;
    if (this.cand.length < visited) this.cand = new Int32Array(Math.max(visited, 2 * this.cand.length));
    let nc = 0;
    for (let m = 0; m < visited; m++) if (hi[m] > 0 && hi[m] >= threshold) this.cand[nc++] = m;
    const cand = this.cand.subarray(0, nc).sort((x, y) => hi[y] - hi[x] || x - y);

    const out = new Int32Array(Math.min(k, nc));
    let n = 0;
    let g = 0;
    while (g < nc && n < k) {
      // A group: candidates whose intervals chain-overlap; different groups are strictly ordered.
      let minLo = lo[cand[g]];
      let end = g + 1;
      while (end < nc && hi[cand[end]] >= minLo) {
        minLo = Math.min(minLo, lo[cand[end]]);
        end++;
      }
      if (end === g + 1 && lo[cand[g]] > 0) {
        out[n++] = docs[cand[g]];
      } else {
        const group: { d: number; score: number }[] = [];
        for (let i = g; i < end; i++) {
          const score = this.exactScore(cand[i], s);
          if (score > 0) group.push({ d: docs[cand[i]], score });
        }
        group.sort((x, y) => y.score - x.score || x.d - y.d);
        for (const { d } of group) {
          if (n === k) break;
          out[n++] = d;
        }
      }
      g = end;
    }
    return n === out.length ? out : out.slice(0, n);
  }

  /** The direct scorer's score of the m-th matched document: same terms, same operations, same order. */
  private exactScore(m: number, s: number): number {
    const { tokens, tokenSlot, tfBySlot, rawFrom, rawTo, rawSlot, rawTf, idf } = this;
    const L = this.k1[s] * (1 - this.b[s] + (this.b[s] * this.docLen[m]) / this.avgdl);
    const k1p1 = this.k1p1[s];
    for (let i = rawFrom[m]; i < rawTo[m]; i++) tfBySlot[rawSlot[i]] = rawTf[i];
    let score = 0;
    for (let i = 0; i < tokens.length; i++) {
      const slot = tokenSlot[i];
      if (slot < 0) continue;
      const tf = tfBySlot[slot];
      if (tf > 0) score += idf[tokens[i]] * ((tf * k1p1) / (tf + L));
    }
    for (let i = rawFrom[m]; i < rawTo[m]; i++) tfBySlot[rawSlot[i]] = 0;
    return score;
  }
}

function heapPush(heap: Float64Array, size: number, v: number): void {
  let i = size;
  heap[i] = v;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (heap[parent] <= heap[i]) break;
    const t = heap[parent];
    heap[parent] = heap[i];
    heap[i] = t;
    i = parent;
  }
}

function heapReplaceRoot(heap: Float64Array, size: number, v: number): void {
  heap[0] = v;
  let i = 0;
  for (;;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let m = i;
    if (l < size && heap[l] < heap[m]) m = l;
    if (r < size && heap[r] < heap[m]) m = r;
    if (m === i) return;
    const t = heap[m];
    heap[m] = heap[i];
    heap[i] = t;
    i = m;
  }
}

/**
 * `queryMetrics` on rankings of corpus positions, for the ~54,000 rankings of a sweep: the
 * same floating-point operations in the same order (so identical values), without building
 * id strings and sets per ranking. Falls back to `queryMetrics` when doc ids repeat in the
 * corpus, where its de-duplication by id matters.
 */
class RankEvaluator {
  private readonly isGold: Uint8Array;
  private readonly unique: boolean;
  private readonly posOf: Map<DocId, number[]>;
  private goldPositions: number[] = [];
  private gold: ReadonlySet<DocId> = new Set();
  private readonly inv: Float64Array;

  constructor(private readonly docIds: readonly DocId[]) {
    this.isGold = new Uint8Array(docIds.length);
    this.posOf = new Map();
    docIds.forEach((id, d) => {
      const list = this.posOf.get(id);
      if (list) list.push(d);
      else this.posOf.set(id, [d]);
    });
    this.unique = this.posOf.size === docIds.length;
    this.inv = Float64Array.from({ length: DEPTH }, (_, i) => 1 / Math.log2(i + 2));
  }

  setGold(gold: ReadonlySet<DocId>): void {
    for (const d of this.goldPositions) this.isGold[d] = 0;
    this.goldPositions = [];
    this.gold = gold;
    for (const id of gold) for (const d of this.posOf.get(id) ?? []) this.goldPositions.push(d);
    for (const d of this.goldPositions) this.isGold[d] = 1;
  }

  metrics(ranking: Int32Array): MetricValues {
    if (!this.unique) return queryMetrics(Array.from(ranking, (d) => this.docIds[d]), this.gold);
    const g = this.gold.size;
    const n = Math.min(ranking.length, DEPTH);
    let dcg10 = 0;
    let dcg100 = 0;
    let hits10 = 0;
    let hits100 = 0;
    let apSum = 0;
    for (let i = 0; i < n; i++) {
      if (!this.isGold[ranking[i]]) continue;
      hits100++;
      if (i < 10) {
        hits10++;
        dcg10 += this.inv[i];
      }
      dcg100 += this.inv[i];
      apSum += hits100 / (i + 1);
    }
    let ideal10 = 0;
    let ideal100 = 0;
    for (let i = 0; i < Math.min(DEPTH, g); i++) {
      if (i < 10) ideal10 += this.inv[i];
      ideal100 += this.inv[i];
    }
    return {
      "nDCG@10": dcg10 / ideal10,
      "nDCG@100": dcg100 / ideal100,
      "Recall@10": hits10 / g,
      "Recall@100": hits100 / g,
      "MAP@100": apSum / Math.min(DEPTH, g),
    };
  }
}

function validGrid(values: readonly number[], name: string, ok: (v: number) => boolean): number[] {
  if (values.length === 0) throw new RangeError(`${name} is empty`);
  const bad = values.find((v) => !Number.isFinite(v) || !ok(v));
  if (bad !== undefined) throw new RangeError(`${name} has an invalid value ${bad}`);
  // Sorted and unique, so grid order (and with it the tie rule) is the same however they were given.
  return [...new Set(values)].sort((x, y) => x - y);
}

/** The first item with the highest value: strict ">" keeps the earlier one on ties. */
function argmaxFirst<T>(items: readonly T[], value: (item: T) => number): T {
  let best = items[0];
  let bestValue = value(best);
  for (let i = 1; i < items.length; i++) {
    const v = value(items[i]);
    if (v > bestValue) {
      best = items[i];
      bestValue = v;
    }
  }
  return best;
}

/**
 * One fold of a cross-validated tuning.
 *
 * @example
 * for (const f of cv.folds) console.log(f.fold, f.k1, f.b, f.testMean["Recall@100"]);
 */
export interface CvFold {
  fold: number;
  /** The setting chosen on the other folds' queries. */
  k1: number;
  b: number;
  /** Its mean of the tuning metric on those training queries. */
  trainValue: number;
  /** The held-out queries, in the order of `queryIds`. */
  testQueryIds: QueryId[];
  /** The chosen setting's mean on the held-out queries. */
  testMean: MetricValues;
}

/**
 * What `crossValidatedTuning` returns: the honest estimate next to the oracle and the default.
 *
 * @example
 * console.log(cv.default.value, cv.mean["Recall@100"], cv.oracle.value);
 */
export interface CvResult {
  metric: Metric;
  folds: CvFold[];
  /**
   * Pooled held-out estimate: every query counted once, with the setting chosen without it,
   * macro-averaged in the order of `queryIds` (not the mean of fold means, which would weigh
   * the smaller folds' queries more).
   */
  mean: MetricValues;
  perQuery: Map<QueryId, MetricValues>;
  /** The oracle (best on all these queries, the paper's number) for comparison. */
  oracle: SweepChoice & { mean: MetricValues };
  /** The untuned default (1.5, 0.75) on the same queries. */
  default: SweepChoice & { mean: MetricValues };
}

/**
 * Options of `crossValidatedTuning`.
 *
 * @example
 * crossValidatedTuning(sweep, sweep.queryIds, { folds: 10, seed: 1, metric: "nDCG@10" });
 */
export interface CvOptions {
  /** Number of folds (default 5). */
  folds?: number;
  /** Shuffle seed (default 42). */
  seed?: number;
  /** Metric to tune (default: the sweep's). */
  metric?: Metric;
}

/**
 * k-fold cross-validated tuning from a finished sweep (no retrieval is re-run): the queries
 * are shuffled with a seeded PRNG (mulberry32, Fisher–Yates) and dealt round-robin into k folds
 * (sizes differ by at most one); for each fold, the setting with the best mean `metric` on the
 * other folds' queries (ties: first in grid order) is evaluated on the held-out fold. The
 * pooled held-out means are the deployable estimate of tuning, which the paper, lacking a
 * development split, does not report; `oracle` and `default` on the same queries sit beside it.
 *
 * @example
 * const sweep = bm25Sweep(corpus, bench.queries, bench.qrels);
 * const cv = crossValidatedTuning(sweep, sweep.queryIds, { folds: 5, seed: 42 });
 * console.log(cv.default.value, cv.mean["Recall@100"], cv.oracle.value);
 */
export function crossValidatedTuning(sweep: SweepResult, queryIds: readonly QueryId[], opts: CvOptions = {}): CvResult {
  const k = opts.folds ?? 5;
  const seed = opts.seed ?? 42;
  const metric = opts.metric ?? sweep.metric;
  if (!METRICS.includes(metric)) throw new RangeError(`unknown metric '${metric}' (one of ${METRICS.join(", ")})`);
  if (!Number.isInteger(k) || k < 2) throw new RangeError(`folds must be an integer >= 2, got ${k}`);
  if (queryIds.length < k) throw new RangeError(`${queryIds.length} queries cannot fill ${k} folds`);
  if (new Set(queryIds).size !== queryIds.length) throw new RangeError("queryIds has duplicates");
  if (sweep.grid.length === 0) throw new RangeError("the sweep has no settings");
  for (const q of queryIds) {
    if (!sweep.grid[0].perQuery.has(q)) throw new RangeError(`query '${q}' was not evaluated by the sweep`);
  }

  const foldOf = new Map<QueryId, number>();
  seededShuffle(queryIds, seed).forEach((q, i) => foldOf.set(q, i % k));

  const meanOver = (entry: SweepEntry, ids: readonly QueryId[]): MetricValues => meanOf(ids.map((q) => entry.perQuery.get(q)!));
  const perQuery = new Map<QueryId, MetricValues>();
  const folds: CvFold[] = [];
  for (let f = 0; f < k; f++) {
    // Both sides keep the order of `queryIds`, so the sums (and any float tie) do not depend on the shuffle.
    const train = queryIds.filter((q) => foldOf.get(q) !== f);
    const test = queryIds.filter((q) => foldOf.get(q) === f);
    const chosen = argmaxFirst(sweep.grid, (e) => meanOver(e, train)[metric]);
    for (const q of test) perQuery.set(q, chosen.perQuery.get(q)!);
    folds.push({ fold: f, k1: chosen.k1, b: chosen.b, trainValue: meanOver(chosen, train)[metric], testQueryIds: test, testMean: meanOver(chosen, test) });
  }
  const pooled = new Map(queryIds.map((q) => [q, perQuery.get(q)!] as const));

  const oracleEntry = argmaxFirst(sweep.grid, (e) => meanOver(e, queryIds)[metric]);
  const oracleMean = meanOver(oracleEntry, queryIds);
  const defaultMean = meanOver(sweep.defaultEntry, queryIds);
  return {
    metric,
    folds,
    mean: meanOf([...pooled.values()]),
    perQuery: pooled,
    oracle: { k1: oracleEntry.k1, b: oracleEntry.b, value: oracleMean[metric], mean: oracleMean },
    default: { k1: DEFAULT_K1, b: DEFAULT_B, value: defaultMean[metric], mean: defaultMean },
  };
}

/**
 * A copy of `items` in a seeded random order: mulberry32 drives a Fisher–Yates shuffle, so the
 * same seed gives the same folds on every platform (Math.random cannot be seeded).
 */
function seededShuffle<T>(items: readonly T[], seed: number): T[] {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * A sweep as a plottable matrix (see `sweepHeatmap`).
 *
 * @example
 * const { k1s, bs, z } = sweepHeatmap(sweep, "Recall@100");
 */
export interface SweepHeatmap {
  metric: Metric;
  /** Column labels (x axis), ascending. */
  k1s: number[];
  /** Row labels (y axis), ascending. */
  bs: number[];
  /** z[i][j] = mean metric at b = bs[i], k1 = k1s[j]; NaN where the grid has no such setting. */
  z: number[][];
}

/**
 * The sweep's mean `metric` as a matrix with rows by b and columns by k1 — the layout heatmap
 * plotters (plotly's `{ type: "heatmap", x, y, z }`) expect, z indexed [row][column] = [y][x].
 *
 * @example
 * const h = sweepHeatmap(sweep, "Recall@100");
 * Plotly.newPlot(el, [{ type: "heatmap", x: h.k1s, y: h.bs, z: h.z }]);
 * h.z.length; // 12 rows (b), h.z[0].length; // 16 columns (k1)
 */
export function sweepHeatmap(sweep: SweepResult, metric: Metric = sweep.metric): SweepHeatmap {
  if (!METRICS.includes(metric)) throw new RangeError(`unknown metric '${metric}' (one of ${METRICS.join(", ")})`);
  const k1s = [...new Set(sweep.grid.map((e) => e.k1))].sort((x, y) => x - y);
  const bs = [...new Set(sweep.grid.map((e) => e.b))].sort((x, y) => x - y);
  const z = bs.map(() => k1s.map(() => Number.NaN));
  const col = new Map(k1s.map((v, j) => [v, j] as const));
  const row = new Map(bs.map((v, i) => [v, i] as const));
  for (const e of sweep.grid) z[row.get(e.b)!][col.get(e.k1)!] = e.mean[metric];
  return { metric, k1s, bs, z };
}
