import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { REPO } from "../../helpers/shared";

// The committed WebAssembly kernels must be exactly what their generators produce, so the WAT
// templates in scripts/ are the one place to read and change them.
for (const [script, file] of [
  ["build-dot-kernel.js", "lib/dense/dot-kernel-wasm.ts"],
  ["build-gather-kernel.js", "lib/numeric/gather-kernel-wasm.ts"],
  ["build-sign-kernel.js", "lib/numeric/sign-kernel-wasm.ts"],
]) {
  test(`${file} is what scripts/${script} generates`, () => {
    const r = spawnSync(process.execPath, [path.join(REPO, "scripts", script), "--check"], { encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
  });
}
