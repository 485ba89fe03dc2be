/**
 * What a LanceDB failure is: the Node binding makes every Rust error a plain `Error` (code "GenericFailure"), so its class
 * survives only as the shape of the message; each shape here was seen in LanceDB 0.31 on a damaged table and is tested.
 */
import { GbrError, type GbrErrorOptions } from "../util/errors";

export class VectorStoreError extends GbrError {
  declare readonly code: "DAMAGED" | "FAILED";

  constructor(message: string, code: VectorStoreError["code"], opts: GbrErrorOptions = {}) {
    super(message, code, opts);
    this.name = "VectorStoreError";
  }
}

/** "environment": the files may be fine, the machine is not; "other" (a bad query, a bug) is never taken for damage. */
export type LanceFailure = "missing" | "unreadable" | "environment" | "other";

/** Checked first: a full disk or a permission problem must never be "repaired" by dropping vectors. */
const ENVIRONMENT = [
  /Permission denied|os error 13\b/i,
  /Too many open files|os error 24\b/i,
  /No space left on device|os error 28\b/i,
  /Read-only file system|os error 30\b/i,
  /timed out|error sending request|connection (?:reset|refused|closed)|dns error/i,
];

const MISSING = [/Object at location \S+ not found/i, /\bNot found: \S+/, /No such file or directory|os error 2\b/i];

const UNREADABLE = [
  // Data file or manifest footers that are not Lance's; then files cut short; then garbled metadata.
  /does not appear to be a Lance file|invalid magic/i,
  /Unknown Lance storage version/i,
  /Encountered corrupt file|magic number does not match/i,
  /Invalid range \d+\.\.\d+ for object of size \d+/i,
  /file size is too small|does not have sufficient data/i,
  /failed to decode Protobuf message/i,
  // Some garbled pages make LanceDB 0.31 panic instead of failing (seen only on damaged bytes).
  /panicked with message|Panic in async function|called `Option::unwrap\(\)` on a `None` value/i,
  // Lance's I/O class: every failed read of a file's bytes.
  /LanceError\(IO\)/,
];

export function lanceFailure(err: unknown): LanceFailure {
  const m = err instanceof Error ? err.message : String(err);
  if (ENVIRONMENT.some((re) => re.test(m))) return "environment";
  if (MISSING.some((re) => re.test(m))) return "missing";
  if (UNREADABLE.some((re) => re.test(m))) return "unreadable";
  return "other";
}

/** Damaged or missing files: what a rebuild or a fallback can cure. */
export function isDamage(err: unknown): boolean {
  const kind = lanceFailure(err);
  return kind === "missing" || kind === "unreadable";
}

/** LanceDB's open of a table with no committed version (a writer creating or dropping it): absent, not damage. */
export const noVersion = (err: unknown): boolean => /\bTable '[^']*' was not found\b/.test(err instanceof Error ? err.message : String(err));

/** Whether an error comes from LanceDB's native layer: its `code` is a PascalCase napi status, not "ENOENT" or ours. */
export function fromLanceDb(err: unknown): boolean {
  if (!(err instanceof Error) || err instanceof GbrError) return false;
  const code = (err as { code?: unknown }).code;
  return typeof code === "string" && /^[A-Z][a-z]+(?:[A-Z][a-z]*)*$/.test(code);
}

/** A LanceDB error message without its wrappers, "Caused by" chain and Rust source locations. */
export function lanceReason(err: unknown): string {
  let m = (err instanceof Error ? err.message : String(err)).split(/\s+Caused by:/)[0];
  m = m.replace(/,\s*\/(rustc|usr\/local\/cargo|root\/\.cargo|home\/[^,]*\/\.cargo)\/[^,]*/g, "");
  // The raw bytes a short read got (`bytes: b"\x81\0…"`) say nothing to a reader.
  m = m.replace(/,\s*bytes: b"(?:[^"\\]|\\.)*"/g, "");
  for (;;) {
    // Case-sensitive: "failed to decode Protobuf message:" is the reason, "Failed to get next batch …:" a wrapper.
    const next = m.replace(/^\s*(Failed to [^:]+:|lance error:|LanceError\(\w+\):|GenericFailure,|Generic [\w/ ]*error:|Cloned error:|Invalid user input:)\s*/, "");
    if (next === m) break;
    m = next;
  }
  return m.trim() || "unreadable";
}

/** The command that clears a table (its vectors are embedded again): `rm -rf` for a folder, a delete for a bucket. */
export function clearCommand(where: string): string {
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(where)) return `delete every object under ${where}`;
  return `rm -rf '${where.replace(/'/g, `'\\''`)}'`;
}

export function damaged(message: string, where: string, cause: unknown): VectorStoreError {
  return new VectorStoreError(message, "DAMAGED", { cause, hint: `clear it with ${clearCommand(where)}; its vectors will be embedded again` });
}

/** A LanceDB error as a `VectorStoreError` naming the table and a remedy; the toolkit's own errors pass unchanged. */
export function namedLanceError(where: string, err: unknown): unknown {
  if (!fromLanceDb(err)) return err;
  const reason = lanceReason(err);
  switch (lanceFailure(err)) {
    case "missing":
    case "unreadable":
      return damaged(`vector store: ${where} is damaged (${reason})`, where, err);
    case "environment":
      return new VectorStoreError(`vector store: cannot use ${where} (${reason})`, "FAILED", {
        cause: err,
        hint: "check that it can be read and written and that its disk has free space, then run again",
      });
    default:
      return new VectorStoreError(`vector store: LanceDB failed on ${where} (${reason})`, "FAILED", {
        cause: err,
        hint: `run again; if it fails the same way, clear the table with ${clearCommand(where)} (its vectors will be embedded again)`,
      });
  }
}
