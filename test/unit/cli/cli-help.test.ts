/**
 * `--help` of every command, sub-command and command group prints help and exits 0 (in-process, through `main`), and
 * the help texts say what the code does: every retriever form `createRetriever` accepts, the concurrency defaults.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { main } from "../../../lib/cli/main";
import { COMMANDS } from "../../../lib/cli/commands";
import { retrieverNames } from "../../../lib/retrievers";
import { BUILTIN_PRESETS } from "../../../lib/dense/presets";
import { BUILTIN_RERANK_PRESETS } from "../../../lib/rerank/presets";
import { FUSION_METHODS } from "../../../lib/fusion/retriever";
import { DEFAULT_CONCURRENCY } from "../../../lib/config";

async function gbr(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const o = { out: "", err: "", stdout: (t: string) => void (o.out += t), stderr: (t: string) => void (o.err += t), stdin: async () => "" };
  const code = await main(argv, o);
  return { code, out: o.out, err: o.err };
}

/** What each `--help` must print first: a group lists its sub-commands, a command its usage. */
const HELP: [string[], RegExp][] = [
  [["data"], /^gbr data: [\s\S]*\n {2}pull {2,}Download[\s\S]*\n {2}stats {2,}Dataset statistics/],
  [["prompts"], /^gbr prompts: [\s\S]*\n {2}pull {2,}Fetch the authors' official/],
  [["replay"], /^gbr replay: [\s\S]*\n {2}export {2,}Write [\s\S]*\n {2}import {2,}Add /],
  [["data", "pull"], /Usage: gbr data pull/],
  [["data", "stats"], /Usage: gbr data stats/],
  [["stem"], /Usage: gbr stem/],
  [["tokenize"], /Usage: gbr tokenize/],
  [["search"], /Usage: gbr search/],
  [["eval"], /Usage: gbr eval/],
  [["reproduce"], /Usage: gbr reproduce/],
  [["prompts", "pull"], /Usage: gbr prompts pull/],
  [["replay", "export"], /Usage: gbr replay export/],
  [["replay", "import"], /Usage: gbr replay import/],
  [["replay", "merge"], /Usage: gbr replay import/],
  [["compare"], /Usage: gbr compare/],
  [["repro"], /Usage: gbr repro/],
  [["errors"], /Usage: gbr errors/],
  [["figures"], /Usage: gbr figures/],
  [["report"], /Usage: gbr report/],
];

test("the table covers every command and every group", () => {
  const words = Object.keys(COMMANDS);
  const groups = [...new Set(words.filter((w) => w.includes(" ")).map((w) => w.split(" ")[0]))];
  assert.deepEqual(new Set(HELP.map(([argv]) => argv.join(" "))), new Set([...words, ...groups]));
});

for (const [argv, expected] of HELP) {
  test(`gbr ${argv.join(" ")} --help, -h and gbr help ${argv.join(" ")}: help on stdout, exit 0`, async () => {
    for (const form of [[...argv, "--help"], [...argv, "-h"], ["help", ...argv]]) {
      const r = await gbr(form);
      assert.equal(r.code, 0, `gbr ${form.join(" ")}: ${r.err}`);
      assert.match(r.out, expected, `gbr ${form.join(" ")}`);
      assert.equal(r.err, "", `gbr ${form.join(" ")}`);
    }
  });
}

test("a group alone or with an unknown sub-command is a usage error listing its sub-commands", async () => {
  const bare = await gbr(["data"]);
  assert.equal(bare.code, 2);
  assert.match(bare.err, /gbr data: give a sub-command[\s\S]*\n {2}pull {2,}[\s\S]*\n {2}stats /);
  const typo = await gbr(["replay", "exprt"]);
  assert.equal(typo.code, 2);
  assert.match(typo.err, /unknown command 'replay exprt' \(did you mean 'gbr replay export'\?\)/);
});

test("gbr search --help names every retriever form createRetriever accepts, every preset, reranker and fusion", async () => {
  const { out } = await gbr(["search", "--help"]);
  const help = out.replace(/\s+/g, " ");
  for (const form of retrieverNames()) assert.ok(help.includes(form), `'${form}' in gbr search --help:\n${out}`);
  for (const p of BUILTIN_PRESETS) assert.ok(help.includes(p.name), `dense preset ${p.name}`);
  for (const p of BUILTIN_RERANK_PRESETS) assert.ok(help.includes(p.name), `rerank preset ${p.name}`);
  for (const f of FUSION_METHODS) assert.ok(help.includes(f), `fusion ${f}`);
});

test("the concurrency defaults in --help are the configuration's, per kind", async () => {
  for (const cmd of ["search", "reproduce"]) {
    const help = (await gbr([cmd, "--help"])).out.replace(/\s+/g, " ");
    assert.ok(help.includes(`default chat ${DEFAULT_CONCURRENCY.chat}, embeddings ${DEFAULT_CONCURRENCY.embed}, rerank ${DEFAULT_CONCURRENCY.rerank}`), `${cmd}:\n${help}`);
  }
});
