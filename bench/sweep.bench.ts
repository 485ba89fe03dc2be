/**
 * BM25 tuning-sweep benchmark: the paper's 192 (k1, b) settings, positive-only top 100, five
 * metrics per setting, on greeklaws-2021 with
 *   S. the 283 sample queries (a few words each), and
 *   L. the 283 long queries (~300 tokens, shaped like GreekBarRetrieval's facts + question).
 * Each is timed in the same process against a baseline: the direct way, one `withParams`
 * scorer per setting and a plain `bm25Search` over all queries (timed on a spread of settings
 * and scaled to 192, since in full it takes about a minute on the long queries). The rankings
 * of both are identical (test/unit/sparse/sweep.test.ts checks it); only the time differs. Also
 * printed: Recall@100 of the default (1.5, 0.75), of the oracle best, and the 5-fold
 * cross-validated estimate.
 *
 * Run: node --expose-gc --import tsx bench/sweep.bench.ts [--quick] [--json FILE]
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { readBeir } from "../lib/data/beir";
import { evaluate } from "../lib/eval/metrics";
import { bm25Search, indexCorpus, type IndexedCorpus } from "../lib/sparse/bm25-retriever";
import { SWEEP_B, SWEEP_K1 } from "../lib/sparse/sweep";
import { bm25Sweep } from "../lib/experiments/tuning";
import { crossValidatedTuning } from "../lib/eval/cross-validation";
import { greekStemmerTokenizer } from "../lib/text/tokenizers";
import type { Benchmark } from "../lib/types";

const ROOT = path.resolve(__dirname, "..");
const DIR = path.resolve(ROOT, "..", "shared", "data", "greeklaws-2021");
const args = process.argv.slice(2);
const quick = args.includes("--quick");
const jsonOut = args.includes("--json") ? args[args.indexOf("--json") + 1] : undefined;

const gc = () => (globalThis as { gc?: () => void }).gc?.();
const cpuMs = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1000;

interface Figures {
  queries: number;
  /** first full sweep in this process (V8 not warmed up) */
  coldMs: number;
  /** median of the timed repetitions */
  ms: number;
  cpuMs: number;
  msPerSetting: number;
  baselineMsPerSetting: number;
  baselineSettingsTimed: number;
  baselineEstimateMs: number;
  speedup: number;
  recall100: { default: number; oracle: number; oracleK1: number; oracleB: number; cv: number };
}

function measure(label: string, corpus: IndexedCorpus, bench: Benchmark, reps: number, baselineSettings: number): Figures {
  gc();
  const t0 = performance.now();
  let sweep = bm25Sweep(corpus, bench.queries, bench.qrels);
  const coldMs = performance.now() - t0;
  const times: number[] = [];
  const cpus: number[] = [];
  for (let r = 0; r < reps; r++) {
    gc();
    const c0 = process.cpuUsage();
    const t = performance.now();
    sweep = bm25Sweep(corpus, bench.queries, bench.qrels);
    times.push(performance.now() - t);
    cpus.push(cpuMs(process.cpuUsage(c0)));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  const ms = reps > 0 ? median(times) : coldMs;

  // Baseline: settings spread over the grid, each a fresh scorer and a full query batch + evaluation.
  const all = SWEEP_K1.flatMap((k1) => SWEEP_B.map((b) => ({ k1, b })));
  const step = Math.max(1, Math.floor(all.length / baselineSettings));
  const picked = all.filter((_, i) => i % step === 0);
  gc();
  const tb = performance.now();
  for (const { k1, b } of picked) {
    const run = bm25Search(corpus, corpus.index.withParams({ k1, b, epsilon: 0.25 }), bench.queries, 100, { positiveOnly: true });
    evaluate(run.rankings, bench.qrels);
  }
  const baselineMsPerSetting = (performance.now() - tb) / picked.length;

  const cv = crossValidatedTuning(sweep, sweep.queryIds, { folds: 5, seed: 42 });
  const f: Figures = {
    queries: bench.queries.length,
    coldMs,
    ms,
    cpuMs: reps > 0 ? median(cpus) : Number.NaN,
    msPerSetting: ms / sweep.grid.length,
    baselineMsPerSetting,
    baselineSettingsTimed: picked.length,
    baselineEstimateMs: baselineMsPerSetting * sweep.grid.length,
    speedup: (baselineMsPerSetting * sweep.grid.length) / ms,
    recall100: {
      default: sweep.default.value,
      oracle: sweep.best.value,
      oracleK1: sweep.best.k1,
      oracleB: sweep.best.b,
      cv: cv.mean["Recall@100"],
    },
  };
  const r = (x: number) => x.toFixed(4);
  console.log(
    `${label.padEnd(30)} 192 settings × ${f.queries} queries: ${(f.ms / 1000).toFixed(2)} s (cold ${(f.coldMs / 1000).toFixed(2)} s, ` +
      `${f.msPerSetting.toFixed(1)} ms/setting) | direct ${(f.baselineEstimateMs / 1000).toFixed(1)} s ` +
      `(${f.baselineMsPerSetting.toFixed(0)} ms/setting over ${f.baselineSettingsTimed} settings) => ×${f.speedup.toFixed(1)}\n` +
      `${"".padEnd(30)} Recall@100: default ${r(f.recall100.default)}, oracle best (${f.recall100.oracleK1}, ${f.recall100.oracleB}) ` +
      `${r(f.recall100.oracle)} (${f.recall100.oracle >= f.recall100.default ? "+" : ""}${r(f.recall100.oracle - f.recall100.default)}), ` +
      `5-fold CV ${r(f.recall100.cv)} (${f.recall100.cv >= f.recall100.default ? "+" : ""}${r(f.recall100.cv - f.recall100.default)})`,
  );
  return f;
}

async function main() {
  const reps = quick ? 1 : 3;
  const sample = await readBeir(DIR, { queriesFile: path.join(DIR, "queries-sample.jsonl") });
  const long = await readBeir(DIR, { queriesFile: path.join(DIR, "queries-long.jsonl") });
  const corpus = indexCorpus(sample.docs, greekStemmerTokenizer());
  console.log(
    `node ${process.version}; greeklaws-2021 (${corpus.index.docCount} articles, ${corpus.index.postingCount} postings); ` +
      `each workload: one cold sweep, then ${reps} timed (median shown); the corpus is indexed once beforehand\n`,
  );
  const S = measure("S sample queries", corpus, sample, reps, quick ? 6 : 16);
  const L = measure("L long queries", corpus, long, reps, quick ? 3 : 8);
  const peakMb = process.resourceUsage().maxRSS / 1024;
  console.log(`peak RSS ${peakMb.toFixed(0)} MB`);
  if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ sample: S, long: L, peakMb }, null, 2) + "\n");
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
