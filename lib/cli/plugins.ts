/** `--require FILE`: a user's modules that register retrievers, loaded before the command resolves retriever names. */
import fs from "node:fs";
import Module, { register } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { CliError } from "./args";

const PACKAGE = "greekbar-retrieval";
const EXTENSIONS = [".js", ".mjs", ".cjs"];

/** Loads each module in order; inside them `greekbar-retrieval` is the package this command runs (the same registry). */
export async function loadPlugins(files: readonly string[]): Promise<void> {
  if (!files.length) return;
  samePackageInside();
  for (const file of files) {
    const full = path.resolve(file);
    if (!EXTENSIONS.includes(path.extname(full))) throw new CliError(`--require ${file}: give a JavaScript module (.js, .mjs or .cjs); compile TypeScript first`, 2);
    if (!fs.existsSync(full)) throw new CliError(`--require ${file}: no such file (${full})`, 2);
    try {
      await import(pathToFileURL(full).href);
    } catch (err) {
      // A CommonJS syntax error's stack opens with the place (file:line); say it.
      const at = /^\S+:\d+$/.exec(String((err as Error).stack).split("\n")[0])?.[0];
      throw new CliError(`--require ${file}: the module failed to load: ${(err as Error).message ?? String(err)}${at ? ` (at ${at})` : ""}`);
    }
  }
}

let redirected = false;

/** `greekbar-retrieval`, required or imported from any module after this, is the package this code belongs to. */
function samePackageInside(): void {
  if (redirected) return;
  redirected = true;
  const face = require.resolve("../index");
  const cjs = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
  const resolve = cjs._resolveFilename;
  cjs._resolveFilename = function (this: unknown, request, ...rest) {
    return request === PACKAGE ? face : resolve.call(this, request, ...rest);
  };
  // For import, a module that hands on the face as loaded here (from the sources through tsx, or the build).
  const names = Object.keys(require(face) as object);
  const source = `import { createRequire } from "node:module";
const face = createRequire(${JSON.stringify(face)})(${JSON.stringify(face)});
export const { ${names.join(", ")} } = face;
export default face;`;
  const hooks = `let url; export function initialize(data) { url = data; }
export function resolve(specifier, context, next) { return specifier === ${JSON.stringify(PACKAGE)} ? { url, shortCircuit: true } : next(specifier, context); }`;
  register(`data:text/javascript,${encodeURIComponent(hooks)}`, { data: `data:text/javascript,${encodeURIComponent(source)}` });
}
