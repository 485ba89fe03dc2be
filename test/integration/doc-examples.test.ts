/**
 * Every example in the docs runs (issue 23, item 2). Each fenced block of README.md and docs/*.md
 * tagged `ts`/`typescript` or `bash`/`sh`/`shell` runs here exactly as written, or says on its first
 * line, as a comment (`#`, or `//` in TypeScript), why not, in one of two forms (MARKERS below,
 * described for writers in docs/development.md, "Examples in the docs"):
 *
 *   # needs a real server: vLLM serving openai/gpt-oss-120b (not run by the tests)
 *   # run by test/integration/package.test.ts
 *
 * The second names a file of the repository that runs the same commands; it must exist and
 * contain every command word of the block. Every other block must carry a tag saying what it is
 * (`json`, `python`, `latex`, `text` for a listing): an untagged block fails, and so does a
 * listing with a line that looks like a command, so no example hides untagged.
 *
 * How a block runs:
 * - Shell: `bash -euo pipefail` in a temporary folder laid out like a checkout (the README's
 *   commands run from the repository root): root/repo with bin/, config/, data/sample/ and
 *   node_modules/ linked from this repository, and root/shared linked to the real ../shared, so
 *   `../shared/data/…` and `data/sample/…` resolve while runs/ and outputs/ are written in the
 *   temporary folder. `npx gbr` finds root/repo/node_modules/.bin/gbr (this repository's bin) and
 *   bare `gbr` a link on PATH. npm is offline with an empty cache of its own and an unreachable
 *   registry, and each block is checked to have installed nothing into npx's cache: npx never
 *   reached for the network. The blocks of one page run in order in one checkout, as a reader
 *   follows the page.
 * - TypeScript: each README block as an .mts file, in order, in one temporary project where
 *   `greekbar-retrieval` is a link to this repository (so its `exports`, build/lib, are what is
 *   imported), run by node with tsx; a later block may read what an earlier one wrote. They are
 *   type-checked too (strict, node16 resolution), as a user's editor would.
 * - The outside world: no provider variable of the developer's environment; the Hub, spaCy's
 *   tables and GitHub unreachable (`gbr reproduce` without --data falls back to the demo set), except
 *   for the local doubles a block needs, chosen from what it says: a block using
 *   `--prompts official` or `--official` gets the official prompts pulled first (`gbr prompts
 *   pull` from a raw-file double serving the synthetic notebook, test/fakes/official-notebook.ts);
 *   a `localhost:PORT` in a block gets an OpenAI-compatible double on that port; a command
 *   reading `--data hf` gets a Hub double serving the demo set as the benchmark (a source named never falls back).
 */
import { spawn, spawnSync } from "node:child_process";
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { builtinPresets } from "../../lib/dense/presets";
import { staleSources } from "../../lib/paths";
import { startHubDouble, type HubDouble } from "../fakes/hub-server";
import { OFFICIAL_NOTEBOOK_URL_PATH, SYNTHETIC_NOTEBOOK } from "../fakes/official-notebook";
import { startOpenAIDouble, type OpenAIDouble } from "../fakes/openai-server";
import { startStaticServer, type StaticServer } from "../fakes/static-server";
import { CLEARED } from "../helpers/gbr";
import { REPO, requireShared } from "../helpers/shared";

// ---------------------------------------------------------------------------------------------
// The pages, their blocks, and the markers.

/** The pages whose examples must run. */
const PAGES = ["README.md", ...readdirSync(path.join(REPO, "docs")).filter((f) => f.endsWith(".md")).sort().map((f) => `docs/${f}`)];

const TS = new Set(["ts", "typescript"]);
const SHELL = new Set(["bash", "sh", "shell"]);
/** Tags of blocks that are not run: data, other languages, listings. */
const NOT_RUN = new Set(["json", "python", "latex", "text"]);

/**
 * The two ways a block says it is not run here, on its first line after the comment sign. The one
 * definition; docs/development.md describes them for writers.
 */
const MARKERS = {
  /** Needs something no local double can stand in for, said in the words that follow. */
  server: /^needs a real server: \S/,
  /** Run by the named file of the repository, which must exist and hold the block's commands. */
  runBy: /^run by (\S+)/,
};

interface Block {
  file: string;
  /** Line of the opening fence, from 1. */
  line: number;
  lang: string;
  code: string;
}

type Marker = { kind: "server"; text: string } | { kind: "runBy"; file: string; text: string };

/** The fenced blocks of a Markdown page, indented ones (in a list item) included, with their indentation removed. */
function fencedBlocks(file: string, text: string): Block[] {
  const lines = text.split("\n");
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^( *)(`{3,}|~{3,})\s*([^\s`~]*)/.exec(lines[i]!);
    if (!open) continue;
    const [, indent = "", fence = "", lang = ""] = open;
    const close = new RegExp(`^ *${fence[0] === "`" ? "`" : "~"}{${fence.length},}\\s*$`);
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !close.test(lines[j]!); j++) body.push(lines[j]!.startsWith(indent) ? lines[j]!.slice(indent.length) : lines[j]!.trimStart());
    if (j === lines.length) throw new Error(`${file}:${i + 1}: a fenced block that is never closed`);
    blocks.push({ file, line: i + 1, lang: lang.toLowerCase(), code: body.join("\n") + "\n" });
    i = j;
  }
  return blocks;
}

const commentSign = (b: Block) => (TS.has(b.lang) ? "//" : "#");
const where = (b: Block) => `${b.file}:${b.line}`;

function markerOf(b: Block): Marker | undefined {
  const first = b.code.split("\n")[0]!.trim();
  if (!first.startsWith(commentSign(b))) return undefined;
  const text = first.slice(commentSign(b).length).trim();
  if (MARKERS.server.test(text)) return { kind: "server", text };
  const runBy = MARKERS.runBy.exec(text);
  return runBy ? { kind: "runBy", file: runBy[1]!, text } : undefined;
}

/**
 * The words of a block's commands, for a `run by` file to hold: programs and subcommands, without
 * options, paths, assignments, quoted text and comments (`npm install --save-dev tsx`: npm, install, tsx).
 */
function commandWords(code: string): string[] {
  const words = new Set<string>();
  for (const raw of code.split("\n")) {
    const line = raw.replace(/(^|\s)#.*$/, "").trim();
    for (const command of line.split(/&&|\|\||[|;]/)) {
      for (const w of command.trim().split(/\s+/)) if (w && !w.startsWith("-") && !/[/=$"'`\\]/.test(w)) words.add(w);
    }
  }
  return [...words];
}

const ALL: Block[] = PAGES.flatMap((f) => fencedBlocks(f, readFileSync(path.join(REPO, f), "utf8")));
const runnable = (b: Block) => (TS.has(b.lang) || SHELL.has(b.lang)) && markerOf(b) === undefined;

// ---------------------------------------------------------------------------------------------
// The temporary world the blocks run in.

const UNREACHABLE = "http://unreachable.invalid";
const SHARED = requireShared();
let tmp = "";
let raw: StaticServer;
let hub: HubDouble | undefined;
let statusBefore = "";

/** `git status` of the repository, ignored files included: the examples must not change it. */
const gitStatus = () => spawnSync("git", ["status", "--porcelain", "--ignored"], { cwd: REPO, encoding: "utf8" }).stdout;

/** The environment of every child: nothing of the developer's providers, npm's or this test runner's own. */
function childEnv(dir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(npm_|GBR_|HF_)/i.test(k) || k === "INIT_CWD" || CLEARED.includes(k) || k.startsWith("NODE_TEST")) continue;
    env[k] = v;
  }
  // `npm test` puts the repository's node_modules/.bin first; a block must find what a reader's shell finds.
  env.PATH = (process.env.PATH ?? "").split(path.delimiter).filter((p) => !path.resolve(p).startsWith(path.join(REPO, "node_modules"))).join(path.delimiter);
  return {
    ...env,
    GBR_DATA_DIR: path.join(dir, "data"),
    XDG_CACHE_HOME: path.join(dir, "xdg"),
    HF_ENDPOINT: UNREACHABLE,
    GBR_SPACY_BASE_URL: UNREACHABLE,
    GBR_GITHUB_RAW_URL: raw.url,
    CI: "true",
    ...extra,
  };
}

interface Checkout {
  dir: string;
  /** root/repo: the blocks' working folder. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  npmCache: string;
  promptsPulled: boolean;
}

/** A folder laid out like a checkout, for one page's shell blocks (see the header). */
function makeCheckout(page: string): Checkout {
  const dir = path.join(tmp, page.replace(/[^\w.-]/g, "_"));
  const cwd = path.join(dir, "root", "repo");
  const modules = path.join(cwd, "node_modules");
  const bins = path.join(modules, ".bin");
  const onPath = path.join(dir, "path");
  for (const d of [path.join(cwd, "data"), bins, onPath]) mkdirSync(d, { recursive: true });
  symlinkSync(SHARED, path.join(dir, "root", "shared"));
  for (const name of ["bin", "config"]) symlinkSync(path.join(REPO, name), path.join(cwd, name));
  // Only the demo set is linked: caches a block might write under data/ stay in the temporary folder.
  symlinkSync(path.join(REPO, "data", "sample"), path.join(cwd, "data", "sample"));
  const repoModules = path.join(REPO, "node_modules");
  for (const name of readdirSync(repoModules)) if (name !== ".bin") symlinkSync(path.join(repoModules, name), path.join(modules, name));
  for (const name of readdirSync(path.join(repoModules, ".bin"))) symlinkSync(realpathSync(path.join(repoModules, ".bin", name)), path.join(bins, name));
  // No package.json: with one naming the bin, npx would install the folder into its cache and run
  // its prepare script (the build) instead of taking node_modules/.bin/gbr, as `npm ci` leaves it here.
  symlinkSync(path.join(REPO, "bin", "gbr.js"), path.join(bins, "gbr"));
  symlinkSync(path.join(REPO, "bin", "gbr.js"), path.join(onPath, "gbr"));
  const npmCache = path.join(dir, "npm-cache");
  const env = childEnv(dir, {
    npm_config_cache: npmCache,
    npm_config_offline: "true",
    npm_config_registry: UNREACHABLE,
    npm_config_update_notifier: "false",
    npm_config_audit: "false",
    npm_config_fund: "false",
  });
  env.PATH = [onPath, env.PATH].join(path.delimiter);
  return { dir, cwd, env, npmCache, promptsPulled: false };
}

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  seconds: number;
}

/** A child process, asynchronously, so that the doubles in this process keep answering. */
function run(cmd: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<Ran> {
  const t0 = performance.now();
  const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, timeout: opts.timeoutMs ?? 600_000, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (out += d));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, out, seconds: (performance.now() - t0) / 1000 }));
  });
}

const tail = (s: string, n = 60) => s.split("\n").slice(-n).join("\n");

/** The demo set served as the benchmark by a Hub double, for commands that read `--data hf` (named, it never falls back). */
async function hubServingTheDemoSet(): Promise<HubDouble> {
  const sample = (f: string) => readFileSync(path.join(REPO, "data", "sample", f), "utf8");
  const qrels = sample("qrels/test.tsv")
    .trim()
    .split("\n")
    .slice(1)
    .map((l) => l.split("\t"))
    .map(([q, d, s]) => JSON.stringify({ "query-id": q, "corpus-id": d, score: Number(s) }))
    .join("\n");
  const configs = { corpus: "corpus.jsonl", queries: "queries.jsonl", qrels: "qrels.jsonl", greekbarbench: "meta.jsonl" };
  const card = ["---", "configs:", ...Object.entries(configs).flatMap(([c, f]) => [`  - config_name: ${c}`, "    data_files:", "      - split: test", `        path: ${f}`]), "---", "# the demo set, served by a local double", ""];
  return startHubDouble({
    readme: card.join("\n"),
    files: { "corpus.jsonl": sample("corpus.jsonl"), "queries.jsonl": sample("queries.jsonl"), "qrels.jsonl": qrels + "\n", "meta.jsonl": sample("meta.jsonl") },
  });
}

/** An OpenAI-compatible double on a port a block names; waits a while for the port if another run holds it. */
async function doubleOnPort(port: number, dims: number): Promise<OpenAIDouble> {
  for (let waited = 0; ; waited++) {
    try {
      return await startOpenAIDouble({ port, dims });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EADDRINUSE" || waited >= 60) throw new Error(`port ${port}, which an example names, is taken: ${String(err)}`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

/** The vector size the double serves: that of the embedding presets the block names (one size, or the double's default). */
function dimsOf(code: string): number {
  const names = new Set([...code.matchAll(/\bdense:([\w.-]+)/g)].map((m) => m[1]));
  const sizes = new Set(builtinPresets("hf").filter((p) => names.has(p.name)).map((p) => p.dims));
  if (sizes.size > 1) throw new Error(`the block names presets of several vector sizes (${[...sizes].join(", ")}); one double serves one`);
  return [...sizes][0] ?? 8;
}

/** What a shell block needs from the local doubles, read from what it says (see the header). */
async function runShellBlock(b: Block, checkout: Checkout): Promise<Ran> {
  const env: NodeJS.ProcessEnv = { ...checkout.env };
  if (/--prompts official|--official\b/.test(b.code) && !checkout.promptsPulled) {
    const pulled = await run(process.execPath, [path.join(REPO, "bin", "gbr.js"), "prompts", "pull"], { cwd: checkout.cwd, env });
    assert.equal(pulled.code, 0, `gbr prompts pull (from the local double, before ${where(b)}):\n${pulled.out}`);
    checkout.promptsPulled = true;
  }
  if (b.code.split("\n").some((l) => /\bgbr\s+data\s+pull\b/.test(l) || (/\bgbr\s/.test(l) && /--data\s+hf\b/.test(l)))) {
    hub ??= await hubServingTheDemoSet();
    env.HF_ENDPOINT = hub.url;
  }
  const ports = [...new Set([...b.code.matchAll(/\b(?:localhost|127\.0\.0\.1):(\d+)/g)].map((m) => Number(m[1])))];
  const doubles: OpenAIDouble[] = [];
  try {
    for (const port of ports) doubles.push(await doubleOnPort(port, dimsOf(b.code)));
    const script = path.join(checkout.dir, `block-${b.line}.sh`);
    writeFileSync(script, b.code);
    const r = await run("bash", ["-euo", "pipefail", script], { cwd: checkout.cwd, env });
    const served = doubles.map((d) => d.count()).reduce((a, c) => a + c, 0);
    console.log(`# ${where(b)}: ${r.seconds.toFixed(1)} s${ports.length ? `, ${served} requests to the double(s) on port ${ports.join(", ")}` : ""}`);
    return r;
  } finally {
    await Promise.all(doubles.map((d) => d.close()));
  }
}

// ---------------------------------------------------------------------------------------------

before(async () => {
  // `npm test` builds first; the TypeScript examples import the build through the package's exports.
  assert.deepEqual(staleSources(path.join(REPO, "build", "lib", "BUILD.json"), path.join(REPO, "lib")), [], "build/lib is older than lib/: run `npm run build`");
  statusBefore = gitStatus();
  tmp = mkdtempSync(path.join(os.tmpdir(), "gbr-doc-examples-"));
  raw = await startStaticServer({ [OFFICIAL_NOTEBOOK_URL_PATH]: SYNTHETIC_NOTEBOOK });
});

after(async () => {
  await raw?.close();
  await hub?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

test("the block reader: fences of backticks or tildes, indented in a list, longer fences holding shorter ones", () => {
  const md = ["# t", "```bash", "echo a", "```", "- item:", "  ```", "  { x }", "  ```", "~~~ts title", "const a = 1;", "~~~", "````text", "```", "````", ""].join("\n");
  assert.deepEqual(fencedBlocks("x.md", md), [
    { file: "x.md", line: 2, lang: "bash", code: "echo a\n" },
    { file: "x.md", line: 6, lang: "", code: "{ x }\n" },
    { file: "x.md", line: 9, lang: "ts", code: "const a = 1;\n" },
    { file: "x.md", line: 12, lang: "text", code: "```\n" },
  ]);
  assert.throws(() => fencedBlocks("y.md", "```sh\necho\n"), /y\.md:1: a fenced block that is never closed/);
  assert.deepEqual(commandWords("npm install /path/to/x.tgz    # or: npm install y\nnpm install --save-dev tsx\nA=1 npx gbr eval | head"), ["npm", "install", "tsx", "npx", "gbr", "eval", "head"]);
});

test("every fenced block says what it is, and no listing hides a command", () => {
  const problems: string[] = [];
  for (const b of ALL) {
    if (!TS.has(b.lang) && !SHELL.has(b.lang) && !NOT_RUN.has(b.lang)) {
      problems.push(`${where(b)}: ${b.lang ? `the tag "${b.lang}" is not one this test knows` : "an untagged block"}: tag it ts or bash (an example), or ${[...NOT_RUN].join("/")}`);
    }
    if (b.lang === "text") {
      const command = b.code.split("\n").find((l) => /^\s*(\$ |npx |npm |node |export [A-Z_]+=)|from ["']greekbar-retrieval["']/.test(l));
      if (command) problems.push(`${where(b)}: a text block with a line that reads as code (${command.trim()}): tag it ts or bash`);
    }
    if (TS.has(b.lang) || SHELL.has(b.lang)) {
      // A marker is read on the first line only; one further down would mislead a reader into thinking the block is not run.
      const later = b.code.split("\n").slice(1).find((l) => new RegExp(`^\\s*${commentSign(b)}\\s*(needs a real server|run by)\\b`).test(l));
      if (later) problems.push(`${where(b)}: a marker below the first line (${later.trim()}): move it to the first line`);
    }
  }
  assert.deepEqual(problems, []);
  assert.ok(ALL.some(runnable), "no runnable block found: the reader is broken");
});

test("each marked block says what real server it needs, or names a file of the repository that runs its commands", () => {
  const problems: string[] = [];
  for (const b of ALL.filter((x) => TS.has(x.lang) || SHELL.has(x.lang))) {
    const marker = markerOf(b);
    if (marker?.kind !== "runBy") continue;
    const file = path.join(REPO, marker.file);
    if (!existsSync(file)) {
      problems.push(`${where(b)}: "${marker.text}" names ${marker.file}, which does not exist`);
      continue;
    }
    const text = readFileSync(file, "utf8");
    const absent = commandWords(b.code.split("\n").slice(1).join("\n")).filter((w) => !new RegExp(`(^|[^\\w-])${w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}($|[^\\w-])`).test(text));
    if (absent.length) problems.push(`${where(b)}: ${marker.file} does not run this block's commands (no ${absent.map((w) => `"${w}"`).join(", ")} in it)`);
  }
  assert.deepEqual(problems, []);
  const marked = ALL.filter((b) => (TS.has(b.lang) || SHELL.has(b.lang)) && markerOf(b));
  console.log(`# ${ALL.filter(runnable).length} examples run here; ${marked.length} marked: ${marked.map((b) => `${where(b)} (${markerOf(b)!.kind === "server" ? "real server" : markerOf(b)!.text})`).join("; ")}`);
});

for (const page of PAGES) {
  const blocks = ALL.filter((b) => b.file === page && SHELL.has(b.lang) && runnable(b));
  if (blocks.length === 0) continue;
  describe(`${page}: the shell examples, in order, in a checkout of their own`, () => {
    let checkout: Checkout;
    before(() => {
      checkout = makeCheckout(page);
    });
    for (const b of blocks) {
      const first = b.code.split("\n").find((l) => l.trim() && !l.trim().startsWith("#")) ?? "";
      test(`${where(b)} runs as written: ${first.replace(/\s+#.*$/, "").trim()}`, async () => {
        const r = await runShellBlock(b, checkout);
        assert.equal(r.code, 0, `${where(b)} exited ${r.code ?? r.signal}:\n${b.code}\n--- output:\n${tail(r.out)}`);
        assert.doesNotMatch(r.out, /official prompts are not in the cache/, `${where(b)} ran without the official prompts`);
        assert.ok(!existsSync(path.join(checkout.npmCache, "_npx")), `${where(b)}: npx installed a package instead of running node_modules/.bin`);
      });
    }
  });
}

describe("README.md: the TypeScript examples, in order, in a project of their own", () => {
  const blocks = ALL.filter((b) => b.file === "README.md" && TS.has(b.lang) && runnable(b));
  let project = "";
  let env: NodeJS.ProcessEnv;
  const tsx = pathToFileURL(require.resolve("tsx", { paths: [REPO] })).href;
  const fileOf = (b: Block) => `example-${b.line}.mts`;

  before(() => {
    project = path.join(tmp, "project");
    mkdirSync(path.join(project, "node_modules"), { recursive: true });
    // What `npm install greekbar-retrieval` gives, but this repository's own build.
    symlinkSync(REPO, path.join(project, "node_modules", "greekbar-retrieval"));
    writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "doc-examples", version: "1.0.0", private: true }, null, 2));
    for (const b of blocks) writeFileSync(path.join(project, fileOf(b)), b.code);
    env = childEnv(project);
  });

  test("there are examples to run", () => assert.ok(blocks.length >= 3, `${blocks.length} TypeScript blocks in README.md`));

  for (const b of blocks) {
    test(`${where(b)} runs as written (node --import tsx ${fileOf(b)})`, async () => {
      const r = await run(process.execPath, ["--import", tsx, fileOf(b)], { cwd: project, env });
      console.log(`# ${where(b)}: ${r.seconds.toFixed(1)} s`);
      assert.equal(r.code, 0, `${where(b)} exited ${r.code ?? r.signal}:\n${b.code}\n--- output:\n${tail(r.out)}`);
    });
  }

  test("they type-check (strict, moduleResolution node16)", async () => {
    const compilerOptions = { strict: true, target: "ES2022", module: "node16", moduleResolution: "node16", noEmit: true, skipLibCheck: true, types: ["node"], typeRoots: [path.join(REPO, "node_modules", "@types")] };
    writeFileSync(path.join(project, "tsconfig.json"), JSON.stringify({ compilerOptions, files: blocks.map(fileOf) }, null, 2));
    const r = await run(process.execPath, [require.resolve("typescript/bin/tsc", { paths: [REPO] }), "-p", "tsconfig.json"], { cwd: project, env });
    assert.equal(r.code, 0, r.out);
  });
});

test("the examples wrote nothing inside the repository", () => {
  assert.equal(gitStatus(), statusBefore);
});
