import { printable } from "../util/printable";

/**
 * A pull's messages on stderr, one line each, control characters escaped (a Hub file name is shown, never obeyed).
 * @example
 * await pullHub({ cacheRoot, log: pullLog() });
 */
export function pullLog(stream: NodeJS.WriteStream = process.stderr): (msg: string) => void {
  return (msg) => void stream.write(`${printable(msg)}\n`);
}
