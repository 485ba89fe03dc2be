/** The Hub loader: AUEB-NLP/greek-bar-bench's retrieval configs at a pinned revision, verified and cached. */
import { promises as fs } from "node:fs";
import path from "node:path";
import type { Benchmark } from "../types";
import { parseCard, resolveDataFiles } from "./dataset-card";
import { DataError } from "../util/errors";
import { beirIsCurrent, refuseForeignFiles, writeBeirFolder } from "./hub-beir";
import { benchmarkFromCache } from "./hub-benchmark";
import { fetchVerified, revisionOrCache } from "./hub-download";
import { inspectCache, reusableFiles, writeManifest, type Manifest, type ManifestFile } from "./hub-manifest";
import { HUB_CONFIGS, hubSettings, localPath, type HubSettings, type PullOptions } from "./hub-settings";

/** A pull: the benchmark, its cache folder, the same as a BEIR folder (`--data <beirDir>`), the manifest. */
export type PullResult = { benchmark: Benchmark; dir: string; beirDir: string; manifest: Manifest };

/** The benchmark at a pinned revision, fetched or from the verified cache (used as is without network). */
export async function pullHub(opts: PullOptions): Promise<PullResult> {
  const cfg = hubSettings(opts);
  const cached = await inspectCache(cfg);
  const info = await revisionOrCache(cfg, cached?.manifest, [...(cached?.bad ?? [])]);
  if (!info) return finish(cfg, cached!.manifest, false);

  const reusable = reusableFiles(cached, info.sha);

  const files = new Map<string, ManifestFile>();
  const ensure = async (p: string) => {
    if (!files.has(p)) files.set(p, reusable.get(p) ?? (await fetchVerified(cfg, info, p)));
  };

  if (!info.siblings.some((s) => s.rfilename === "README.md")) {
    throw new DataError(`the repository ${cfg.repo}@${cfg.revision} has no dataset card (README.md), so its configs are unknown`, "README.md");
  }
  await ensure("README.md");
  const cardFile = localPath(cfg.cacheDir, "README.md");
  const card = parseCard(await fs.readFile(cardFile, "utf8"), cardFile);
  const configs: Record<string, string[]> = {};
  for (const role of Object.keys(HUB_CONFIGS) as (keyof typeof HUB_CONFIGS)[]) {
    const name = HUB_CONFIGS[role];
    const specs = card.get(name);
    if (!specs) {
      if (role === "meta") {
        cfg.log(`hub: the dataset card has no '${name}' config; queries will carry no area/date/number`);
        continue;
      }
      throw new DataError(
        `the dataset card of ${cfg.repo}@${cfg.revision} has no '${name}' config (it has: ${[...card.keys()].join(", ") || "none"}); is this the right revision?`,
        cardFile,
      );
    }
    configs[name] = resolveDataFiles(name, specs, info.siblings, cardFile);
  }
  for (const paths of Object.values(configs)) for (const p of paths) await ensure(p);

  const manifest: Manifest = {
    repo: cfg.repo,
    revision: cfg.revision,
    sha: info.sha,
    configs,
    files: [...files.values()],
    fetchedAt: new Date().toISOString(),
  };
  await writeManifest(path.join(cfg.cacheDir, "manifest.json"), manifest);
  return finish(cfg, manifest, [...files.keys()].some((p) => !reusable.has(p)));
}

/** `gbr data pull --dir D`: pulls, then writes a BEIR folder plus manifest.json at `dir` for `--data D`. */
export async function pullHubToDir(dir: string, opts: PullOptions): Promise<PullResult> {
  const out = path.resolve(dir);
  await refuseForeignFiles(out);
  const result = await pullHub(opts);
  await writeBeirFolder(out, result.benchmark, result.manifest);
  return { ...result, dir: out, beirDir: out };
}

/** Builds the benchmark from cached files and refreshes the cache's BEIR copy when stale. */
async function finish(cfg: HubSettings, manifest: Manifest, changed: boolean): Promise<PullResult> {
  const benchmark = await benchmarkFromCache(cfg.cacheDir, manifest, cfg.log);
  const beirDir = path.join(cfg.cacheDir, "beir");
  if (changed || !(await beirIsCurrent(beirDir, manifest))) await writeBeirFolder(beirDir, benchmark, manifest);
  return { benchmark, dir: cfg.cacheDir, beirDir, manifest };
}
