import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { costTable, loadPrices, type PriceTable } from "../../../lib/eval/cost";
import { zeroWork } from "../../../lib/eval/run-cost";

const prices: PriceTable = { llm: { m: { input: 1, output: 4 }, default: { input: 2, output: 2 } }, embedding: { e: 0.5, default: 0.1 } };

test("cost per query and one-time corpus cost, computed by hand", () => {
  const [row] = costTable(
    [
      {
        method: "x",
        queries: 10,
        cost: {
          online: { ...zeroWork(), llmCalls: 20, llmInput: 1_000_000, llmOutput: 500_000, embeddingCalls: 10, embeddingTokens: 2_000_000 },
          corpus: { ...zeroWork(), embeddingCalls: 3, embeddingTokens: 4_000_000, embeddingTokensEstimated: 1_000_000 },
          llmModel: "m",
          embeddingModel: "e",
        },
        seconds: 50,
        corpusSeconds: 120,
      },
    ],
    prices,
  );
  assert.equal(row.callsPerQuery, 3);
  assert.equal(row.llmTokensPerQuery, 150_000);
  assert.equal(row.embeddingTokensPerQuery, 200_000);
  assert.equal(row.embeddingTokensSource, "mixed");
  assert.equal(row.secondsPerQuery, 5);
  assert.ok(Math.abs(row.costPerQuery - (1 * 1 + 0.5 * 4 + 2 * 0.5) / 10) < 1e-12);
  // The one-time work stays out of the per-query columns.
  assert.equal(row.oneTimeCalls, 3);
  assert.equal(row.oneTimeTokens, 4_000_000);
  assert.equal(row.oneTimeSeconds, 120);
  assert.ok(Math.abs(row.oneTimeCost - 4 * 0.5) < 1e-12);
});

test("unknown models fall back to the default price; the shipped table loads", () => {
  const [row] = costTable([{ method: "y", queries: 1, cost: { online: { ...zeroWork(), llmCalls: 1, llmInput: 1e6 }, corpus: zeroWork(), llmModel: "other" }, seconds: 1, corpusSeconds: 0 }], prices);
  assert.equal(row.embeddingTokensSource, "");
  assert.equal(row.costPerQuery, 2);
  const shipped = loadPrices();
  assert.ok(shipped.llm.default && shipped.embedding.default !== undefined);
});

test("loadPrices() given no file follows GBR_PRICES, as the notebooks and library users expect", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gbr-prices-"));
  const saved = process.env.GBR_PRICES;
  try {
    const file = path.join(dir, "prices.json");
    writeFileSync(file, JSON.stringify(prices));
    process.env.GBR_PRICES = file;
    assert.deepEqual(loadPrices(), prices);
  } finally {
    if (saved === undefined) delete process.env.GBR_PRICES;
    else process.env.GBR_PRICES = saved;
    rmSync(dir, { recursive: true, force: true });
  }
});
