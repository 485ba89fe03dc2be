/** A table's version manifests, and setting unreadable ones aside into `_damaged/` (LanceDB never reads it). */
import { promises as fsp } from "node:fs";
import path from "node:path";
import { unlessMissing } from "../util/safe-files";

export type Manifest = { version: bigint; file: string };

export type SetAside = { manifest: Manifest; to: string };

const U64_MAX = (1n << 64n) - 1n;

/** The version a manifest's name stands for: Lance's current naming stores u64::MAX − version (newest sorts first). */
function manifestVersion(name: string): bigint | undefined {
  const m = /^(\d+)\.manifest$/.exec(name);
  if (!m) return undefined;
  const n = BigInt(m[1]);
  // The older naming stores the version itself; no table reaches 2^63 versions, so the two never overlap.
  return n > U64_MAX / 2n ? U64_MAX - n : n;
}

/** The table's manifests, newest first (none when `_versions` is missing). */
export async function listManifests(tableDir: string): Promise<Manifest[]> {
  const dir = path.join(tableDir, "_versions");
  const found: Manifest[] = [];
  for (const name of (await unlessMissing(fsp.readdir(dir))) ?? []) {
    const version = manifestVersion(name);
    if (version !== undefined) found.push({ version, file: path.join(dir, name) });
  }
  return found.sort((a, b) => (a.version < b.version ? 1 : a.version > b.version ? -1 : 0));
}

export async function setAside(tableDir: string, manifest: Manifest): Promise<SetAside> {
  const dir = path.join(tableDir, "_damaged");
  await fsp.mkdir(dir, { recursive: true });
  const to = path.join(dir, `v${manifest.version}-${Date.now()}.manifest`);
  await fsp.rename(manifest.file, to);
  return { manifest, to };
}

/** Puts set-aside manifests back where they were, leaving the folder as it was found. */
export async function putBack(moved: readonly SetAside[]): Promise<void> {
  for (const m of [...moved].reverse()) await fsp.rename(m.to, m.manifest.file);
  // Only when empty: an earlier repair's manifests stay.
  if (moved.length > 0) await fsp.rmdir(path.dirname(moved[0].to)).catch(() => undefined);
}
