/**
 * Dense benchmark (`npm run bench`, second part). Measures on this machine:
 *   1. exact search: 283 queries over 6,308 unit vectors of 4,096 dimensions (Qwen3-8B's size;
 *      random vectors, which time the same as real ones), against a plain TypeScript loop
 *      timed in the same run on a subset of queries;
 *   2. LSI fit on greeklaws-2021 at 256 dimensions;
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
import { fitLsi } from "../lib/dense/lsi";
import type { EmbeddingPreset } from "../lib/dense/presets";
import { openVectorStore } from "../lib/dense/vector-store";
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

/** The obvious implementation: one scalar dot product per (query, document). */
function naiveSearch(docs: Float32Array[], queries: Float32Array[], k: number): number[][] {
  return queries.map((q) => {
    const scores = docs.map((d) => {
      let s = 0;
      for (let i = 0; i < q.length; i++) s += q[i] * d[i];
      return s;
    });
    return Array.from(scores.keys())
      .sort((a, b) => scores[b] - scores[a] || a - b)
      .slice(0, k);
  });
}

async function main() {
  const reps = quick ? 2 : 4;
  const figures: Record<string, number> = {};

  // 1. Exact search.
  const docs = randomUnit(6308, 4096, 1);
  const queries = randomUnit(283, 4096, 2);
  let t0 = performance.now();
  const index = new ExactIndex(docs, { normalize: false });
  figures.exactBuildMs = performance.now() - t0;
  const times: number[] = [];
  let results: ReturnType<ExactIndex["search"]> = [];
  for (let r = 0; r < reps; r++) {
    t0 = performance.now();
    results = index.search(queries, 100, { normalize: false });
    times.push(performance.now() - t0);
  }
  figures.exactFirstMs = times[0];
  figures.exactMs = median(times.slice(1).length ? times.slice(1) : times);
  const subset = quick ? 5 : 20;
  t0 = performance.now();
  const naive = naiveSearch(docs, queries.slice(0, subset), 100);
  figures.naiveMsPerQuery = (performance.now() - t0) / subset;
  const agree = naive.every((list, q) => list.join() === Array.from(results[q].docs).join());
  console.log(
    `exact search, 283 queries × 6,308 × 4,096: ${figures.exactMs.toFixed(0)} ms (first run ${figures.exactFirstMs.toFixed(0)} ms; ` +
      `loading the index ${figures.exactBuildMs.toFixed(0)} ms) = ${(figures.exactMs / 283).toFixed(2)} ms/query; plain loop ` +
      `${figures.naiveMsPerQuery.toFixed(1)} ms/query (×${((figures.naiveMsPerQuery * 283) / figures.exactMs).toFixed(1)}); ` +
      `same top 100 on the ${subset} compared queries: ${agree}`,
  );

  // 2. LSI fit on greeklaws-2021.
  const dir = path.join(SHARED, "greeklaws-2021");
  const bench = await readBeir(dir, { queriesFile: path.join(dir, "queries-sample.jsonl") });
  const corpus = indexCorpus(bench.docs, greekStemmerTokenizer());
  t0 = performance.now();
  const model = fitLsi(corpus, { dims: 256 });
  figures.lsiFitMs = performance.now() - t0;
  t0 = performance.now();
  for (const q of bench.queries) model.embedQuery(q.text);
  figures.lsiQueryMs = (performance.now() - t0) / bench.queries.length;
  console.log(`LSI fit, greeklaws-2021 (5,692 articles) at 256 dimensions: ${(figures.lsiFitMs / 1000).toFixed(1)} s; fold-in ${figures.lsiQueryMs.toFixed(2)} ms/query`);

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
