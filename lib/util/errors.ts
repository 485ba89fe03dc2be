/** The toolkit's one error family: a stable `code`, a `hint`, `unavailable` (`gbr reproduce` skips, not fails). */
import { printable } from "./printable";

export interface GbrErrorOptions {
  cause?: unknown;
  /** What the user can do about it, in one sentence. */
  hint?: string;
  unavailable?: boolean;
  /** The message in one short line, for listings that group many errors. */
  brief?: string;
}

export class GbrError extends Error {
  readonly code: string;
  /** "Cannot run here" (not configured, offline), not a fault. */
  readonly unavailable: boolean;
  readonly hint?: string;
  readonly brief?: string;

  constructor(message: string, code: string, opts: GbrErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = "GbrError";
    this.code = code;
    this.unavailable = opts.unavailable ?? false;
    if (opts.hint !== undefined) this.hint = opts.hint;
    if (opts.brief !== undefined) this.brief = opts.brief;
  }
}

export function isUnavailable(err: unknown): boolean {
  return err instanceof GbrError && err.unavailable;
}

/**
 * What `parse` returns; if it throws, the error `fail` makes of its message (a parser's error names no file or line).
 *
 * @example
 * const value = parsedOr(() => JSON.parse(text), (why) => new DataError(`malformed JSON (${why})`, file));
 */
export function parsedOr<T>(parse: () => T, fail: (message: string) => Error): T {
  try {
    return parse();
  } catch (err) {
    throw fail((err as Error).message);
  }
}

/** A problem with input data; the message names the file and, where one exists, the line or id. Code "DATA". */
export class DataError extends GbrError {
  constructor(readonly detail: string, readonly file?: string, readonly line?: number) {
    // A file's name may hold any character but "/" and NUL: shown escaped, it cannot forge a line of the message.
    super(file ? `${printable(file)}${line !== undefined ? `:${line}` : ""}: ${detail}` : detail, "DATA");
    this.name = "DataError";
  }
}

const WRITE_FAULTS: Readonly<Record<string, string>> = {
  ENOSPC: "no space left on the disk holding",
  EDQUOT: "the disk quota is exhausted for",
  EROFS: "a read-only file system holds",
  EACCES: "no permission to write to",
  EPERM: "no permission to write to",
};

/** A write the disk refused as a GbrError naming the folder and the setting that moves it; other errors pass unchanged. */
export function writeFault(err: unknown, folder: string, setting: string): unknown {
  if (err instanceof GbrError) return err;
  const code = (err as NodeJS.ErrnoException)?.code ?? "";
  const what = WRITE_FAULTS[code];
  if (!what) return err;
  const full = code === "ENOSPC" || code === "EDQUOT";
  return new GbrError(`${what} ${folder} (${code})`, full ? "DISK_FULL" : "UNWRITABLE", {
    cause: err,
    hint: `${full ? "free some space there" : "make it writable"} (or give ${setting} another folder), then run again`,
  });
}
