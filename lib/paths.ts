import { realpathSync } from "node:fs";
import path from "node:path";

/**
 * Root of the installed package, so defaults do not depend on the working directory. Resolved
 * through symlinks: notebooks reach lib/ through the link notebooks/lib (tslab only compiles
 * files under the kernel's folder), and __dirname then names the link, not the package.
 */
export const PACKAGE_ROOT = path.resolve(realpathSync(__dirname), "..");

/** The bundled demo set (always inside the package). */
export const SAMPLE_DIR = path.join(PACKAGE_ROOT, "data", "sample");

/**
 * Root of every download cache (Hub dataset, spaCy tables, …): `GBR_DATA_DIR` when set,
 * otherwise `<package>/data`. Read at call time so tests and scripts can redirect it.
 *
 * @example
 * path.join(dataDir(), "hf"); // "/…/greekbar-retrieval/data/hf"
 */
export function dataDir(): string {
  return process.env.GBR_DATA_DIR ? path.resolve(process.env.GBR_DATA_DIR) : path.join(PACKAGE_ROOT, "data");
}
