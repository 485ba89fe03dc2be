/** A file read in pieces cut at line ends, no line longer than a limit: the one line reader of data files and the store's import. */
import { createReadStream } from "node:fs";
import { constants as bufferConstants } from "node:buffer";
import { DataError } from "./errors";

/** The longest line read by default, in bytes: V8's string limit in characters, so one line always fits one string. */
export const MAX_LINE_BYTES = bufferConstants.MAX_STRING_LENGTH;

export interface LinePieceOptions {
  pieceBytes: number;
  maxLineBytes?: number;
  /** The 1-based line the next piece starts at, as the caller counts: it names the line that is too long. */
  line: () => number;
}

/**
 * The file's bytes in pieces ending at a line end (the last maybe not); a line past `maxLineBytes` is a DataError naming
 * the file and line, raised while its bytes are counted (V8 would abort on the string, not throw).
 */
export async function* linePieces(file: string, opts: LinePieceOptions): AsyncGenerator<Buffer> {
  const max = opts.maxLineBytes ?? MAX_LINE_BYTES;
  // Bytes after the last line end so far; a line longer than a read gathers reads without copying them again.
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const withPending = (part: Buffer) => (pending.length ? Buffer.concat([...pending, part]) : part);
  try {
    for await (const chunk of createReadStream(file, { highWaterMark: opts.pieceBytes }) as AsyncIterable<Buffer>) {
      // Only when the gathered bytes and this read could hold a line past the limit is it worth finding the lines.
      if (pendingBytes + chunk.length > max) {
        let start = 0;
        let before = pendingBytes;
        for (;;) {
          const nl = chunk.indexOf(0x0a, start);
          const end = nl < 0 ? chunk.length : nl;
          if (before + end - start > max) {
            if (start > 0) yield withPending(chunk.subarray(0, start));
            throw new DataError(
              `the line is longer than ${max.toLocaleString("en-US")} bytes, more than one JavaScript string holds ` +
                `(V8's limit is ${MAX_LINE_BYTES.toLocaleString("en-US")} characters): split the text into lines or records`,
              file,
              opts.line(),
            );
          }
          if (nl < 0) break;
          before = 0;
          start = nl + 1;
        }
      }
      const cut = chunk.lastIndexOf(0x0a) + 1;
      if (cut === 0) {
        pending.push(chunk);
        pendingBytes += chunk.length;
        continue;
      }
      // The gathered line alone, so that no piece is longer than the longest line or one read.
      const first = pending.length ? chunk.indexOf(0x0a) + 1 : cut;
      yield withPending(chunk.subarray(0, first));
      if (first < cut) yield chunk.subarray(first, cut);
      pending = cut < chunk.length ? [chunk.subarray(cut)] : [];
      pendingBytes = chunk.length - cut;
    }
  } catch (err) {
    if (err instanceof DataError) throw err;
    throw new DataError(`cannot read file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, file);
  }
  if (pending.length) yield Buffer.concat(pending);
}
