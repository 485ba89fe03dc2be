/** fsspec-style globs of a dataset card's `data_files`, matched in linear time (no backtracking); pure. */

/** One step of a compiled glob: a character passing `test`, any number (`star`), or a fork to `skipTo` (`**\/`). */
type Step = { test: (c: string) => boolean; star: boolean; skipTo?: number };

const notSlash = (c: string) => c !== "/";
const any = () => true;

/**
 * Compiles a glob: `*` (not `/`), `**`, `**\/` (any folders or none), `?`, `[a-z]`, `[!a]`; a `[` without `]` is itself.
 * @example
 * matchGlob(compileGlob("data/**\/corpus-*.parquet"), "data/x/corpus-0.parquet") // true
 */
export function compileGlob(glob: string): Step[] {
  const g = Array.from(glob);
  const steps: Step[] = [];
  for (let i = 0; i < g.length; i++) {
    const c = g[i];
    if (c === "*") {
      if (g[i + 1] === "*") {
        i++;
        if (g[i + 1] === "/") {
          i++;
          const fork: Step = { test: () => false, star: false, skipTo: steps.length + 3 };
          steps.push(fork, { test: any, star: true }, { test: (x) => x === "/", star: false });
        } else steps.push({ test: any, star: true });
      } else steps.push({ test: notSlash, star: true });
    } else if (c === "?") steps.push({ test: notSlash, star: false });
    else if (c === "[") {
      const end = g.indexOf("]", i + 1);
      if (end < 0) steps.push({ test: (x) => x === "[", star: false });
      else {
        steps.push({ test: classTest(g.slice(i + 1, end)), star: false });
        i = end;
      }
    } else steps.push({ test: (x) => x === c, star: false });
  }
  return steps;
}

/** The test of a class body (between `[` and `]`): members and ranges, negated by a leading `!`. */
function classTest(body: string[]): (c: string) => boolean {
  const negated = body[0] === "!";
  const items = negated ? body.slice(1) : body;
  if (items.length === 0) throw new Error(`the class [${body.join("")}] has no character`);
  const ranges: [number, number][] = [];
  for (let k = 0; k < items.length; k++) {
    const lo = items[k].codePointAt(0)!;
    if (items[k + 1] === "-" && k + 2 < items.length) {
      const hi = items[k + 2].codePointAt(0)!;
      if (hi < lo) throw new Error(`the range ${items[k]}-${items[k + 2]} of [${body.join("")}] ends before it starts`);
      ranges.push([lo, hi]);
      k += 2;
    } else ranges.push([lo, lo]);
  }
  return (c) => {
    if (c === "/") return false;
    const p = c.codePointAt(0)!;
    return ranges.some(([lo, hi]) => p >= lo && p <= hi) !== negated;
  };
}

/**
 * Whether the whole of `name` matches, in one pass over a set of positions (a regular expression would backtrack).
 * @example
 * matchGlob(compileGlob("*.parquet"), "corpus.parquet") // true
 */
export function matchGlob(steps: readonly Step[], name: string): boolean {
  const m = steps.length;
  let at = closure(steps, new Uint8Array(m + 1), 0);
  for (const c of name) {
    const next = new Uint8Array(m + 1);
    let some = false;
    for (let i = 0; i < m; i++) {
      if (!at[i] || !steps[i].test(c)) continue;
      next[steps[i].star ? i : i + 1] = 1;
      some = true;
    }
    if (!some) return false;
    at = closure(steps, next);
  }
  return at[m] === 1;
}

/** Adds every position reachable with no character: past a star (zero of it) and on from a fork. */
function closure(steps: readonly Step[], at: Uint8Array, start?: number): Uint8Array {
  if (start !== undefined) at[start] = 1;
  for (let i = 0; i < steps.length; i++) {
    if (!at[i]) continue;
    const skip = steps[i].skipTo;
    if (steps[i].star || skip !== undefined) at[i + 1] = 1;
    if (skip !== undefined) at[skip] = 1;
  }
  return at;
}
