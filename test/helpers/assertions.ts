import assert from "node:assert/strict";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { DataError } from "../../lib/util/errors";

/**
 * A validator for `assert.throws` / `assert.rejects`: a DataError naming `file` and `line`
 * (undefined: no line), whose message starts "<file>[:<line>]: " and whose detail matches `rest`.
 *
 * @example
 * await assert.rejects(readBeir(dir), dataErrorAt(qrelsOf(dir), 3, /not a plain integer/));
 */
export function dataErrorAt(file: string, line: number | undefined, rest: RegExp): (err: unknown) => true {
  return (err: unknown) => {
    assert.ok(err instanceof DataError, `expected a DataError, got ${String(err)}`);
    assert.equal(err.file, file);
    assert.equal(err.line, line, err.message);
    assert.ok(err.message.startsWith(line === undefined ? `${file}: ` : `${file}:${line}: `), err.message);
    assert.match(err.detail, rest);
    return true;
  };
}

/**
 * Every file below `dir` (none when it does not exist), recursively.
 *
 * @example
 * for (const f of filesUnder(out)) assert.ok(!readFileSync(f, "utf8").includes(SECRET), f);
 */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}
