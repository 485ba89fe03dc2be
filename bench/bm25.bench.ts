/**
 * BM25 benchmark (`npm run bench`). Measures, on the shared Greek statute sets:
 *   A. greeklaws-2021: tokenise + index 5,692 articles, then the 283 sample queries;
 *   B. greeklaws-2021 + 2022 together (11,438 articles), same queries, for scaling;
 *   C. the 283 long queries (~300 tokens, shaped like GreekBarRetrieval's facts + question);
 *   D. a whole `gbr search` process, start-up included.
 * Each in-process figure is set against a baseline measured in the same run: a direct
 * TypeScript port of the reference pipeline (per-word NFD + stemming without caches, and
 * rank_bm25's per-term loop over every document's frequency table). The Python timings
 * reported in DESIGN.md for this machine are printed alongside for context.
 *
 * Options: --quick (fewer repetitions), --json FILE (write the figures).
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { readBeir } from "../lib/data/beir";
import { readTrec } from "../lib/data/runs";
import { bm25Search, indexCorpus } from "../lib/sparse/bm25-retriever";
import { greekStemmerTokenizer } from "../lib/text/tokenizers";
import { clean, words } from "../lib/text/normalize";
import { stem } from "../lib/text/greek-stemmer";
import { GREEK_STEMMER_STOPWORDS } from "../lib/text/stopwords";
import type { Benchmark, Query } from "../lib/types";

const ROOT = path.resolve(__dirname, "..");
const SHARED = path.resolve(ROOT, "..", "shared", "data");
const args = process.argv.slice(2);
const quick = args.includes("--quick");
const jsonOut = args.includes("--json") ? args[args.indexOf("--json") + 1] : undefined;

/** Python timings on this machine kind, from DESIGN.md §8 and the data README. */
const PYTHON = { tokenizeCorpusS: 18, buildS: 0.3, sampleQueriesS: 8, totalS: 27, longQueriesS: 117, scaleFactorPerQuery: 3 };

const ms = (t0: number) => performance.now() - t0;
let peakRss = 0;
const sampleMemory = () => (peakRss = Math.max(peakRss, process.memoryUsage().rss));

/**
 * Timings of `reps` runs of fn (ms): the first (cold: V8 has not optimised the code yet) and
 * the median of the rest (steady state, as in a notebook kernel that has run a query before).
 */
function time<T>(reps: number, fn: () => T): { first: number; ms: number; value: T } {
  const times: number[] = [];
  let value!: T;
  for (let i = 0; i < reps; i++) {
    (globalThis as { gc?: () => void }).gc?.();
    const t0 = performance.now();
    value = fn();
    times.push(ms(t0));
    sampleMemory();
  }
  const rest = times.slice(1).sort((a, b) => a - b);
  return { first: times[0], ms: rest.length ? rest[rest.length >> 1] : times[0], value };
}

// ---------------------------------------------------------------- baseline: the reference, ported directly
function naiveTokenize(text: string): string[] {
  return words(clean(text))
    .map((w) => w.normalize("NFD").replace(/\p{M}/gu, "").toUpperCase())
    .filter((w) => !GREEK_STEMMER_STOPWORDS.has(w))
    .map((w) => stem(w));
}

class NaiveBm25 {
  docFreqs: Map<string, number>[] = [];
  docLen: number[] = [];
  idf = new Map<string, number>();
  avgdl: number;
  constructor(corpus: string[][], readonly k1 = 1.5, readonly b = 0.75, epsilon = 0.25) {
    const nd = new Map<string, number>();
    let total = 0;
    for (const doc of corpus) {
      this.docLen.push(doc.length);
      total += doc.length;
      const f = new Map<string, number>();
      for (const w of doc) f.set(w, (f.get(w) ?? 0) + 1);
      this.docFreqs.push(f);
      for (const w of f.keys()) nd.set(w, (nd.get(w) ?? 0) + 1);
    }
    this.avgdl = total / corpus.length;
    let sum = 0;
    const neg: string[] = [];
    for (const [w, n] of nd) {
      const v = Math.log(corpus.length - n + 0.5) - Math.log(n + 0.5);
      this.idf.set(w, v);
      sum += v;
      if (v < 0) neg.push(w);
    }
    for (const w of neg) this.idf.set(w, epsilon * (sum / this.idf.size));
  }
  topK(query: string[], k: number): number[] {
    const N = this.docLen.length;
    const score = new Float64Array(N);
    for (const q of query) {
      const idf = this.idf.get(q) ?? 0;
      for (let d = 0; d < N; d++) {
        const tf = this.docFreqs[d].get(q) ?? 0;
        score[d] += idf * ((tf * (this.k1 + 1)) / (tf + this.k1 * (1 - this.b + (this.b * this.docLen[d]) / this.avgdl)));
      }
    }
    return Array.from(score.keys())
      .sort((x, y) => score[y] - score[x] || x - y)
      .slice(0, k);
  }
}

// ---------------------------------------------------------------- workloads
interface Figures {
  /** first run of index + queries, before V8 optimised anything */
  coldMs: number;
  docs: number;
  terms: number;
  postings: number;
  indexMs: number;
  queries: number;
  queryMs: number;
  msPerQuery: number;
  totalMs: number;
  baselineIndexMs: number;
  baselineMsPerQuery: number;
  baselineQueriesTimed: number;
}

function measure(label: string, bench: Pick<Benchmark, "docs">, queries: Query[], reps: number, baselineQueries: number): Figures {
  // Cold: one complete first pass (index, then queries), as a fresh `gbr search` does it.
  const t00 = performance.now();
  const cold = indexCorpus(bench.docs, greekStemmerTokenizer());
  bm25Search(cold, cold.index.withParams(), queries, 100);
  const coldMs = ms(t00);
  const idx = time(reps, () => indexCorpus(bench.docs, greekStemmerTokenizer()));
  const corpus = idx.value;
  const scorer = corpus.index.withParams();
  const q = time(reps, () => bm25Search(corpus, scorer, queries, 100));
  // The baseline is slow by design: time it once, on a subset of queries for the long workload.
  const t0 = performance.now();
  const naive = new NaiveBm25(bench.docs.map((d) => naiveTokenize(d.text)));
  const baselineIndexMs = ms(t0);
  sampleMemory();
  const subset = queries.slice(0, baselineQueries);
  const t1 = performance.now();
  for (const query of subset) naive.topK(naiveTokenize(query.text), 100);
  const baselineMsPerQuery = ms(t1) / subset.length;
  const f: Figures = {
    coldMs,
    docs: corpus.index.docCount,
    terms: corpus.index.termCount,
    postings: corpus.index.postingCount,
    indexMs: idx.ms,
    queries: queries.length,
    queryMs: q.ms,
    msPerQuery: q.ms / queries.length,
    totalMs: idx.ms + q.ms,
    baselineIndexMs,
    baselineMsPerQuery,
    baselineQueriesTimed: subset.length,
  };
  const baselineTotal = baselineIndexMs + baselineMsPerQuery * queries.length;
  console.log(
    `${label.padEnd(34)} docs ${String(f.docs).padStart(6)}  postings ${String(f.postings).padStart(8)}  ` +
      `index ${f.indexMs.toFixed(0).padStart(5)} ms  queries ${f.queryMs.toFixed(0).padStart(5)} ms (${f.msPerQuery.toFixed(3)} ms/q)  ` +
      `total ${f.totalMs.toFixed(0).padStart(5)} ms (cold ${f.coldMs.toFixed(0)} ms) | baseline ${baselineTotal.toFixed(0)} ms (${f.baselineMsPerQuery.toFixed(2)} ms/q) => ×${(baselineTotal / f.totalMs).toFixed(1)}`,
  );
  return f;
}

async function main() {
  const reps = quick ? 2 : 8;
  const dir21 = path.join(SHARED, "greeklaws-2021");
  const dir22 = path.join(SHARED, "greeklaws-2022");
  const b21 = await readBeir(dir21, { queriesFile: path.join(dir21, "queries-sample.jsonl") });
  const b22 = await readBeir(dir22, { queriesFile: path.join(dir22, "queries-sample.jsonl") });
  const long = await readBeir(dir21, { queriesFile: path.join(dir21, "queries-long.jsonl") });
  console.log(
    `node ${process.version}; each workload: one cold run (first in this process), then ${reps} timed runs, median of the ` +
      `last ${reps - 1} shown (steady state); baseline = direct port of the reference pipeline, same process\n`,
  );

  const A = measure("A greeklaws-2021, 283 queries", b21, b21.queries, reps, b21.queries.length);
  const B = measure("B 2021+2022 (11,438), 283 queries", { docs: [...b21.docs, ...b22.docs] }, b21.queries, reps, quick ? 40 : b21.queries.length);
  const C = measure("C greeklaws-2021, 283 long queries", b21, long.queries, reps, quick ? 10 : 30);

  // Parity of the long workload with rank_bm25's own output, as a guard on the fast path.
  const corpus = indexCorpus(b21.docs, greekStemmerTokenizer());
  const run = bm25Search(corpus, corpus.index.withParams(), long.queries, 100);
  const ref = await readTrec(path.resolve(SHARED, "..", "oracles", "greeklaws-2021", "bm25-greekstemmer-long.trec"));
  const identical = [...ref.rankings].filter(([q, r]) => run.rankings.get(q)?.join() === r.join()).length;
  console.log(`\nlong-query parity with rank_bm25: ${identical}/${ref.rankings.size} rankings identical`);

  // D: the whole command, start-up included (median of 3 runs).
  const gbr = path.join(ROOT, "bin", "gbr.js");
  const out = path.join(require("node:os").tmpdir(), `gbr-bench-${process.pid}.trec`);
  const cli = time(quick ? 1 : 3, () =>
    execFileSync(process.execPath, [gbr, "search", "--quiet", "--data", dir21, "--queries", path.join(dir21, "queries-sample.jsonl"), "--out", out], { stdio: "pipe" }),
  );
  console.log(`D gbr search process (2021, 283 queries, start-up and file I/O included): ${cli.ms.toFixed(0)} ms`);

  const peakMb = Math.max(peakRss, process.resourceUsage().maxRSS * 1024) / 2 ** 20;
  const py = PYTHON;
  const ratios = {
    coldInProcessVsPython: (py.totalS * 1000) / A.coldMs,
    inProcessVsPython: (py.totalS * 1000) / A.totalMs,
    processVsPython: (py.totalS * 1000) / cli.ms,
    queriesVsPython: (py.sampleQueriesS * 1000) / A.queryMs,
    longQueriesVsPython: (py.longQueriesS * 1000) / C.queryMs,
    inProcessVsBaseline: (A.baselineIndexMs + A.baselineMsPerQuery * A.queries) / A.totalMs,
    longVsBaseline: C.baselineMsPerQuery / C.msPerQuery,
    scalingPerQuery: B.msPerQuery / A.msPerQuery,
  };
  console.log(`peak RSS ${peakMb.toFixed(0)} MB`);
  console.log(
    `\nPython reference on this machine kind (DESIGN.md): ${py.totalS} s for A (18 s tokenising, 0.3 s building, 8 s querying), ${py.longQueriesS} s for the long queries.`,
  );
  console.log(
    `ratios: A in-process ×${ratios.coldInProcessVsPython.toFixed(0)} cold / ×${ratios.inProcessVsPython.toFixed(0)} steady vs Python, ×${ratios.inProcessVsBaseline.toFixed(1)} vs same-run baseline; ` +
      `whole process ×${ratios.processVsPython.toFixed(1)} vs Python; queries ×${ratios.queriesVsPython.toFixed(0)}; ` +
      `long queries ×${ratios.longQueriesVsPython.toFixed(0)} vs Python, ×${ratios.longVsBaseline.toFixed(0)} vs baseline; ` +
      `per-query cost 2021+2022 / 2021 = ${ratios.scalingPerQuery.toFixed(2)} (Python: ~${py.scaleFactorPerQuery})`,
  );
  if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ A, B, C, cliMs: cli.ms, peakMb, ratios, longParity: identical, python: py }, null, 2) + "\n");
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
