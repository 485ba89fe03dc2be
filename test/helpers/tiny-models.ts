/**
 * Builds the tiny ONNX model repositories of test/helpers/tiny-onnx.py (a BERT-shaped embedder and a
 * one-logit cross-encoder, random weights, a real WordPiece tokenizer.json) and reads them back as
 * { repository path -> bytes } maps for the Hub double (test/fakes/hub-server.ts, kind "models").
 *
 * Needs Debian's python3-onnx: the interpreter is /usr/bin/python3 (a pyenv or venv python3 first on
 * PATH usually lacks the onnx module), or GBR_TEST_PYTHON. Without it the build fails, saying why (never a skip).
 */
import { spawnSync } from "node:child_process";
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";

const SCRIPT = path.join(__dirname, "tiny-onnx.py");

export function testPython(): string {
  return process.env.GBR_TEST_PYTHON ?? (existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3");
}

/** A reason the models cannot be built here, or undefined when they can. */
export function tinyModelsUnavailable(): string | undefined {
  const r = spawnSync(testPython(), ["-c", "import onnx, numpy"], { encoding: "utf8" });
  return r.status === 0 ? undefined : `no python3 with onnx (apt-get install python3-onnx): ${r.stderr.trim().split("\n").pop()}`;
}

async function readTree(dir: string, prefix = ""): Promise<Record<string, Buffer>> {
  const out: Record<string, Buffer> = {};
  for (const e of await fs.readdir(dir, { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) Object.assign(out, await readTree(path.join(dir, e.name), rel));
    else out[rel] = await fs.readFile(path.join(dir, e.name));
  }
  return out;
}

/** Writes both repositories under `dir` and returns their files. */
export async function buildTinyModels(
  dir: string,
  dims = 32,
): Promise<{ embed: Record<string, Buffer>; crossEncoder: Record<string, Buffer> }> {
  const missing = tinyModelsUnavailable();
  if (missing) throw new Error(`cannot build the tiny ONNX test models: ${missing}`);
  const r = spawnSync(testPython(), [SCRIPT, dir, String(dims)], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`tiny-onnx.py failed: ${r.stderr}`);
  return { embed: await readTree(path.join(dir, "tiny-embed")), crossEncoder: await readTree(path.join(dir, "tiny-ce")) };
}
