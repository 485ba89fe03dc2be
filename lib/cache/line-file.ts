/**
 * Byte-level pieces of an append-only line file: streaming its lines with their offsets (so an
 * index can point into the file instead of holding it), and the writes and syncs that make an
 * appended line durable. Kept apart from the replay records so the crash-safety reasoning sits
 * next to the few calls it is about.
 */
import fs from "node:fs";

/** The line separator byte. */
export const NEWLINE = 0x0a;

/**
 * The file's lines as byte buffers with their start offsets, streamed; the last one has
 * `complete: false` when the file does not end with a newline. Splitting bytes on 0x0A is safe in
 * UTF-8 (the byte never occurs inside a multi-byte character). `from` starts reading at a byte
 * offset (a line start: the end of what an earlier pass read); offsets stay those of the file.
 *
 * @example
 * for await (const { line, start, complete } of readLines("calls.jsonl")) if (complete) index(line, start);
 * for await (const { line, start } of readLines("calls.jsonl", indexedEnd)) index(line, start); // lines added since
 */
export async function* readLines(file: string, from = 0): AsyncGenerator<{ line: Buffer; start: number; complete: boolean }> {
  let pieces: Buffer[] = [];
  let start = from;
  let pos = from;
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20, start: from }) as AsyncIterable<Buffer>) {
    let from = 0;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, from);
      if (nl < 0) break;
      const part = chunk.subarray(from, nl);
      const line = pieces.length ? Buffer.concat([...pieces, part]) : part;
      pieces = [];
      yield { line, start, complete: true };
      start = pos + nl + 1;
      from = nl + 1;
    }
    if (from < chunk.length) pieces.push(chunk.subarray(from));
    pos += chunk.length;
  }
  if (pieces.length) yield { line: Buffer.concat(pieces), start, complete: false };
}

/**
 * Whether a line holds only spaces, tabs and carriage returns (nothing to read).
 *
 * @example
 * isBlank(Buffer.from(" \r")); // true
 */
export function isBlank(line: Buffer): boolean {
  for (const b of line) if (b !== 0x20 && b !== 0x09 && b !== 0x0d) return false;
  return true;
}

/**
 * Writes the whole buffer at the handle's position (the end, for a file opened to append).
 *
 * @example
 * const fh = await fs.promises.open(file, "a");
 * await writeAll(fh, Buffer.from("line\n"));
 */
export async function writeAll(fh: fs.promises.FileHandle, buf: Buffer): Promise<void> {
  // One write(2) for the whole line in practice (regular files); the loop only guards short writes.
  let done = 0;
  while (done < buf.length) {
    const { bytesWritten } = await fh.write(buf, done, buf.length - done);
    done += bytesWritten;
  }
}

/**
 * Syncs a folder, which makes the names of files just created or renamed in it durable.
 *
 * @example
 * await fs.promises.rename(tmp, out);
 * await syncDir(path.dirname(out));
 */
export async function syncDir(dir: string): Promise<void> {
  // Not supported everywhere (Windows cannot open folders): best effort.
  try {
    const d = await fs.promises.open(dir, "r");
    try {
      await d.sync();
    } finally {
      await d.close();
    }
  } catch {
    /* best effort */
  }
}

/**
 * Whether a path exists (any other stat failure, e.g. a permission error, is thrown).
 *
 * @example
 * if (!(await exists(file))) return;
 */
export async function exists(file: string): Promise<boolean> {
  try {
    await fs.promises.stat(file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw err;
  }
}
