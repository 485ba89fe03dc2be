/**
 * What must survive a run: a JSON file per record at `<dir>/<kind>/<2 hex>/<key>.json`, keyed by its content's sha256,
 * written atomically; `produce` makes a record once across processes; one failing its checks is renamed `.bad`.
 */
import fs from "node:fs";
import path from "node:path";
import { GbrError, writeFault } from "../util/errors";
import { unlessMissing, writeAtomically } from "../util/safe-files";
import { FileLocks } from "../util/file-lock";

/** A kind of record: how its key follows from its content, and what makes it invalid. */
export interface RecordKind<T extends { key: string }> {
  readonly name: string;
  keyOf(record: T): string;
  problem(value: unknown): string | undefined;
}

export type Store = FileStore;

/** Opens a store folder (created on the first write). */
export async function openStore(dir: string, opts: { log?: (message: string) => void } = {}): Promise<Store> {
  return new FileStore(path.resolve(dir), opts.log ?? ((m) => process.stderr.write(`store: ${m}\n`)));
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** The JSON value of strict UTF-8 bytes, or what is wrong with them. */
export function jsonOf(bytes: Uint8Array): { value: unknown } | string {
  try {
    return { value: JSON.parse(strictUtf8.decode(bytes)) };
  } catch (err) {
    // The fatal decoder throws a TypeError, JSON.parse a SyntaxError (bytes past V8's string limit count as not UTF-8).
    return err instanceof SyntaxError ? "not valid JSON" : "not valid UTF-8";
  }
}

/** One record's bytes checked (strict UTF-8, JSON, the kind's checks, the key): the record, or what is wrong. */
export function decodeRecord<T extends { key: string }>(kind: RecordKind<T>, bytes: Uint8Array, key?: string): T | string {
  const json = jsonOf(bytes);
  if (typeof json === "string") return json;
  const problem = kind.problem(json.value);
  if (problem) return problem;
  const record = json.value as T;
  const expected = kind.keyOf(record);
  if (record.key !== expected) return `its key ${record.key} does not match its content (${expected})`;
  if (key !== undefined && record.key !== key) return `it holds the record of key ${record.key}`;
  return record;
}

export class FileStore {
  private readonly locks = new FileLocks();
  constructor(readonly dir: string, private readonly log: (message: string) => void) {}

  private toldWaiting = false;
  /** The first write the disk refused: later records are not made (their calls would be paid and lost). */
  private refused?: unknown;

  fileOf(kind: RecordKind<{ key: string }>, key: string): string {
    if (!/^[0-9a-f]{64}$/.test(key)) throw new TypeError(`store: a key is 64 hex characters, got ${JSON.stringify(key)}`);
    return path.join(this.dir, kind.name, key.slice(0, 2), `${key}.json`);
  }

  /** Whether a file exists under `key` (`get` says whether it is valid). */
  has(kind: RecordKind<{ key: string }>, key: string): boolean {
    return fs.existsSync(this.fileOf(kind, key));
  }

  /** The valid record under `key`, or undefined (a damaged one is set aside with a warning). */
  async get<T extends { key: string }>(kind: RecordKind<T>, key: string): Promise<T | undefined> {
    const file = this.fileOf(kind, key);
    const bytes = await unlessMissing(fs.promises.readFile(file));
    if (!bytes) return undefined;
    const r = decodeRecord(kind, bytes, key);
    if (typeof r !== "string") return r;
    this.log(`discarding ${file} (${kind.name} record, key ${key}): ${r}; it will be made again`);
    await fs.promises.rename(file, `${file}.bad`).catch(() => fs.promises.rm(file, { force: true }).catch(() => undefined));
    return undefined;
  }

  async put<T extends { key: string }>(kind: RecordKind<T>, record: T): Promise<void> {
    const problem = kind.problem(record);
    if (problem) throw new TypeError(`store: refusing an invalid ${kind.name} record: ${problem}`);
    const key = kind.keyOf(record);
    if (record.key !== key) throw new TypeError(`store: the ${kind.name} record's key ${record.key} does not match its content (${key})`);
    if (this.refused) throw this.refused;
    const file = this.fileOf(kind, key);
    await writeAtomically(file, (fh) => fh.writeFile(`${JSON.stringify(record)}\n`, "utf8"), this.dir).catch((err: unknown) => {
      throw this.refuses(err);
    });
  }

  private refuses(err: unknown): unknown {
    const fault = writeFault(err, this.dir, "GBR_DATA_DIR");
    if (fault instanceof GbrError && (fault.code === "DISK_FULL" || fault.code === "UNWRITABLE")) this.refused ??= fault;
    return fault;
  }

  /** The record under `key`, made by `make` when there is none, once across processes; `made`: by this caller. */
  async produce<T extends { key: string }>(kind: RecordKind<T>, key: string, make: () => Promise<T>): Promise<{ record: T; made: boolean }> {
    const hit = await this.get(kind, key);
    if (hit) return { record: hit, made: false };
    if (this.refused) throw this.refused;
    // A lock the disk refuses is the store's write fault too (named, remembered), not a raw mkdir error.
    let locked = false;
    return this.locks.run(
      path.join(this.dir, ".locks", kind.name, `${key}.lock`),
      async () => {
        locked = true;
        // Another process (or caller) may have made it while this one waited for the lock.
        const again = await this.get(kind, key);
        if (again) return { record: again, made: false };
        const record = await make();
        await this.put(kind, record);
        return { record, made: true };
      },
      {
        what: `the ${kind.name} record ${key.slice(0, 12)}… of ${this.dir}`,
        log: this.log,
        inProcess: "exclusive",
        onWait: (m) => {
          if (this.toldWaiting) return;
          this.toldWaiting = true;
          this.log(`${m} (its record will be read here; further waits are not reported)`);
        },
      },
    ).catch((err: unknown) => {
      throw locked ? err : this.refuses(err);
    });
  }

  async *records<T extends { key: string }>(kind: RecordKind<T>): AsyncGenerator<T> {
    const root = path.join(this.dir, kind.name);
    const list = async (dir: string) => (await unlessMissing(fs.promises.readdir(dir))) ?? [];
    const shards = (await list(root)).filter((s) => /^[0-9a-f]{2}$/.test(s)).sort();
    for (const shard of shards) {
      const names = (await list(path.join(root, shard))).filter((n) => /^[0-9a-f]{64}\.json$/.test(n)).sort();
      for (const name of names) {
        const r = await this.get(kind, name.slice(0, 64));
        if (r) yield r;
      }
    }
  }
}

