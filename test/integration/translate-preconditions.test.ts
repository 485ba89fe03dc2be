/**
 * A composed method checks what it needs before its first paid call: `translate:bm25-english` without spaCy's English
 * tables is skipped (unavailable) without translating one article.
 */
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { readConfig } from "../../lib/config";
import { createProviders } from "../../lib/providers";
import { createRetriever } from "../../lib/retrievers";
import type { Benchmark } from "../../lib/types";
import { GbrError, isUnavailable } from "../../lib/util/errors";
import { startOpenAIDouble, type OpenAIDouble } from "../fakes/openai-server";

let tmp = "";
let api: OpenAIDouble;

before(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-translate-pre-"));
  api = await startOpenAIDouble();
});

after(async () => {
  await api.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

const bench: Benchmark = {
  name: "tiny",
  docs: Array.from({ length: 5 }, (_, i) => ({ id: `Ν::${i}`, text: `άρθρο ${i} για τη μίσθωση` })),
  queries: [{ id: "q", text: "μίσθωση" }],
  qrels: new Map([["q", new Set(["Ν::1"])]]),
  meta: new Map(),
};

for (const name of ["translate:bm25-english", "translate:prf:bm25-english"]) {
  test(`${name} without spaCy's English tables is unavailable before any chat call`, async () => {
    const before = api.count("chat/completions");
    const providers = createProviders(readConfig({ GBR_CHAT_BASE_URL: `${api.url}/v1`, GBR_CHAT_MODEL: "m", GBR_DATA_DIR: path.join(tmp, "data") }));
    const loadSpacyLexicon = async (lang: string) => {
      throw new GbrError(`spaCy ${lang}: tables are neither cached nor fetched (offline)`, "OFFLINE", { unavailable: true });
    };
    await assert.rejects(
      createRetriever(name, bench, {}, { providers, replay: "off", workDir: path.join(tmp, "work"), loadSpacyLexicon: loadSpacyLexicon as never }),
      (err: unknown) => isUnavailable(err) && /spaCy en/.test((err as Error).message),
    );
    assert.equal(api.count("chat/completions") - before, 0, "no article was translated for a method that cannot run");
  });
}
