import { test } from "node:test";
import assert from "node:assert/strict";
import { duration, progressLine, workSince } from "../../../lib/util/progress-line";
import { UsageMeter } from "../../../lib/providers/usage-meter";
import { progressReporter } from "../../../lib/cli/progress";

const none = { chatCalls: 0, chatTokens: 0, embedCalls: 0, embedTokens: 0, rerankCalls: 0, rerankPairs: 0, cost: 0 };

test("a progress line: done/total, rate, calls and tokens per second, elapsed and time left", () => {
  assert.equal(duration(42), "42 s");
  assert.equal(duration(185), "3 min 05 s");
  assert.equal(duration(3720), "1 h 02 min");
  // 120 of 283 in 40 s: 3.0/s, and 163 left at that rate take 54 s.
  assert.equal(
    progressLine("react-bm25", 120, 283, 40, { ...none, chatCalls: 2400, chatTokens: 3_400_000 }),
    "react-bm25 120/283 (42%) · 3.0/s · 2,400 chat calls (60/s), 3.4M tokens (85k/s) · 40 s, about 54 s left",
  );
  assert.equal(progressLine("lsi", 5, 5, 2, none), "lsi 5/5 (100%) · 2.5/s · 2 s");
});

test("the usage meter counts what the clients record; the reporter throttles and shows the work since its step began", () => {
  const meter = new UsageMeter();
  const before = meter.snapshot();
  meter.record("chat", 100);
  meter.record("chat", 50);
  meter.record("rerank", 32);
  assert.deepEqual(workSince(before, meter.snapshot()), { ...none, chatCalls: 2, chatTokens: 150, rerankCalls: 1, rerankPairs: 32 });
  let t = 0;
  const lines: string[] = [];
  const report = progressReporter({ stdout: () => {}, stderr: (s) => lines.push(s), stdin: async () => "" }, { tty: false, intervalMs: 1000, now: () => t, meter });
  report("reform", 1, 4); // the step begins: nothing to say yet
  t = 500;
  meter.record("chat", 10);
  report("reform", 2, 4); // too soon: not printed
  t = 1500;
  report("reform", 3, 4); // printed
  t = 1600;
  report("reform", 4, 4); // the end: always printed
  assert.equal(lines.length, 2);
  assert.match(lines[0], /^reform 3\/4 \(75%\) · 2\.0\/s · 1 chat call \(1\/s\), 10 tokens \(7\/s\) · 2 s, about 1 s left\n$/);
  assert.match(lines[1], /^reform 4\/4 \(100%\)/);
});

test("with prices installed the meter adds up the cost, the line shows it, and a finished step is recorded even when quiet", () => {
  const priced = new UsageMeter((kind, u) => (kind === "chat" ? (u.input * 0.15 + u.output * 0.6) / 1e6 : 0));
  const before = priced.snapshot();
  priced.record("chat", 1_500_000, { model: "openai/gpt-oss-120b", input: 1_000_000, output: 500_000 }); // 0.15 + 0.30
  priced.record("embed", 10, { input: 10, output: 0 });
  const work = workSince(before, priced.snapshot());
  assert.ok(Math.abs(work.cost - 0.45) < 1e-12, String(work.cost));
  assert.match(progressLine("react-bm25", 1, 2, 10, work), / · USD 0\.45 so far · /);
  assert.doesNotMatch(progressLine("lsi", 1, 2, 1, none), /USD/);
  assert.equal(new UsageMeter().snapshot().cost, 0, "another run's meter starts from nothing");
  const meter = new UsageMeter();
  const lines: string[] = [];
  let t = 0;
  const report = progressReporter({ stdout: () => {}, stderr: (s) => lines.push(s), stdin: async () => "" }, { tty: false, quiet: true, now: () => t, meter });
  report("qwen3-8b documents", 0, 3);
  t = 2000;
  meter.record("embed", 300);
  report("qwen3-8b documents", 3, 3);
  assert.deepEqual(lines, [], "quiet: nothing printed");
  const step = meter.steps();
  assert.equal(step.length, 1);
  assert.equal(step[0].label, "qwen3-8b documents");
  assert.equal(step[0].seconds, 2);
  assert.equal(step[0].perSecond, 1.5);
  assert.equal(step[0].work.embedCalls, 1);
  assert.equal(step[0].work.embedTokens, 300);
});

test("a step that ends early prints nothing (a log: within its first interval; a terminal: its first second)", () => {
  const meter = new UsageMeter();
  const lines: string[] = [];
  let t = 0;
  const io = { stdout: () => {}, stderr: (s: string) => lines.push(s), stdin: async () => "" };
  const log = progressReporter(io, { tty: false, intervalMs: 5000, now: () => t, meter });
  log("BM25 sweep (192 settings), queries", 1, 26);
  t = 4900;
  log("BM25 sweep (192 settings), queries", 26, 26);
  assert.deepEqual(lines, [], "a 4.9 s step adds no line to a log");
  assert.equal(meter.steps().length, 1, "it is still recorded for metadata.json");
  log("lsi", 1, 3);
  t += 5200;
  log("lsi", 2, 3);
  t += 100;
  log("lsi", 3, 3);
  assert.equal(lines.length, 2);
  assert.match(lines[0], /^lsi 2\/3 \(66%\)/);
  assert.match(lines[1], /^lsi 3\/3 \(100%\)/);
  lines.length = 0;
  const tty = progressReporter(io, { tty: true, now: () => t, meter });
  tty("sweep", 1, 2);
  t += 200;
  tty("sweep", 2, 2);
  assert.deepEqual(lines, []);
  tty("embed", 1, 2);
  t += 1500;
  tty("embed", 2, 2);
  assert.equal(lines.length, 1);
  assert.match(lines[0], /^\r\x1b\[Kembed 2\/2 \(100%\).*\n$/);
});

test("issue 29: a step's label from outside (a registered retriever's name) is printed with its controls shown", () => {
  let t = 0;
  const lines: string[] = [];
  const report = progressReporter({ stdout: () => {}, stderr: (s) => lines.push(s), stdin: async () => "" }, { tty: true, intervalMs: 10, now: () => t, meter: new UsageMeter() });
  report("my\x1b]0;x\x07\r\nFAKE", 0, 2);
  t = 2000;
  report("my\x1b]0;x\x07\r\nFAKE", 2, 2);
  // The terminal's own redraw (CR, erase line) stays; the label's controls do not act.
  assert.deepEqual(lines, ["\r\x1b[Kmy\\x1b]0;x\\x07\\x0d\\x0aFAKE 2/2 (100%) · 1.0/s · 2 s\n"]);
});
