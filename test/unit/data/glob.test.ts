/**
 * Issue 29, row 9: a dataset card's globs were matched by a backtracking regular expression (`*a`×8 `*b` against a
 * 60-character name took 142 s) and `[z-a]x` threw a raw SyntaxError. The matcher is linear now and a malformed class
 * is a DataError naming the card and the pattern.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { compileGlob, matchGlob } from "../../../lib/data/glob";
import { resolveDataFiles } from "../../../lib/data/dataset-card";
import { dataErrorAt } from "../../helpers/assertions";

/** The reference: the glob as a regular expression, the plain way (fine for small patterns and names). */
function reference(glob: string, name: string): boolean {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*") {
      if (glob[i + 1] === "*") {
        i++;
        if (glob[i + 1] === "/") {
          i++;
          re += "(?:.*/)?";
        } else re += ".*";
      } else re += "[^/]*";
    } else if (c === "?") re += "[^/]";
    else if (c === "[") {
      const end = glob.indexOf("]", i + 1);
      if (end < 0) re += "\\[";
      else {
        re += `(?!/)[${glob.slice(i + 1, end).replace(/^!/, "^")}]`;
        i = end;
      }
    } else re += c.replace(/[.+^${}()|\\\]]/g, "\\$&");
  }
  return new RegExp(`^${re}$`, "s").test(name);
}

test("the linear matcher agrees with a regular expression on random small globs and names", async () => {
  const fc = (await import("fast-check")).default;
  const globPart = fc.constantFrom("a", "b", "/", ".", "*", "**", "**/", "?", "[ab]", "[!a]", "[a-c]", "[-a]", "[a-]", "[", "]");
  const namePart = fc.constantFrom("a", "b", "c", "/", ".", "-", "[", "]");
  fc.assert(
    fc.property(fc.array(globPart, { maxLength: 8 }), fc.array(namePart, { maxLength: 10 }), (g, n) => {
      const glob = g.join("");
      const name = n.join("");
      let steps;
      try {
        steps = compileGlob(glob);
      } catch (e) {
        // An empty class is refused (the regular expression would match nothing); its own test is below.
        assert.match((e as Error).message, /has no character/);
        return;
      }
      assert.equal(matchGlob(steps, name), reference(glob, name), `${glob} against ${name}`);
    }),
    { numRuns: 3000 },
  );
});

test("many stars against a long name that nearly matches take milliseconds, not minutes", () => {
  const siblings = [{ rfilename: "a".repeat(60) }, { rfilename: `${"a".repeat(59)}b` }];
  const started = performance.now();
  const got = resolveDataFiles("corpus", [{ split: "test", patterns: ["*a".repeat(12) + "*b"] }], siblings);
  assert.deepEqual(got, [`${"a".repeat(59)}b`]);
  assert.ok(performance.now() - started < 1000, `${performance.now() - started} ms`);
});

test("a malformed class is a DataError naming the card and the pattern", () => {
  const siblings = [{ rfilename: "zx" }];
  for (const [pattern, why] of [
    ["[z-a]x", /the range z-a of \[z-a\] ends before it starts/],
    ["[]x", /the class \[\] has no character/],
    ["[!]x", /the class \[!\] has no character/],
  ] as const) {
    assert.throws(
      () => resolveDataFiles("corpus", [{ split: "test", patterns: [pattern] }], siblings, "card/README.md"),
      dataErrorAt("card/README.md", undefined, new RegExp(`config 'corpus' names the pattern '${pattern.replace(/[[\]!]/g, "\\$&")}', which is malformed: ${why.source}`)),
    );
  }
});
