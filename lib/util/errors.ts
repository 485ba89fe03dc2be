/** The toolkit's one error family: a stable `code`, a `hint`, `unavailable` (`gbr reproduce` skips, not fails). */
import { printable } from "./printable";

export interface GbrErrorOptions {
  cause?: unknown;
  /** What the user can do about it, in one sentence. */
  hint?: string;
  /** Cannot run here, rather than broken (default: decided by the subclass from its code). */
  unavailable?: boolean;
  /** The message in one short line, for listings that group many errors (what is missing, the setting that fixes it). */
  brief?: string;
}

/** The base of every error the toolkit raises on purpose. */
export class GbrError extends Error {
  /** Stable, for callers to switch on (each subclass documents its codes). */
  readonly code: string;
  /** True when the failure means "cannot run here" (not configured, offline), not a fault. */
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

/** Whether an error means "cannot run here" (a GbrError with `unavailable`). */
export function isUnavailable(err: unknown): boolean {
  return err instanceof GbrError && err.unavailable;
}

/** A problem with input data; the message names the file and, where one exists, the line or id. Code "DATA". */
export class DataError extends GbrError {
  constructor(
    readonly detail: string,
    readonly file?: string,
    readonly line?: number,
  ) {
    // A file's name may hold any character but "/" and NUL: shown escaped, it cannot forge a line of the message.
    super(file ? `${printable(file)}${line !== undefined ? `:${line}` : ""}: ${detail}` : detail, "DATA");
    this.name = "DataError";
  }
}
