import { test } from "node:test";
import assert from "node:assert/strict";
import { PAPER_NUMBERS, reproductionTable } from "../../../lib/experiments/paper";
import { experiments } from "../../../lib/experiments/registry";
import type { MetricValues } from "../../../lib/eval/metrics";

test("every paper number names an experiment of the registry", () => {
  for (const p of PAPER_NUMBERS) assert.ok(experiments().some((e) => e.id === p.experiment), p.experiment);
});

test("the reproduction table sets ours next to the paper's, with the difference, the setup and the reason for gaps", () => {
  const mean = { "nDCG@10": 0.5, "nDCG@100": 0.55, "Recall@10": 0.6, "Recall@100": 0.4, "MAP@100": 0.3 } as MetricValues;
  const rows = reproductionTable(
    [
      { id: "bm25-greekstemmer", status: "ok", mean, setup: "BM25 greekstemmer k1 1.5 b 0.75 epsilon 0.25" },
      { id: "react-bm25", status: "skipped", reason: "no chat server configured", setup: "stale" },
    ],
    "hf (257 public queries)",
  );
  const bm25 = rows.find((r) => r.experiment === "bm25-greekstemmer" && r.scope === "paper-283")!;
  assert.equal(bm25.ours, 0.4);
  assert.ok(Math.abs(bm25.diff! - 0.04) < 1e-12);
  const react = rows.find((r) => r.experiment === "react-bm25" && r.metric === "Recall@100")!;
  assert.equal(react.ours, null);
  assert.equal(react.reason, "no chat server configured");
  // The setup is the run's own record, shown only for a run that produced the number.
  assert.equal(bm25.setup, "BM25 greekstemmer k1 1.5 b 0.75 epsilon 0.25");
  assert.equal(react.setup, "");
  assert.equal(rows.find((r) => r.experiment === "dense:qwen3-8b")!.status, "not selected");
});

test("issue 22, item 16: no difference from the paper's number for another query set or a stand-in run", () => {
  const mean = { "nDCG@10": 0.5, "nDCG@100": 0.55, "Recall@10": 0.6, "Recall@100": 0.95, "MAP@100": 0.3 } as MetricValues;
  const demo = reproductionTable([{ id: "bm25-greekstemmer", status: "ok", mean }], "sample (demo set, 26 queries; not comparable)", false);
  const row = demo.find((r) => r.experiment === "bm25-greekstemmer" && r.metric === "Recall@100")!;
  assert.equal(row.ours, 0.95, "ours is still shown");
  assert.equal(row.diff, null, "but no difference: the demo set is not the paper's queries");
  const standIn = reproductionTable([{ id: "bm25-greekstemmer", status: "ok", mean, standIn: true }], "hf (257 public queries)");
  assert.equal(standIn.find((r) => r.experiment === "bm25-greekstemmer")!.diff, null, "a test double's number is no result");
});

test("ER and ΔRI against the paper's means for the pairs it reports (Reform-BM25 over BM25, REACT over Reform-BM25)", () => {
  const withRecall = (r: number) => ({ "nDCG@10": 0.5, "nDCG@100": 0.55, "Recall@10": 0.6, "Recall@100": r, "MAP@100": 0.3 }) as MetricValues;
  const outcomes = [
    { id: "bm25-greekstemmer", status: "ok", mean: withRecall(0.4) },
    { id: "reform:bm25-greekstemmer", status: "ok", mean: withRecall(0.58) },
    { id: "react-bm25", status: "ok", mean: withRecall(0.7) },
  ];
  const rows = reproductionTable(outcomes, "hf (257 public queries)");
  const row = (e: string) => rows.find((r) => r.experiment === e && r.metric === "Recall@100" && r.scope === "paper-283")!;
  // Reform-BM25 over BM25: paper 0.60 − 0.36 = 0.24, ours 0.58 − 0.40 = 0.18: ER 0.75; RI 0.24/0.36 − 0.18/0.40.
  assert.ok(Math.abs(row("reform:bm25-greekstemmer").ER! - 0.75) < 1e-12);
  assert.ok(Math.abs(row("reform:bm25-greekstemmer").DeltaRI! - (2 / 3 - 0.45)) < 1e-12);
  // REACT over Reform-BM25: paper 0.67 − 0.60 = 0.07, ours 0.70 − 0.58 = 0.12: ER 12/7; RI 0.07/0.60 − 0.12/0.58.
  assert.ok(Math.abs(row("react-bm25").ER! - 12 / 7) < 1e-12);
  assert.ok(Math.abs(row("react-bm25").DeltaRI! - (0.07 / 0.6 - 0.12 / 0.58)) < 1e-12);
  // No pair: BM25 itself, and REACT's nDCG@10 (the paper gives no nDCG@10 for Reform-BM25).
  assert.equal(row("bm25-greekstemmer").ER, null);
  assert.equal(rows.find((r) => r.experiment === "react-bm25" && r.metric === "nDCG@10")!.ER, null);
  // Not on the paper's queries, or the baseline not run: none.
  assert.equal(reproductionTable(outcomes, "sample", false).find((r) => r.experiment === "react-bm25" && r.metric === "Recall@100")!.DeltaRI, null);
  assert.equal(reproductionTable(outcomes.slice(1), "hf").find((r) => r.experiment === "reform:bm25-greekstemmer")!.ER, null);
});
