// TEMPORARY stand-in until the real pullModel lands (not committed)
import { promises as fs } from "node:fs";
import path from "node:path";
import type { PullOptions } from "./hub-settings";
export async function pullModel(opts: PullOptions & { dtype: string }): Promise<{ dir: string; sha: string; files: string[] }> {
  const dir = path.join(opts.cacheRoot!, "models", opts.repo!.replace("/", "__"), opts.revision!, "files");
  const suffix: Record<string, string> = { fp32: "", q8: "_quantized" };
  const files = ["config.json", "tokenizer.json", "tokenizer_config.json", `onnx/model${suffix[opts.dtype]}.onnx`];
  for (const f of files) {
    const dest = path.join(dir, f);
    try { await fs.access(dest); continue; } catch {}
    const res = await fetch(`${opts.endpoint}/${opts.repo}/resolve/${opts.revision}/${f}`, { headers: opts.token ? { Authorization: `Bearer ${opts.token}` } : {} });
    if (!res.ok) throw new Error(`HTTP ${res.status} ${f}`);
    await fs.mkdir(path.dirname(dest), { recursive: true });
    await fs.writeFile(dest, Buffer.from(await res.arrayBuffer()));
  }
  return { dir, sha: opts.revision!, files };
}
