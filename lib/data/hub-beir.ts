/** A pull's benchmark as a BEIR folder (for `--data D`), with a manifest of its source commit and checksums. */
import { promises as fs } from "node:fs";
import path from "node:path";
import type { Benchmark } from "../types";
import { hashFile } from "../util/download";
import { DataError } from "../util/errors";
import { readJsonIfAny } from "../util/safe-files";
import { writeBeir } from "./beir";
import { verifyCached, writeManifest, type Manifest, type ManifestFile } from "./hub-manifest";

/** The layout `writeBeir` writes now: a folder in an older one is written again. */
const BEIR_LAYOUT = 2;

/** True when `dir` already holds the BEIR copy of exactly this pull, its files intact. */
export async function beirIsCurrent(dir: string, manifest: Manifest): Promise<boolean> {
  try {
    const prev = JSON.parse(await fs.readFile(path.join(dir, "manifest.json"), "utf8")) as Manifest;
    if (prev.sha !== manifest.sha || JSON.stringify(prev.files) !== JSON.stringify(manifest.files) || !prev.beir || prev.beirLayout !== BEIR_LAYOUT) return false;
    for (const f of prev.beir) if (await verifyCached(path.join(dir, ...f.path.split("/")), f)) return false;
    return true;
  } catch {
    return false;
  }
}
/** writeBeir plus a manifest of the source commit and the BEIR files' checksums. */
export async function writeBeirFolder(dir: string, b: Benchmark, manifest: Manifest): Promise<void> {
  // writeBeir skips meta.jsonl when there is no metadata; a stale one must not survive.
  if (b.meta.size === 0) await fs.rm(path.join(dir, "meta.jsonl"), { force: true });
  await writeBeir(dir, b);
  const written = BEIR_FILES.slice(1).filter((p) => p !== "meta.jsonl" || b.meta.size > 0);
  const beir: ManifestFile[] = [];
  for (const p of written) beir.push({ path: p, ...(await hashFile(path.join(dir, ...p.split("/")))) });
  await writeManifest(path.join(dir, "manifest.json"), { ...manifest, beir, beirLayout: BEIR_LAYOUT });
}

/** The files `writeBeirFolder` writes or removes. */
const BEIR_FILES = ["manifest.json", "corpus.jsonl", "queries.jsonl", "qrels/test.tsv", "meta.jsonl"];

/**
 * Refuses a folder holding a file `writeBeirFolder` would replace that no pull's manifest lists as it is now.
 * @example
 * await refuseForeignFiles("my-folder"); // throws DataError "my-folder: corpus.jsonl was not written by gbr data pull …"
 */
export async function refuseForeignFiles(dir: string): Promise<void> {
  const present: string[] = [];
  for (const p of BEIR_FILES) if (await fs.stat(path.join(dir, ...p.split("/"))).then(() => true, () => false)) present.push(p);
  if (present.length === 0) return;
  const ours = (await readJsonIfAny<Manifest>(path.join(dir, "manifest.json")))?.beir;
  const foreign: string[] = [];
  for (const p of present) {
    const f = ours?.find((o) => o.path === p);
    if (p === "manifest.json" ? !Array.isArray(ours) : !f || (await verifyCached(path.join(dir, ...p.split("/")), f))) foreign.push(p);
  }
  if (foreign.length > 0) {
    throw new DataError(
      `${foreign.join(", ")} ${foreign.length === 1 ? "was" : "were"} not written by gbr data pull (or changed since): not replacing ${foreign.length === 1 ? "it" : "them"}; choose a new or empty folder, or move ${foreign.length === 1 ? "it" : "them"} away`,
      dir,
    );
  }
}
