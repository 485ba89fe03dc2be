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
