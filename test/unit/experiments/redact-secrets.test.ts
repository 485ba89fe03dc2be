/**
 * A server's error text reaches the run's records (summary.csv, experiments/*.json) and stderr through an
 * experiment's reason: every configured secret is redacted there, whichever client let it through.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { readConfig } from "../../../lib/config";
import { loadBenchmark } from "../../../lib/data/source";
import { runExperiments } from "../../../lib/experiments/run-experiments";
import type { Experiment } from "../../../lib/experiments/experiment";
import { createProviders } from "../../../lib/providers";
import { GbrError } from "../../../lib/util/errors";

const CHAT_KEY = "test-SECRET-chat-29-abcdef";
const HF_TOKEN = "hf_test_SECRET_token_29";

test("an echoed key in a failure or skip reason is redacted in the record and the log", async () => {
  const loaded = await loadBenchmark("sample");
  const providers = createProviders(readConfig({ GBR_CHAT_API_KEY: CHAT_KEY, HF_TOKEN }));
  const echoing = (id: string, unavailable: boolean): Experiment => ({
    id,
    section: "test",
    title: "a server echoing what it was sent",
    needs: [],
    async run() {
      throw new GbrError(`HTTP 404: no route POST /v1/chat/completions?subscription-key=${CHAT_KEY}`, "HTTP", { unavailable, hint: `token ${HF_TOKEN}` });
    },
  });
  const lines: string[] = [];
  const records = await runExperiments(loaded, [echoing("failed", false), echoing("skipped", true)], { log: (m) => lines.push(m), context: { providers } });
  const seen = JSON.stringify(records.map((r) => [r.reason, r.brief])) + lines.join("\n");
  assert.equal(records.length, 2);
  assert.doesNotMatch(seen, /SECRET/);
  assert.match(String(records[0].reason), /subscription-key=\[redacted\]/);
});
