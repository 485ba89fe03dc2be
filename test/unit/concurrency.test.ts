import { test } from "node:test";
import assert from "node:assert/strict";
import { concurrencyFor, DEFAULT_CONCURRENCY } from "../../lib/util/concurrency";

test("per kind, then GBR_CONCURRENCY, then the kind's default; a bad value names its variable", () => {
  assert.equal(concurrencyFor("chat", {}), DEFAULT_CONCURRENCY.chat);
  assert.equal(concurrencyFor("embed", {}), 2);
  assert.equal(concurrencyFor("rerank", { GBR_CONCURRENCY: "12" }), 12);
  assert.equal(concurrencyFor("chat", { GBR_CONCURRENCY: "12", GBR_CHAT_CONCURRENCY: "3" }), 3);
  assert.equal(concurrencyFor("embed", { GBR_CHAT_CONCURRENCY: "3" }), 2, "another kind's setting does not apply");
  assert.throws(() => concurrencyFor("chat", { GBR_CHAT_CONCURRENCY: "0" }), /GBR_CHAT_CONCURRENCY must be a positive integer .*got '0'/);
  assert.throws(() => concurrencyFor("rerank", { GBR_CONCURRENCY: "lots" }), /GBR_CONCURRENCY must be a positive integer/);
});
