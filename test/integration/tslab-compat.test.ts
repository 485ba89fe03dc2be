import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { REPO } from "../helpers/shared";

// Notebooks import lib/ through tslab, which type-checks with its own TypeScript 5.0 and
// classic Node module resolution; newer syntax or ESM-only imports would break every notebook.
test("lib/ compiles with tslab's TypeScript (5.0, CommonJS, classic node resolution)", () => {
  const tsc = path.join(REPO, "node_modules", "@tslab", "typescript-for-tslab", "lib", "tsc.js");
  const r = spawnSync(
    process.execPath,
    [tsc, "--noEmit", "--target", "ES2022", "--module", "commonjs", "--moduleResolution", "node", "--strict", "--esModuleInterop", "--skipLibCheck", "--types", "node", path.join(REPO, "lib", "index.ts")],
    { encoding: "utf8", cwd: REPO },
  );
  assert.equal(r.status, 0, r.stdout + r.stderr);
});
