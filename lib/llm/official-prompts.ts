/** Pulls the paper's prompts at run time (not ours to copy): the pinned notebook's constants, cached under data/. */
import { promises as fs } from "node:fs";
import path from "node:path";
import { downloadFile, type DownloadOptions } from "../util/download";
import { EXTRA_PROMPT_NAMES, OFFICIAL_MANIFEST, PROMPT_NAMES, PromptError, type OfficialManifest } from "./prompts";
import { extractPromptsFromNotebook } from "./notebook-prompts";
import { checkedBaseUrl } from "../util/http";
import { digestOf, writeAtomically } from "../util/safe-files";

export const OFFICIAL_REPO = "nlpaueb/greek-bar-bench";
/** The commit the paper's prompts are pinned to (DESIGN.md §6). */
export const OFFICIAL_COMMIT = "992f5224a6cb75d12d956994a820a9b83e18c0f5";
export const OFFICIAL_NOTEBOOK_PATH = "quickstart/greekbarretrieval_paper_experiments.ipynb";

export interface PullOfficialOptions {
  baseUrl?: string;
  commit?: string;
  cacheDir: string;
  download?: DownloadOptions;
  log?: (msg: string) => void;
}

/** Caches each `<NAME>.txt`, the notebook and, last, `manifest.json`, so an interrupted pull never loads half-new. */
export async function pullOfficialPrompts(opts: PullOfficialOptions): Promise<{ cacheDir: string; manifest: OfficialManifest }> {
  const log = opts.log ?? (() => {});
  const base = checkedBaseUrl("GBR_GITHUB_RAW_URL", opts.baseUrl ?? "https://raw.githubusercontent.com").replace(/\/+$/, "");
  const commit = opts.commit ?? OFFICIAL_COMMIT;
  if (!/^[0-9A-Za-z._\/-]+$/.test(commit) || commit.includes("..")) {
    throw new PromptError(`not a usable commit or ref: '${commit}'`, "INVALID");
  }
  if (!/^[0-9a-f]{40}$/.test(commit)) log(`prompts: '${commit}' is not a commit sha; the texts it names may change over time`);
  const { cacheDir } = opts;
  const writeAtomic = (file: string, text: string) => writeAtomically(file, (fh) => fh.writeFile(text, "utf8"), cacheDir);
  // `<name>.txt` written, and its manifest entry.
  const cache = async (name: string, text: string) => {
    await writeAtomic(path.join(cacheDir, `${name}.txt`), text);
    return { file: `${name}.txt`, sha256: digestOf(text), chars: text.length };
  };
  const url = `${base}/${OFFICIAL_REPO}/${commit}/${OFFICIAL_NOTEBOOK_PATH}`;

  await fs.mkdir(cacheDir, { recursive: true });
  const notebookFile = path.join(cacheDir, "notebook.ipynb");
  const incoming = `${notebookFile}.incoming`;
  log(`prompts: downloading ${url}`);
  const { sha256: notebookSha256 } = await downloadFile(url, incoming, opts.download);
  const extracted = await fs.readFile(incoming, "utf8").then(extractPromptsFromNotebook).catch(async (err: unknown) => {
    await fs.rm(incoming, { force: true });
    throw err instanceof PromptError ? new PromptError(`${url}: ${err.message}`, err.code) : err;
  });

  // From here on the cache changes: drop the manifest first so a crash leaves "not pulled".
  await fs.rm(path.join(cacheDir, OFFICIAL_MANIFEST), { force: true });
  await fs.rename(incoming, notebookFile);
  const prompts = {} as OfficialManifest["prompts"];
  for (const name of PROMPT_NAMES) prompts[name] = await cache(name, extracted.texts[name]);
  const extras: OfficialManifest["extras"] = {};
  for (const name of EXTRA_PROMPT_NAMES) {
    const found = extracted.extras[name];
    if (!found) {
      await fs.rm(path.join(cacheDir, `${name}.txt`), { force: true }); // a stale extra from an older pull must not be loaded
      log(`prompts: no ${name} found in the notebook; official rewrites will stop and say so`);
      continue;
    }
    extras[name] = { ...(await cache(name, found.text)), foundBy: found.foundBy };
  }
  const manifest: OfficialManifest = {
    repo: OFFICIAL_REPO,
    commit,
    path: OFFICIAL_NOTEBOOK_PATH,
    url,
    notebookSha256,
    pulledAt: new Date().toISOString(),
    prompts,
    extras,
  };
  await writeAtomic(path.join(cacheDir, OFFICIAL_MANIFEST), JSON.stringify(manifest, null, 2) + "\n");
  log(`prompts: cached ${PROMPT_NAMES.length} official prompts from ${OFFICIAL_REPO}@${commit.slice(0, 12)} in ${cacheDir}`);
  return { cacheDir, manifest };
}
