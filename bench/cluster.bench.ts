/**
 * Throughput of the per-question LLM methods against a model server that takes a fixed time per
 * request (the OpenAI-compatible double with a latency), at 1, 4, 16 and 64 requests in flight:
 * REACT-BM25 (rounds in order within a question, questions side by side) and reformulation. The
 * baseline is concurrency 1, measured in the same run. With several servers (`--endpoints 2`),
 * the same work spread over that many doubles, each taking the same latency.
 *
 * What it shows is the client's side: how many calls a second gbr can keep going, and that the
 * runs are the same at every concurrency (checked). A real server's throughput also depends on
 * its batching; see docs/llm.md for choosing the concurrency.
 *
 * Run: node --import tsx bench/cluster.bench.ts [--latency MS] [--questions N] [--endpoints K] [--json FILE]
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startOpenAIDouble, type OpenAIDouble } from "../test/fakes/openai-server";
import { scriptedModel } from "../test/fakes/scripted-model";

const args = process.argv.slice(2);
const opt = (name: string, def: number): number => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : def);
const latency = opt("--latency", 100);
const questions = opt("--questions", 64);
const endpoints = opt("--endpoints", 1);
const jsonOut = args.includes("--json") ? args[args.indexOf("--json") + 1] : undefined;
const LEVELS = [1, 4, 16, 64];

interface Row {
  method: string;
  concurrency: number;
  calls: number;
  seconds: number;
  callsPerSecond: number;
  speedup: number;
  sameRun: boolean;
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "gbr-cluster-bench-"));
  const doubles: OpenAIDouble[] = [];
  for (let i = 0; i < endpoints; i++) {
    const d = await startOpenAIDouble({ delayMs: latency });
    d.chat(scriptedModel);
    doubles.push(d);
  }
  process.env.GBR_DATA_DIR = path.join(tmp, "data");
  process.env.GBR_CHAT_BASE_URL = doubles.map((d) => `${d.url}/v1`).join(",");
  process.env.GBR_CHAT_MODEL = "openai/gpt-oss-120b";
  const { loadBenchmark, createRetriever } = await import("../lib/index.js");
  const { benchmark: sample } = await loadBenchmark("sample");
  const queries = Array.from({ length: questions }, (_, i) => ({ id: `q${String(i).padStart(3, "0")}`, text: sample.queries[i % sample.queries.length].text }));
  const bench = { ...sample, queries };
  const calls = () => doubles.reduce((n, d) => n + d.count("chat/completions"), 0);

  const rows: Row[] = [];
  for (const method of ["react-bm25", "reform:bm25-greekstemmer"]) {
    let base: { seconds: number; key: string } | undefined;
    for (const n of LEVELS) {
      process.env.GBR_CHAT_CONCURRENCY = String(n);
      // Each level starts from nothing: its own work folder, no replay cache.
      const r = await createRetriever(method, bench, { rounds: 2 }, { replay: "off", workDir: path.join(tmp, `work-${method.replace(/\W+/g, "_")}-${n}`), traceDir: path.join(tmp, `traces-${n}`) });
      const before = calls();
      const t0 = performance.now();
      const run = await r.retrieve(queries, 100);
      const seconds = (performance.now() - t0) / 1000;
      const made = calls() - before;
      const key = JSON.stringify([...run.rankings]);
      base ??= { seconds, key };
      rows.push({ method, concurrency: n, calls: made, seconds, callsPerSecond: made / seconds, speedup: base.seconds / seconds, sameRun: key === base.key });
      process.stdout.write(
        `${method.padEnd(26)} ${String(n).padStart(2)} in flight per endpoint: ${made} calls in ${seconds.toFixed(2)} s = ${(made / seconds).toFixed(1)} calls/s, ×${(base.seconds / seconds).toFixed(1)} of concurrency 1${key === base.key ? "" : "  (A DIFFERENT RUN)"}\n`,
      );
    }
  }
  process.stdout.write(`(${questions} questions, REACT 2 rounds, ${endpoints} endpoint(s) answering in ${latency} ms each)\n`);
  if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ latencyMs: latency, questions, endpoints, rows }, null, 2) + "\n");
  await Promise.allSettled(doubles.map((d) => d.close()));
  rmSync(tmp, { recursive: true, force: true });
  if (rows.some((r) => !r.sameRun)) process.exitCode = 1;
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
