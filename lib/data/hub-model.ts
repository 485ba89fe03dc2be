/** An in-process model's files from a Hub model repository: configs, tokenizer and one dtype's ONNX graph, verified. */
import path from "node:path";
import { DataError, GbrError } from "../util/errors";
import { FileLocks } from "../util/file-lock";
import { fetchVerified, revisionOrCache } from "./hub-download";
import { inspectCache, reusableFiles, writeManifest } from "./hub-manifest";
import { hubSettings, localPath, type HubSettings, type PullOptions } from "./hub-settings";

/** The suffix of each dtype's graph, onnx/model{suffix}.onnx (transformers.js's naming). */
const DTYPE_SUFFIX: Record<string, string> = { fp32: "", fp16: "_fp16", q8: "_quantized", int8: "_int8", uint8: "_uint8", q4: "_q4", q4f16: "_q4f16", bnb4: "_bnb4" };
const CONFIGS = ["config.json", "tokenizer.json", "tokenizer_config.json"];

/**
 * The files of an in-process model at a pinned revision, fetched once, verified, then used from the cache (also offline).
 * `dir` mirrors the repository (dir/config.json, dir/onnx/model_quantized.onnx, …); `files` are the paths fetched into it.
 * @example const { dir } = await pullModel({ repo: "onnx-community/embeddinggemma-300m-ONNX", revision: "main", cacheRoot: "data/hf", dtype: "q8" });
 */
export async function pullModel(opts: PullOptions & { dtype: string }): Promise<{ dir: string; sha: string; files: string[] }> {
  const suffix = DTYPE_SUFFIX[opts.dtype];
  if (suffix === undefined) throw new GbrError(`unknown dtype '${opts.dtype}': choose one of ${Object.keys(DTYPE_SUFFIX).join(", ")}`, "USAGE");
  const cfg = hubSettings(opts, "models");
  // One process fetches at a time; the next finds what it fetched verified in the manifest.
  return new FileLocks().run(path.join(cfg.cacheDir, "pull.lock"), () => pull(cfg, opts.dtype, `onnx/model${suffix}.onnx`), { what: `the model cache ${cfg.cacheDir}`, log: cfg.log });
}

async function pull(cfg: HubSettings, dtype: string, graph: string): Promise<{ dir: string; sha: string; files: string[] }> {
  const dir = path.dirname(localPath(cfg.cacheDir, "config.json"));
  const cached = await inspectCache(cfg);
  const have = cached?.manifest.configs[dtype];
  const info = await revisionOrCache(cfg, cached?.manifest, have?.filter((p) => cached!.bad.has(p)) ?? [graph]);
  if (!info) return { dir, sha: cached!.manifest.sha, files: have! };

  const names = new Set(info.siblings.map((s) => s.rfilename));
  const absent = [...CONFIGS, graph].filter((p) => !names.has(p));
  const present = Object.keys(DTYPE_SUFFIX).filter((d) => names.has(`onnx/model${DTYPE_SUFFIX[d]}.onnx`));
  if (absent.length) throw new DataError(`the model repository ${cfg.repo}@${cfg.revision} has no ${absent.join(", ")} (dtype ${dtype}; its dtypes: ${present.join(", ") || "none"})`);
  const wanted = [...CONFIGS, "special_tokens_map.json", graph].filter((p) => names.has(p)).concat([...names].filter((p) => p.startsWith(`${graph}_data`)).sort());

  const reusable = reusableFiles(cached, info.sha);
  if (have && wanted.every((p) => reusable.has(p))) return { dir, sha: info.sha, files: wanted };
  const files = new Map(reusable);
  let whole = false;
  try {
    for (const p of wanted) if (!files.has(p)) files.set(p, await fetchVerified(cfg, info, p));
    whole = true;
  } finally {
    // What was verified stays recorded even when a later file fails, so a retry fetches only the rest.
    const configs = { ...(reusable.size ? cached!.manifest.configs : {}), ...(whole ? { [dtype]: wanted } : {}) };
    await writeManifest(path.join(cfg.cacheDir, "manifest.json"), { repo: cfg.repo, revision: cfg.revision, sha: info.sha, configs, files: [...files.values()], fetchedAt: new Date().toISOString() });
  }
  return { dir, sha: info.sha, files: wanted };
}
