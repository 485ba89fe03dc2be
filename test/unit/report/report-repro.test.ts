import { test } from "node:test";
import assert from "node:assert/strict";
import { reproductionSection } from "../../../lib/report/html-sections";
import type { ReportInputs } from "../../../lib/report/report-inputs";
import { rowMarks } from "../../../lib/figures/labels";

test("the report's reproduction table carries ER and ΔRI, with which way they go; a row without them shows –", () => {
  const row = (experiment: string, ER: string, DeltaRI: string) =>
    ({ experiment, metric: "Recall@100", paper: "0.6", scope: "paper-283", ours: "0.58", diff: "-0.02", ER, DeltaRI, status: "ok", dataset: "hf", setup: "", reason: "" });
  const reproduction = [row("reform:bm25-greekstemmer", "0.75", "0.21666666666666667"), row("bm25-greekstemmer", "", "")];
  const inp = { dir: "/out/hf", reproduction, marks: rowMarks([]) } as unknown as ReportInputs;
  const body = reproductionSection(inp).html;
  assert.match(body, /<th[^>]*>ER<\/th>[\s\S]*<th[^>]*>ΔRI<\/th>/);
  assert.match(body, />0\.7500</);
  assert.match(body, />0\.2167</);
  assert.match(body, /ER 1: the paper's improvement reproduced/);
  const last = [...body.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].at(-1)![1];
  assert.ok(!last.includes("reform:") && (last.match(/>–</g) ?? []).length === 2, last);
});
