import { printable } from "../util/printable";

/**
 * A pull's messages on stderr, one line each: a file name from the Hub is shown, never obeyed (control characters as
 * escapes).
 *
 * @example
 * await pullHub({ cacheRoot, log: pullLog() });
 */
export function pullLog(stream: NodeJS.WriteStream = process.stderr): (msg: string) => void {
  return (msg) => void stream.write(`${printable(msg)}\n`);
}
