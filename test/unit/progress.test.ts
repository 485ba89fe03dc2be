import { test } from "node:test";
import assert from "node:assert/strict";
import { duration, progressLine, workSince } from "../../lib/util/progress-line";
import { recordUsage, usageSnapshot } from "../../lib/util/usage-meter";
import { progressReporter } from "../../lib/cli/progress";

const none = { chatCalls: 0, chatTokens: 0, embedCalls: 0, embedTokens: 0, rerankCalls: 0, rerankPairs: 0 };

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
  const before = usageSnapshot();
  recordUsage("chat", 100);
  recordUsage("chat", 50);
  recordUsage("rerank", 32);
  assert.deepEqual(workSince(before, usageSnapshot()), { ...none, chatCalls: 2, chatTokens: 150, rerankCalls: 1, rerankPairs: 32 });
  let t = 0;
  const lines: string[] = [];
  const report = progressReporter({ stdout: () => {}, stderr: (s) => lines.push(s), stdin: async () => "" }, { tty: false, intervalMs: 1000, now: () => t });
  report("reform", 1, 4); // the step begins: nothing to say yet
  t = 500;
  recordUsage("chat", 10);
  report("reform", 2, 4); // too soon: not printed
  t = 1500;
  report("reform", 3, 4); // printed
  t = 1600;
  report("reform", 4, 4); // the end: always printed
  assert.equal(lines.length, 2);
  assert.match(lines[0], /^reform 3\/4 \(75%\) · 2\.0\/s · 1 chat call \(1\/s\), 10 tokens \(7\/s\) · 2 s, about 1 s left\n$/);
  assert.match(lines[1], /^reform 4\/4 \(100%\)/);
});
