/**
 * Starts the local API doubles (test/fakes/) so that the notebooks' LLM and embedding code runs
 * its real paths (SDKs, retries, caches, traces) without a model server or the internet:
 *
 * - an OpenAI-compatible double (chat completions and embeddings) whose chat answers are
 *   scripted from the prompts, in the formats the methods parse: keyword rewrites (KEYWORDS:),
 *   prose rewrites (QUERY:), a planner (REASON: / QUERY:), an observer (RELEVANT: id | reason)
 *   and a word-by-word "translation";
 * - a Gemini double for the gemini-001 preset;
 * - a rerank double (POST /rerank, vLLM's shape) scoring pairs by shared words.
 *
 * Prints `export NAME=value` lines for a shell to source, then a line `# ready`, and serves
 * until it is sent SIGTERM or SIGINT. The answers are made up: every number computed with them
 * says that the code ran, nothing about retrieval quality.
 *
 * Usage: node --import tsx scripts/serve-doubles.ts [--dir DIR]
 *   --dir DIR   where to write the embedding presets the doubles serve (default: a temp folder)
 *
 * @example
 * node --import tsx scripts/serve-doubles.ts --dir /tmp/nb > /tmp/nb/doubles.env &
 * until grep -q '^# ready' /tmp/nb/doubles.env; do sleep 0.2; done; . /tmp/nb/doubles.env
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { builtinPresets } from "../lib/dense/presets";
import { startOpenAIDouble } from "../test/fakes/openai-server";
import { scriptedModel } from "../test/fakes/scripted-model";
import { startGeminiDouble } from "../test/fakes/gemini-server";
import { startRerankDouble } from "../test/fakes/rerank-server";

/** Vector size of the OpenAI-compatible double (every local preset is re-declared with it). */
const DIMS = 32;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const dirAt = args.indexOf("--dir");
  const given = dirAt >= 0 && args[dirAt + 1] ? path.resolve(args[dirAt + 1]) : undefined;
  const dir = given ?? mkdtempSync(path.join(os.tmpdir(), "gbr-doubles-"));
  mkdirSync(dir, { recursive: true });

  const openai = await startOpenAIDouble({ dims: DIMS });
  openai.chat(scriptedModel);
  const gemini = await startGeminiDouble({ usage: true });
  const rerank = await startRerankDouble();

  // The built-in local presets name real vector sizes (4096, 2560 …); the double serves DIMS.
  // Everything else follows GBR_EMBED_NAMES, so the authors' request shape can be tried here too.
  const presets = builtinPresets()
    .filter((p) => p.provider === "openai")
    .map((p) => ({
      name: p.name,
      provider: p.provider,
      model: p.model,
      dims: DIMS,
      queryTemplate: p.queryTemplate,
      documentTemplate: p.documentTemplate,
      ...(p.batchSize !== undefined ? { batchSize: p.batchSize } : {}),
      ...(p.input !== undefined ? { input: p.input } : {}),
      ...(p.server !== undefined ? { server: p.server } : {}),
    }));
  const presetsFile = path.join(dir, "presets.json");
  writeFileSync(presetsFile, JSON.stringify({ presets }, null, 2) + "\n");

  const env: Record<string, string> = {
    GBR_CHAT_BASE_URL: `${openai.url}/v1`,
    GBR_CHAT_MODEL: "openai/gpt-oss-120b",
    GBR_EMBED_BASE_URL: `${openai.url}/v1`,
    GBR_PRESETS: presetsFile,
    GBR_GEMINI_BASE_URL: gemini.url,
    GEMINI_API_KEY: "local-double",
    GBR_RERANK_BASE_URL: rerank.url,
  };
  const quote = (v: string) => `'${v.replace(/'/g, `'\\''`)}'`;
  process.stdout.write(Object.entries(env).map(([k, v]) => `export ${k}=${quote(v)}\n`).join("") + "# ready\n");

  const stop = async () => {
    process.stderr.write(`serve-doubles: ${openai.count("chat/completions")} chat and ${openai.count("embeddings")} embedding requests, ${gemini.count()} Gemini requests, ${rerank.count()} rerank requests; stopping\n`);
    await Promise.allSettled([openai.close(), gemini.close(), rerank.close()]);
    // A folder it made itself goes with it; one given with --dir is the caller's.
    if (!given) rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop());
  process.on("SIGINT", () => void stop());
}

main().catch((err: unknown) => {
  process.stderr.write(`serve-doubles: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
