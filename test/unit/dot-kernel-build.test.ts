import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { REPO } from "../helpers/shared";

// The committed WebAssembly kernel must be exactly what its generator produces, so the WAT
// template in scripts/ is the one place to read and change it.
test("lib/dense/dot-kernel-wasm.ts is what scripts/build-dot-kernel.js generates", () => {
  const r = spawnSync(process.execPath, [path.join(REPO, "scripts", "build-dot-kernel.js"), "--check"], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
});
