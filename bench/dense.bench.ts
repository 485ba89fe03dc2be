/**
 * Dense benchmark (`npm run bench`, second part). Measures on this machine:
 *   1. exact search, the WebAssembly SIMD kernel against the same arithmetic in plain TypeScript
 *      (`plainSearch`: the same bits, checked), timed in alternating pairs in this run: LSI's
 *      283 sample queries over greeklaws-2021's 5,692 vectors of 256 dimensions, and 32 queries
 *      over 6,308 random unit vectors of 4,096 dimensions (Qwen3-8B's size; random vectors time
 *      the same as real ones), with the kernel's time for all 283 of them;
 *   2. LSI fit on greeklaws-2021 at 256 dimensions (its products in the WebAssembly gather kernel);
 *   3. the cache-hit path: embedding 6,308 articles whose vectors are all in LanceDB already.
 *
 * Options: --quick (fewer repetitions), --json FILE.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { readBeir } from "../lib/data/beir";
import { embedItems } from "../lib/dense/embed";
import { ExactIndex, normalize } from "../lib/dense/exact-search";
import { TopKHeap, type TopK } from "../lib/util/top-k";
import { fitLsi } from "../lib/dense/lsi";
import type { EmbeddingPreset } from "../lib/dense/presets";
import { openVectorStore } from "../lib/store/vector-store";
import { indexCorpus } from "../lib/sparse/bm25-retriever";
import { greekStemmerTokenizer } from "../lib/text/tokenizers";

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const jsonOut = args.includes("--json") ? args[args.indexOf("--json") + 1] : undefined;
const SHARED = path.resolve(__dirname, "..", "..", "shared", "data");

function randomUnit(n: number, dim: number, seed: number): Float32Array[] {
  let s = seed >>> 0;
  const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) - 0.5;
  return Array.from({ length: n }, () => normalize(Float32Array.from({ length: dim }, rnd)));
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

/**
 * Exact search as the kernel computes it, in plain TypeScript: per (query, document) four float32
 * lanes over the dimensions four at a time, each product and sum rounded to float32, then the
 * lanes summed pairwise; the top k by a bounded heap. The same bits as `ExactIndex.search`.
 */
function plainSearch(docs: Float32Array[], queries: Float32Array[], k: number): TopK[] {
  const f = Math.fround;
  const stride = Math.ceil(docs[0].length / 4) * 4;
  const pad = (v: Float32Array) => {
    const out = new Float32Array(stride);
    out.set(normalize(v));
    return out;
  };
  const D = docs.map(pad);
  return queries.map((query) => {
    const q = pad(query);
    const heap = new TopKHeap(Math.min(k, D.length));
    for (let d = 0; d < D.length; d++) {
      const x = D[d];
      let a0 = 0;
      let a1 = 0;
      let a2 = 0;
      let a3 = 0;
      for (let j = 0; j < stride; j += 4) {
        a0 = f(a0 + f(x[j] * q[j]));
        a1 = f(a1 + f(x[j + 1] * q[j + 1]));
        a2 = f(a2 + f(x[j + 2] * q[j + 2]));
        a3 = f(a3 + f(x[j + 3] * q[j + 3]));
      }
      heap.offer(d, f(f(a0 + a1) + f(a2 + a3)));
    }
    return heap.sorted();
  });
}

const sameTops = (a: TopK[], b: TopK[]) => a.length === b.length && a.every((t, i) => t.docs.join() === b[i].docs.join() && t.scores.join() === b[i].scores.join());

/** `plain` and `kernel` timed in alternation, `pairs` times after one run each: medians and the median of the pairs' ratios. */
function timePairs(pairs: number, plain: () => unknown, kernel: () => unknown): { plainMs: number; kernelMs: number; ratio: number } {
  plain();
  kernel();
  const tp: number[] = [];
  const tk: number[] = [];
  for (let i = 0; i < pairs; i++) {
    let t0 = performance.now();
    plain();
    tp.push(performance.now() - t0);
    t0 = performance.now();
    kernel();
    tk.push(performance.now() - t0);
  }
  return { plainMs: median(tp), kernelMs: median(tk), ratio: median(tp.map((t, i) => t / tk[i])) };
}

async function main() {
  const reps = quick ? 2 : 4;
  const figures: Record<string, number> = {};

  // 1. Exact search, the kernel against plain TypeScript.
  const docs = randomUnit(6308, 4096, 1);
  const queries = randomUnit(283, 4096, 2);
  let t0 = performance.now();
  const index = new ExactIndex(docs);
  figures.exactBuildMs = performance.now() - t0;
  const times: number[] = [];
  for (let r = 0; r < reps; r++) {
    t0 = performance.now();
    index.search(queries, 100);
    times.push(performance.now() - t0);
  }
  figures.exactFirstMs = times[0];
  figures.exactMs = median(times.slice(1).length ? times.slice(1) : times);
  const few = queries.slice(0, 32);
  const same4096 = sameTops(plainSearch(docs, few, 100), index.search(few, 100));
  const big = timePairs(quick ? 1 : 3, () => plainSearch(docs, few, 100), () => index.search(few, 100));
  Object.assign(figures, { plain4096Ms: big.plainMs, kernel4096Ms: big.kernelMs, ratio4096: big.ratio });
  console.log(
    `exact search, 283 queries × 6,308 × 4,096: ${figures.exactMs.toFixed(0)} ms (first run ${figures.exactFirstMs.toFixed(0)} ms; ` +
      `loading the index ${figures.exactBuildMs.toFixed(0)} ms); 32 of the queries: plain ${big.plainMs.toFixed(0)} ms, kernel ${big.kernelMs.toFixed(0)} ms => ` +
      `×${big.ratio.toFixed(1)} (median of ${quick ? 1 : 3} alternating pairs; same bits: ${same4096})`,
  );

  // 2. LSI fit on greeklaws-2021.
  const dir = path.join(SHARED, "greeklaws-2021");
  const bench = await readBeir(dir, { queriesFile: path.join(dir, "queries-sample.jsonl") });
  const corpus = indexCorpus(bench.docs, greekStemmerTokenizer());
  t0 = performance.now();
  const model = fitLsi(corpus, { dims: 256 });
  figures.lsiFitMs = performance.now() - t0;
  const fits = Array.from({ length: quick ? 1 : 3 }, () => {
    const t = performance.now();
    fitLsi(corpus, { dims: 256 });
    return performance.now() - t;
  });
  figures.kernelLsiFitMs = median(fits);
  t0 = performance.now();
  for (const q of bench.queries) model.embedQuery(q.text);
  figures.lsiQueryMs = (performance.now() - t0) / bench.queries.length;
  console.log(
    `LSI fit, greeklaws-2021 (5,692 articles) at 256 dimensions: ${(figures.lsiFitMs / 1000).toFixed(1)} s (first), ` +
      `${(figures.kernelLsiFitMs / 1000).toFixed(2)} s (median of ${quick ? 1 : 3}); ` +
      `fold-in ${figures.lsiQueryMs.toFixed(2)} ms/query`,
  );
  const lsiDocs = model.embedDocs();
  const lsiQueries = bench.queries.map((q) => model.embedQuery(q.text));
  const lsiIndex = new ExactIndex(lsiDocs);
  const sameLsi = sameTops(plainSearch(lsiDocs, lsiQueries, 100), lsiIndex.search(lsiQueries, 100));
  const lsiSearch = timePairs(quick ? 2 : 5, () => plainSearch(lsiDocs, lsiQueries, 100), () => lsiIndex.search(lsiQueries, 100));
  Object.assign(figures, { plainLsiSearchMs: lsiSearch.plainMs, kernelLsiSearchMs: lsiSearch.kernelMs, ratioLsiSearch: lsiSearch.ratio });
  console.log(
    `LSI exact search, 283 queries × 5,692 × 256: plain ${lsiSearch.plainMs.toFixed(0)} ms, kernel ${lsiSearch.kernelMs.toFixed(0)} ms => ` +
      `×${lsiSearch.ratio.toFixed(1)} (median of ${quick ? 2 : 5} alternating pairs; same bits: ${sameLsi})`,
  );

  // 3. Cache hits: every vector already in LanceDB, so the embedder must never be called.
  const tmp = mkdtempSync(path.join(os.tmpdir(), "gbr-dense-bench-"));
  try {
    const store = await openVectorStore(path.join(tmp, "lancedb"));
    const preset: EmbeddingPreset = { name: "bench", provider: "openai", model: "bench", queryTemplate: "{text}", documentTemplate: "{text}" };
    const items = Array.from({ length: 6308 }, (_, i) => ({ id: `D${i}`, text: `article ${i}` }));
    const vectors = randomUnit(6308, 1024, 3);
    let calls = 0;
    const embedder = {
      id: "bench",
      maxBatch: 256,
      endpoint: "local",
      async embed(texts: string[]) {
        calls++;
        return { vectors: texts.map((t) => vectors[Number(t.split(" ")[1])]), tokens: 0 };
      },
    };
    t0 = performance.now();
    await embedItems(items, "document", preset, embedder, store, { concurrency: 1 });
    figures.cacheFillMs = performance.now() - t0;
    const before = calls;
    const hits: number[] = [];
    for (let r = 0; r < reps; r++) {
      t0 = performance.now();
      await embedItems(items, "document", preset, embedder, store);
      hits.push(performance.now() - t0);
    }
    figures.cacheHitMs = median(hits);
    console.log(
      `cache: storing 6,308 × 1,024 vectors in 25 batches ${figures.cacheFillMs.toFixed(0)} ms; all-hit lookup ${figures.cacheHitMs.toFixed(0)} ms ` +
        `(${((figures.cacheHitMs * 1000) / 6308).toFixed(1)} µs per article), provider calls on hits: ${calls - before}`,
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  if (jsonOut) writeFileSync(jsonOut, JSON.stringify(figures, null, 2) + "\n");
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
