/** The record of a pull (manifest.json), so a later run can prove its cache is whole without the network. */
import { promises as fs } from "node:fs";
import path from "node:path";
import { hashFile } from "../util/download";
import { writeAtomically } from "../util/safe-files";
import { localPath, type HubSettings } from "./hub-settings";

/** One cached file: its repository path and what it must hash to on disk. */
export type ManifestFile = { path: string; size: number; sha256: string };

/** What a pull fetched: the revision asked for, the commit it resolved to, each config's files in order, hashes. */
export interface Manifest {
  repo: string;
  revision: string;
  sha: string;
  configs: Record<string, string[]>;
  files: ManifestFile[];
  fetchedAt: string;
  /** Only in a BEIR folder's manifest: its files' checksums and layout (2: `_id` and `title`; absent: the older `id`). */
  beir?: ManifestFile[];
  beirLayout?: number;
}

/** The cached manifest with the paths that failed verification; undefined when none is usable. */
export async function inspectCache(cfg: HubSettings): Promise<{ manifest: Manifest; bad: Set<string> } | undefined> {
  const file = path.join(cfg.cacheDir, "manifest.json");
  let manifest: Manifest;
  try {
    manifest = JSON.parse(await fs.readFile(file, "utf8")) as Manifest;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") cfg.log(`hub: ignoring unreadable ${file} (${(err as Error).message})`);
    return undefined;
  }
  if (manifest?.repo !== cfg.repo || manifest.revision !== cfg.revision || !Array.isArray(manifest.files) || !manifest.configs) {
    cfg.log(`hub: ${file} describes another ${cfg.kind.slice(0, -1)} or is malformed; ignoring it`);
    return undefined;
  }
  const bad = new Set<string>();
  for (const f of manifest.files) {
    const problem = await verifyCached(localPath(cfg.cacheDir, f.path), f);
    if (problem) {
      bad.add(f.path);
      cfg.log(`hub: cached ${f.path} ${problem}${cfg.offline ? "" : "; fetching it again"}`);
    }
  }
  const listed = new Set(manifest.files.map((f) => f.path));
  for (const p of Object.values(manifest.configs).flat()) if (!listed.has(p)) bad.add(p);
  return { manifest, bad };
}

/** Verified cached files a pull of `commit` may keep: those of a cache of that very commit. */
export function reusableFiles(cached: { manifest: Manifest; bad: Set<string> } | undefined, commit: string): Map<string, ManifestFile> {
  const same = cached?.manifest.sha === commit ? cached.manifest.files : [];
  return new Map(same.filter((f) => !cached!.bad.has(f.path)).map((f) => [f.path, f]));
}

/** Why a file on disk is not the one the manifest records, or undefined. */
export async function verifyCached(file: string, expected: ManifestFile): Promise<string | undefined> {
  const size = (await fs.stat(file).catch(() => undefined))?.size;
  if (size === undefined) return "is missing";
  if (size !== expected.size) return `is ${size} bytes, the manifest says ${expected.size} (truncated or replaced)`;
  const { sha256 } = await hashFile(file);
  if (sha256 !== expected.sha256) return "is corrupted (sha256 differs from the manifest)";
  return undefined;
}

/** Writes a manifest whole or not at all, so a crash never leaves half of one. */
export async function writeManifest(file: string, manifest: object): Promise<void> {
  await writeAtomically(file, (fh) => fh.writeFile(JSON.stringify(manifest, null, 2) + "\n"), path.dirname(file));
}
