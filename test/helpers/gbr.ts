import { spawn } from "node:child_process";
import path from "node:path";
import { REPO } from "./shared";

/** What a `gbr` process did. */
export interface GbrResult {
  code: number | null;
  stdout: string;
  stderr: string;
  seconds: number;
}

/**
 * Provider settings of the developer's own environment that must never leak into a test: each is
 * set empty unless the test sets it.
 */
export const CLEARED = [
  "OPENAI_BASE_URL",
  "OPENAI_API_KEY",
  "GBR_EMBED_BASE_URL",
  "GBR_EMBED_API_KEY",
  "GBR_EMBED_NAMES",
  "GBR_LMSTUDIO_BASE_URL",
  "GBR_LMSTUDIO_API_KEY",
  "GBR_CHAT_BASE_URL",
  "GBR_CHAT_API_KEY",
  "GBR_CHAT_MODEL",
  "GBR_GITHUB_RAW_URL",
  "GEMINI_API_KEY",
  "GOOGLE_API_KEY",
  "HF_TOKEN",
];

/**
 * Runs the real `gbr` command in a child process, asynchronously (so HTTP doubles living in the
 * test process keep answering), with its data folder in `dataDir`, the Hub and spaCy's tables
 * unreachable (a .invalid host never resolves), no provider from the developer's environment,
 * and `env` on top.
 *
 * @example
 * const r = await runGbr(["reproduce", "--data", "sample", "--out", out], { dataDir: path.join(tmp, "data") });
 * assert.equal(r.code, 0, r.stderr);
 */
export function runGbr(
  args: string[],
  opts: { dataDir: string; env?: Record<string, string | undefined>; input?: string | Buffer; cwd?: string; timeoutMs?: number },
): Promise<GbrResult> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [path.join(REPO, "bin", "gbr.js"), ...args], {
    cwd: opts.cwd,
    env: {
      ...process.env,
      GBR_DATA_DIR: opts.dataDir,
      GBR_SPACY_BASE_URL: "http://unreachable.invalid",
      HF_ENDPOINT: "http://unreachable.invalid",
      ...Object.fromEntries(CLEARED.map((k) => [k, ""])),
      CI: "true",
      ...opts.env,
    },
    timeout: opts.timeoutMs ?? 300_000,
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  if (opts.input !== undefined) child.stdin.end(opts.input);
  else child.stdin.end();
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr, seconds: (performance.now() - t0) / 1000 }));
  });
}
