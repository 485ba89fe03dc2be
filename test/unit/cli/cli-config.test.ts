/**
 * The command line reads the environment once, in main, and hands the configuration to the command: no command
 * reads it again, so what main was given is what every command uses.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { main } from "../../../lib/cli/main";
import { REPO } from "../../helpers/shared";

async function gbr(argv: string[], env: Record<string, string | undefined>, stdin = ""): Promise<{ code: number; out: string; err: string }> {
  const o = { out: "", err: "", stdout: (t: string) => void (o.out += t), stderr: (t: string) => void (o.err += t), stdin: async () => stdin };
  const code = await main(argv, o, env);
  return { code, out: o.out, err: o.err };
}

test("readConfig( is called in one file of lib/cli, main.ts", () => {
  const dir = path.join(REPO, "lib", "cli");
  const files = fs.readdirSync(dir).filter((f) => f.endsWith(".ts"));
  assert.ok(files.length > 5, "the scan reads lib/cli's files");
  const readers = files.filter((f) => fs.readFileSync(path.join(dir, f), "utf8").includes("readConfig("));
  assert.deepEqual(readers, ["main.ts"]);
});

test("a command uses the environment main was given: a bad setting there is the command's usage error", async () => {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), "gbr-cli-config-"));
  try {
    const r = await gbr(["search", "--data", "sample", "--k", "1"], { GBR_DATA_DIR: data, GBR_RERANK_API: "nope" });
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /^gbr search: GBR_RERANK_API must be "rerank" or "tei", got 'nope'\n$/);
    assert.equal(r.out, "");
    // A command that reads no configuration is not stopped by a variable it never reads.
    const stem = await gbr(["stem"], { GBR_DATA_DIR: data, GBR_RERANK_API: "nope" }, "νόμος\n");
    assert.equal(stem.code, 0, stem.err);
    assert.equal(stem.out, "ΝΟΜ\n");
    // Help needs no configuration: it is printed whatever the environment holds.
    assert.equal((await gbr(["search", "--help"], { GBR_RERANK_API: "nope" })).code, 0);
  } finally {
    fs.rmSync(data, { recursive: true, force: true });
  }
});

test("a command's data folder is the GBR_DATA_DIR of the environment main was given", async () => {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), "gbr-cli-config-"));
  try {
    const file = path.join(data, "answers.jsonl");
    fs.writeFileSync(file, "");
    const r = await gbr(["replay", "import", "--file", file, "-q"], { GBR_DATA_DIR: data });
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, `0 chat answers added to ${path.join(data, "store")} (0 already there)\n`);
  } finally {
    fs.rmSync(data, { recursive: true, force: true });
  }
});

test("gbr tokenize fetches spaCy's tables from the GBR_SPACY_BASE_URL and data folder main was given", async () => {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), "gbr-cli-config-"));
  try {
    // Nothing listens on port 9: the fetch fails, and its message names where it was sent.
    const r = await gbr(["tokenize", "--tokenizer", "spacy", "-q"], { GBR_DATA_DIR: data, GBR_SPACY_BASE_URL: "http://127.0.0.1:9", GBR_OFFLINE: "1" }, "νόμος\n");
    assert.notEqual(r.code, 0);
    assert.match(r.err, /127\.0\.0\.1:9|spacy/i, r.err);
    assert.match(r.err, new RegExp(data.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")), r.err);
  } finally {
    fs.rmSync(data, { recursive: true, force: true });
  }
});
