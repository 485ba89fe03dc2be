/**
 * The speed figures, each against the project's bar, steady state (median of repeated runs in
 * one process) and cold (the first run); the two WebAssembly kernels, the only speed machinery
 * left, are timed against their plain twins in bench/dense.bench.ts. The targets are those of
 * the developers' guide (BM25 over the whole benchmark well under a second, the sweep in
 * seconds); issue 13's tighter ones (15,000 q/s, a 3 s sweep, a 6 s reproduce) were reached with
 * worker threads and hand-written loops that issue 20 removed where they gave under 2×.
 *   Q. BM25 queries per second, one thread, greeklaws-2021: the 283 sample queries and the 283
 *      long queries, query analysis included (no target: the batch below is what a user waits for);
 *   B. a batch: all 4,355 queries of greeklaws-2021 (`bm25Search`) (target < 1 s);
 *   S. the tuning sweep, 384 runs: 192 settings × the sample queries and × their keyword form
 *      (each query's distinct words: a stand-in for LLM rewrites) (target < 10 s);
 *   L. the LSI fit (target < 2 s) and its Recall@100 on the sample and long queries (target:
 *      within 0.002 of 0.9611 and 0.4523, the figures on numpy's stream (0.9682 and 0.4558 on 0.8's xoshiro128**));
 *   R. a whole `gbr reproduce` process of everything that runs offline, greeklaws-2021 with the
 *      sample queries (target < 15 s wall, peak RSS < 500 MB), run twice;
 *   C. scaling of the per-query search time with corpus size: greeklaws-2021 (5,692 articles),
 *      2021 + 2022 (11,438), and a corpus ten times 2021 made here (56,920: each article ten
 *      times, ids suffixed).
 *
 * Run: node --import tsx bench/speed.bench.ts [--quick] [--json FILE]   (npm run bench:speed)
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { readBeir } from "../lib/data/beir";
import { evaluate } from "../lib/eval/metrics";
import { bm25Search, indexCorpus } from "../lib/sparse/bm25-retriever";
import { bm25Sweep } from "../lib/experiments/sweep-run";
import { fitLsi } from "../lib/dense/lsi";
import { vectorRetriever } from "../lib/dense/retriever";
import { greekStemmerTokenizer } from "../lib/text/tokenizers";
import type { Benchmark, Query } from "../lib/types";

const ROOT = path.resolve(__dirname, "..");
const SHARED = path.resolve(ROOT, "..", "shared", "data");
const args = process.argv.slice(2);
const quick = args.includes("--quick");
const jsonOut = args.includes("--json") ? args[args.indexOf("--json") + 1] : undefined;
const REPS = quick ? 3 : 7;
const Q_REPS = quick ? 5 : 25;

/**
 * First (cold) and median of the rest (steady) of `reps` timed runs, in ms. No forced garbage
 * collection between runs: a full collection empties the analyzers' word caches, which no
 * steady process sees after every batch (it halved the figures).
 */
async function time<T>(reps: number, fn: () => T | Promise<T>): Promise<{ cold: number; steady: number; value: T }> {
  const times: number[] = [];
  let value!: T;
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    value = await fn();
    times.push(performance.now() - t0);
  }
  const rest = times.slice(1).sort((a, b) => a - b);
  return { cold: times[0], steady: rest.length ? rest[rest.length >> 1] : times[0], value };
}

const verdict = (ok: boolean) => (ok ? "ok" : "MISSED");
const figures: Record<string, unknown> = { node: process.version, reps: REPS, qReps: Q_REPS };

async function main(): Promise<void> {
  const dir2021 = path.join(SHARED, "greeklaws-2021");
  const sample = await readBeir(dir2021, { queriesFile: path.join(dir2021, "queries-sample.jsonl") });
  const long = await readBeir(dir2021, { queriesFile: path.join(dir2021, "queries-long.jsonl") });
  const all = await readBeir(dir2021);
  const corpus = indexCorpus(sample.docs, greekStemmerTokenizer());
  const scorer = corpus.index.withParams();
  console.log(
    `speed: node ${process.version}, one thread; steady = median of the runs after the first (cold): ${Q_REPS - 1} for Q, ${REPS - 1} elsewhere`,
  );

  // Q. one thread
  for (const [name, b] of [["sample", sample], ["long", long]] as const) {
    // A run is 20-70 ms: more of them than elsewhere, so the median is past the JIT's warm-up.
    const t = await time(Q_REPS, () => bm25Search(corpus, scorer, b.queries, 100));
    const qps = (ms: number) => Math.round(b.queries.length / (ms / 1000));
    figures[`qps_${name}`] = { steady: qps(t.steady), cold: qps(t.cold) };
    console.log(`Q ${name.padEnd(6)} ${b.queries.length} queries, one thread: ${qps(t.steady)} q/s steady (cold ${qps(t.cold)})`);
  }

  // B. all queries, analysis included.
  const batch = await time(REPS, () => bm25Search(corpus, scorer, all.queries, 100));
  figures.batch = { queries: all.queries.length, steadyMs: Math.round(batch.steady), coldMs: Math.round(batch.cold), targetMs: 1000 };
  console.log(`B ${all.queries.length} queries, one thread: ${Math.round(batch.steady)} ms steady (cold ${Math.round(batch.cold)} ms); target < 1 s: ${verdict(batch.steady < 1000)}`);

  // S. the sweep, 384 runs
  const keywords: Query[] = sample.queries.map((q) => ({ id: q.id, text: [...new Set(q.text.split(/\s+/))].join(" ") }));
  const sweep = await time(quick ? 2 : 4, () => {
    bm25Sweep(corpus, sample.queries, sample.qrels);
    return bm25Sweep(corpus, keywords, sample.qrels);
  });
  figures.sweep384 = { steadyS: +(sweep.steady / 1000).toFixed(2), coldS: +(sweep.cold / 1000).toFixed(2), targetS: 10 };
  console.log(`S sweep, 2 × 192 settings × 283 queries: ${(sweep.steady / 1000).toFixed(2)} s steady (cold ${(sweep.cold / 1000).toFixed(2)} s); target < 10 s: ${verdict(sweep.steady < 10_000)}`);

  // L. LSI
  const lsi = await time(quick ? 2 : 3, () => fitLsi(corpus, { dims: 256, seed: 42 }));
  const recall = async (b: Benchmark) => {
    const r = vectorRetriever("lsi", b, lsi.value.embedDocs(), async (qs) => qs.map((q) => lsi.value.embedQuery(q.text)));
    return evaluate((await r.retrieve(b.queries, 100)).rankings, b.qrels).mean["Recall@100"];
  };
  const [rs, rl] = [await recall(sample), await recall(long)];
  const qualityOk = Math.abs(rs - 0.9611) <= 0.002 && Math.abs(rl - 0.4523) <= 0.002;
  figures.lsi = {
    steadyS: +(lsi.steady / 1000).toFixed(2),
    coldS: +(lsi.cold / 1000).toFixed(2),
    recall100Sample: +rs.toFixed(4),
    recall100Long: +rl.toFixed(4),
    targetS: 2,
  };
  console.log(
    `L LSI fit (256 dims): ${(lsi.steady / 1000).toFixed(2)} s steady (cold ${(lsi.cold / 1000).toFixed(2)} s); ` +
      `target < 2 s: ${verdict(lsi.steady < 2000)}; Recall@100 sample ${rs.toFixed(4)}, long ${rl.toFixed(4)} (before: 0.9611, 0.4523): ${verdict(qualityOk)}`,
  );

  // R. a whole reproduce, twice
  const tmp = mkdtempSync(path.join(os.tmpdir(), "gbr-bench-speed-"));
  try {
    const hook = path.join(tmp, "maxrss.js");
    // The peak is read from /proc's VmHWM, which starts afresh at exec: getrusage's maxRSS is kept
    // across exec on Linux, so a child forked from this (large) bench process would report the
    // bench's own size as its peak (567 MB where the child alone reached 420).
    writeFileSync(
      hook,
      `process.on("exit", () => { const fs = require("fs"); let kb = process.resourceUsage().maxRSS; ` +
        `try { kb = Number(/VmHWM:\\s+(\\d+)/.exec(fs.readFileSync("/proc/self/status", "utf8"))[1]); } catch {} ` +
        `fs.writeSync(2, "\\nGBR_BENCH_MAXRSS_KB=" + kb + "\\n"); });\n`,
    );
    const runs: { s: number; mb: number }[] = [];
    for (let i = 0; i < 2; i++) {
      const t0 = performance.now();
      const r = spawnSync(process.execPath, ["--require", hook, path.join(ROOT, "bin", "gbr.js"), "reproduce", "--data", dir2021, "--queries", path.join(dir2021, "queries-sample.jsonl"), "--out", path.join(tmp, `out${i}`), "-q"], {
        encoding: "utf8",
        env: { ...process.env, GBR_DATA_DIR: path.join(tmp, "data"), GBR_SPACY_BASE_URL: "http://unreachable.invalid" },
      });
      const s = (performance.now() - t0) / 1000;
      if (r.status !== 0) throw new Error(`gbr reproduce failed (${r.status}):\n${r.stderr.slice(-2000)}`);
      const kb = Number(/GBR_BENCH_MAXRSS_KB=(\d+)/.exec(r.stderr)?.[1] ?? NaN);
      runs.push({ s, mb: kb / 1024 });
    }
    figures.reproduce = { firstS: +runs[0].s.toFixed(2), secondS: +runs[1].s.toFixed(2), peakMb: Math.round(Math.max(...runs.map((r) => r.mb))), targetS: 15, targetMb: 500 };
    console.log(
      `R gbr reproduce (offline experiments, greeklaws-2021 sample queries), whole process: ${runs[0].s.toFixed(2)} s, again ${runs[1].s.toFixed(2)} s; ` +
        `peak RSS ${Math.round(Math.max(...runs.map((r) => r.mb)))} MB; targets < 15 s: ${verdict(Math.min(runs[0].s, runs[1].s) < 15)}, < 500 MB: ${verdict(Math.max(...runs.map((r) => r.mb)) < 500)}`,
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }

  // C. scaling with corpus size
  const dir2022 = path.join(SHARED, "greeklaws-2022");
  const docs2022 = (await readBeir(dir2022, { queriesFile: path.join(dir2022, "queries-sample.jsonl") })).docs;
  const corpora: [string, Benchmark["docs"]][] = [
    ["2021", sample.docs],
    ["2021+2022", [...sample.docs, ...docs2022]],
    ["10 × 2021", Array.from({ length: 10 }, (_, c) => sample.docs.map((d) => ({ id: `${d.id}#${c}`, text: d.text }))).flat()],
  ];
  const scaling: Record<string, unknown>[] = [];
  for (const [name, docs] of corpora) {
    const c = indexCorpus(docs, greekStemmerTokenizer());
    const s = c.index.withParams();
    const t = await time(quick ? 3 : 5, () => bm25Search(c, s, sample.queries, 100));
    const perQuery = (t.steady / sample.queries.length) * 1000;
    scaling.push({ corpus: name, docs: docs.length, postings: c.index.postingCount, usPerQuery: Math.round(perQuery) });
    console.log(`C ${name.padEnd(10)} ${String(docs.length).padStart(6)} articles, ${String(c.index.postingCount).padStart(8)} postings: ${Math.round(perQuery)} µs per sample query`);
  }
  figures.scaling = scaling;
  if (jsonOut) writeFileSync(jsonOut, JSON.stringify(figures, null, 2) + "\n");
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
