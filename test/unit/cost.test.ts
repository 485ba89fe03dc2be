import { test } from "node:test";
import assert from "node:assert/strict";
import { costTable, loadPrices, type PriceTable } from "../../lib/eval/cost";

const prices: PriceTable = { llm: { m: { input: 1, output: 4 }, default: { input: 2, output: 2 } }, embedding: { e: 0.5, default: 0.1 } };

test("cost per query and one-time corpus cost, computed by hand", () => {
  const [row] = costTable(
    [{ method: "x", queries: 10, llm: { calls: 20, input: 1_000_000, output: 500_000, model: "m" }, embedding: { calls: 10, tokens: 2_000_000, model: "e" }, seconds: 50, corpus: { embeddingTokens: 4_000_000 } }],
    prices,
  );
  assert.equal(row.callsPerQuery, 3);
  assert.equal(row.llmTokensPerQuery, 150_000);
  assert.equal(row.embeddingTokensPerQuery, 200_000);
  assert.equal(row.secondsPerQuery, 5);
  assert.ok(Math.abs(row.costPerQuery - (1 * 1 + 0.5 * 4 + 2 * 0.5) / 10) < 1e-12);
  assert.ok(Math.abs(row.oneTimeCost - 4 * 0.5) < 1e-12);
});

test("unknown models fall back to the default price; the shipped table loads", () => {
  const [row] = costTable([{ method: "y", queries: 1, llm: { calls: 1, input: 1e6, output: 0, model: "other" }, embedding: { calls: 0, tokens: 0 }, seconds: 1 }], prices);
  assert.equal(row.costPerQuery, 2);
  const shipped = loadPrices();
  assert.ok(shipped.llm.default && shipped.embedding.default !== undefined);
});
