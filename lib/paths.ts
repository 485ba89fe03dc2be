import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import { allowStaleBuild, INSTALLED, PACKAGE_ROOT, readConfig, type Config } from "./config";

// Through symlinks (notebooks/lib); BUILD.json beside it means the compiled build/lib rather than the sources.
const HERE = realpathSync(__dirname);
const BUILD_RECORD = "BUILD.json";
const COMPILED = existsSync(path.join(HERE, BUILD_RECORD));

export { INSTALLED, PACKAGE_ROOT };

/** Files of lib/ changed, added or removed since build/lib was compiled; none when current or without sources (installed). */
export function staleSources(record: string, libDir: string): string[] {
  const built = (JSON.parse(readFileSync(record, "utf8")) as { sources: Record<string, string> }).sources;
  const now = new Map<string, string>();
  const walk = (dir: string, rel: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(dir, e.name), r);
      else if (e.name.endsWith(".ts")) now.set(r, createHash("sha256").update(readFileSync(path.join(dir, e.name))).digest("hex").slice(0, 16));
    }
  };
  if (existsSync(libDir)) walk(libDir, "");
  if (now.size === 0) return [];
  const stale = [...now].filter(([f, h]) => built[f] !== h).map(([f]) => f);
  return [...stale, ...Object.keys(built).filter((f) => !now.has(f))].sort();
}

// A stale build would print numbers `gbr` (which runs the sources) does not: refuse before anything is computed.
if (COMPILED && !allowStaleBuild()) {
  const stale = staleSources(path.join(HERE, BUILD_RECORD), path.join(PACKAGE_ROOT, "lib"));
  if (stale.length) {
    const shown = stale.slice(0, 5).map((f) => `lib/${f}`).join(", ") + (stale.length > 5 ? ` and ${stale.length - 5} more` : "");
    throw new Error(
      `the notebooks run lib/ compiled in build/lib, and ${shown} changed since it was built: ` +
        `run \`npm run build\` in ${PACKAGE_ROOT} (a few seconds), then restart the kernel`,
    );
  }
}

/** The bundled demo set (always inside the package). */
export const SAMPLE_DIR = path.join(PACKAGE_ROOT, "data", "sample");

/** The configuration of a library user who passes none: the environment's, read at the face's entries and passed down. */
export function environmentConfig(): Config {
  return readConfig();
}
