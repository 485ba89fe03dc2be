/** Files written whole (a rename replaces a link planted there, never its target), and paths kept inside a folder. */
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { GbrError, writeFault } from "./errors";

/** A file whole or not at all (a fsynced temp file renamed over it); a refused write names `folder` and its `setting`. */
export async function writeAtomically(file: string, write: (fh: fs.promises.FileHandle) => Promise<void>, folder: string, setting = "GBR_DATA_DIR"): Promise<void> {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    // "wx": a new file, so a link planted under the temporary name is not followed either.
    const fh = await fs.promises.open(tmp, "wx");
    try {
      await write(fh);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fs.promises.rename(tmp, file);
  } catch (err) {
    await fs.promises.rm(tmp, { force: true }).catch(() => undefined);
    throw writeFault(err, folder, setting);
  }
  await syncDir(path.dirname(file));
}

/** Best effort: some platforms cannot open a folder. */
async function syncDir(dir: string): Promise<void> {
  const d = await fs.promises.open(dir, "r").catch(() => undefined);
  if (!d) return;
  await d.sync().catch(() => undefined);
  await d.close().catch(() => undefined);
}

/** A JSON file's value, or undefined when it is missing or does not parse: for files a reader may start over without. */
export function readJsonIfAny<T>(file: string): Promise<T | undefined> {
  return fs.promises.readFile(file, "utf8").then((text) => JSON.parse(text) as T).catch(() => undefined);
}

/** The sha256 (hex) of a file's content, kept so that a damaged file is not read as whole. */
export const digestOf = (content: string | Buffer): string => createHash("sha256").update(content).digest("hex");

/** Why `name` (read from a file of a folder) is not a relative path inside it (absolute, "..", NUL), or undefined. */
export function pathProblem(name: unknown): string | undefined {
  const bad = typeof name !== "string" || name === "" || name.includes("\0") || path.isAbsolute(name) || path.win32.isAbsolute(name) || name.split(/[\\/]/).includes("..");
  return bad ? `${JSON.stringify(name)} is not a path inside the folder` : undefined;
}

/**
 * `folder`/`name`, checked to stay inside `folder`: `name` passes `pathProblem` and no link on the way leads out (the
 * name itself may be one when `end` is "replaced", as a rename or removal replaces it); else a GbrError OUTSIDE.
 */
export async function insideFolder(folder: string, name: string, end: "followed" | "replaced"): Promise<string> {
  const file = path.join(folder, name);
  const problem = pathProblem(name);
  if (problem) throw new GbrError(`${problem} ${folder}`, "OUTSIDE");
  const root = await realOrUndefined(folder);
  if (!root) return file;
  // The deepest part that exists, resolved: any link on the way is followed by the system, so it must stay inside.
  for (let at = end === "followed" ? file : path.dirname(file); ; at = path.dirname(at)) {
    const real = await realOrUndefined(at);
    if (real === undefined && at !== path.dirname(at)) continue;
    if (real !== undefined && real !== root && !real.startsWith(root + path.sep)) {
      throw new GbrError(`${path.relative(folder, at) || "."} leads out of ${folder} (to ${real}): not followed`, "OUTSIDE", {
        hint: `remove the link ${at}, or give --out another folder`,
      });
    }
    return file;
  }
}

/** `op`'s value, or undefined when it fails because the file or folder does not exist. */
export function unlessMissing<T>(op: Promise<T>): Promise<T | undefined> {
  return op.catch((err: NodeJS.ErrnoException) => (err?.code === "ENOENT" ? undefined : Promise.reject(err)));
}

const realOrUndefined = (file: string) => unlessMissing(fs.promises.realpath(file));
