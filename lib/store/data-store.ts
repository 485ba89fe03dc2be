/** The store of a data folder: v0.8's caches imported once (renamed `*.migrated`), `GBR_REPLAY_FILE` once per version. */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { FileLocks } from "../util/file-lock";
import { readJsonIfAny, writeAtomically } from "../util/safe-files";
import { CHAT } from "./chat-record";
import { replayCache, type ReplayCache } from "./chat";
import { importFile } from "./jsonl";
import { pairLinesToRecords, RERANK } from "./rerank";
import { openStore, type Store } from "./store";

export type DataStoreOptions = { dataDir: string; replayFile?: string; log?: (message: string) => void };

export async function openDataStore(opts: DataStoreOptions): Promise<Store> {
  const data = path.resolve(opts.dataDir);
  const log = opts.log ?? ((m: string) => process.stderr.write(`store: ${m}\n`));
  const store = await openStore(path.join(data, "store"), { log });
  const legacyReplay = path.join(data, "replay", "llm-calls.jsonl");
  const legacyScores = path.join(data, "rerank", "scores.jsonl");
  const shared = opts.replayFile !== undefined && path.resolve(opts.replayFile) !== legacyReplay ? path.resolve(opts.replayFile) : undefined;
  if (!fs.existsSync(legacyReplay) && !fs.existsSync(legacyScores) && (shared === undefined || (await imported(store, shared)))) return store;
  await new FileLocks().run(path.join(store.dir, ".locks", "migrate.lock"), async () => {
    await migrate(store, CHAT, legacyReplay, "chat", {}, log);
    await migrate(store, RERANK, legacyScores, "rerank", { convert: pairLinesToRecords }, log);
    if (shared !== undefined && !(await imported(store, shared))) {
      if (!fs.existsSync(shared)) throw new Error(`GBR_REPLAY_FILE: ${shared} does not exist`);
      const { added, skipped } = await importFile(store, CHAT, shared, { log });
      log(`imported ${added} chat answers from ${shared} into ${store.dir} (${skipped} already there)`);
      const mark = JSON.stringify({ file: shared, version: versionOf(shared) });
      await writeAtomically(markOf(store, shared), (fh) => fh.writeFile(`${mark}\n`), store.dir);
    }
  }, { inProcess: "exclusive", log, what: `the migration into ${store.dir}` });
  return store;
}

export async function openReplayCache(opts: DataStoreOptions): Promise<ReplayCache> {
  return replayCache(await openDataStore(opts));
}

async function migrate<T extends { key: string }>(
  store: Store,
  kind: Parameters<typeof importFile<T>>[1],
  file: string,
  what: string,
  extra: Parameters<typeof importFile<T>>[3],
  log: (m: string) => void,
): Promise<void> {
  if (!fs.existsSync(file)) return;
  const { added, skipped, damaged } = await importFile(store, kind, file, { ...extra, log });
  await fs.promises.rename(file, `${file}.migrated`);
  for (const side of [".order-gen", ".reorder"]) await fs.promises.rm(`${file}${side}`, { force: true });
  log(`migrated ${file} (v0.8) into ${store.dir}: ${added} ${what} records added (${skipped} already there)${damaged ? `, ${damaged} damaged lines skipped` : ""}; the old file is now ${path.basename(file)}.migrated`);
}

/** Where the store notes that a version (size, mtime) of a replay file was imported. */
function markOf(store: Store, file: string): string {
  return path.join(store.dir, ".imported", `${createHash("sha256").update(file).digest("hex").slice(0, 32)}.json`);
}

function versionOf(file: string): string {
  const st = fs.statSync(file, { throwIfNoEntry: false });
  return st ? `${st.size}:${st.mtimeMs}` : "missing";
}

async function imported(store: Store, file: string): Promise<boolean> {
  return (await readJsonIfAny<{ version?: string }>(markOf(store, file)))?.version === versionOf(file);
}
