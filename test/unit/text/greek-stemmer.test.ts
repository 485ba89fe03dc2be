import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { createCachedStemmer, stem } from "../../../lib/text/greek-stemmer";

// The oracles live next to the repository (/work/shared beside /work/main), not inside it.
const SHARED = path.resolve(__dirname, "..", "../../../shared/oracles");
const ORACLES = [
  path.join(SHARED, "greeklaws-2021/greekstemmer.tsv"),
  path.join(SHARED, "greeklaws-2022/greekstemmer.tsv"),
];
const EXTRA = path.resolve(__dirname, "..", "../fixtures/greekstemmer-extra.tsv");

function readPairs(file: string): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const tab = line.indexOf("\t");
    assert.ok(tab >= 0, `malformed line in ${file}: ${JSON.stringify(line)}`);
    pairs.push([line.slice(0, tab), line.slice(tab + 1)]);
  }
  return pairs;
}

function assertAgrees(t: TestContext, file: string, expectedLines?: number): void {
  const pairs = readPairs(file);
  if (expectedLines !== undefined) assert.equal(pairs.length, expectedLines, `line count of ${file}`);
  const mismatches: string[] = [];
  for (const [token, expected] of pairs) {
    const got = stem(token);
    if (got !== expected) mismatches.push(`${token}\texpected ${expected}\tgot ${got}`);
  }
  const agreement = (100 * (pairs.length - mismatches.length)) / pairs.length;
  const summary = `${path.basename(path.dirname(file))}/${path.basename(file)}: ${agreement.toFixed(3)}% ` +
    `(${pairs.length - mismatches.length}/${pairs.length})`;
  t.diagnostic(summary);
  assert.equal(mismatches.length, 0, `${summary}; first mismatches:\n${mismatches.slice(0, 20).join("\n")}`);
}

test("agrees with the greeklaws-2021 oracle on every line", (t) => {
  assertAgrees(t, ORACLES[0], 36903);
});

test("agrees with the greeklaws-2022 oracle on every line", (t) => {
  assertAgrees(t, ORACLES[1], 35180);
});

test("agrees with the reference on words absent from both oracles", (t) => {
  assertAgrees(t, EXTRA);
});

test("words shorter than three characters are returned unchanged", () => {
  for (const w of ["", "Α", "ΟΙ", "ΤΑ", "ΕΣ"]) assert.equal(stem(w), w);
});

test("words with any non-Greek character are returned unchanged", () => {
  for (const w of ["ΑΡΘΡΟ5", "2021", "ΝΟΜΟΣ-ΠΛΑΙΣΙΟ", "ARTICLE", "ΆΡΘΡΟΥ", "ΑΡΘΡΟΥ_Β"]) {
    assert.equal(stem(w), w);
  }
});

test("protected function words are returned unchanged", () => {
  for (const w of ["ΕΠΙΣΗΣ", "ΩΣΤΟΣΟ", "ΜΕΤΑΞΥ", "ΠΑΡΑ", "ΓΡΑΜΜΑ"]) assert.equal(stem(w), w);
});

test("representative rules", () => {
  const cases: Array<[string, string]> = [
    ["ΑΓΩΓΗ", "ΑΓΩΓ"], // generic ending
    ["ΔΙΚΑΣΤΗΡΙΟΥ", "ΔΙΚΑΣΤΗΡ"], // step 3
    ["ΓΡΑΜΜΑΤΑ", "ΓΡΑΜΜΑ"], // step 6a special stem
    ["ΦΩΣ", "ΦΩ"], // step-1 exception consuming the whole word
    ["ΠΑΛΙΑ", "ΠΑΛΑ"], // same-length rewrite still gets the generic pass
    ["ΑΓΑΜΕ", "ΑΓΑΜ"], // one-word special case
  ];
  for (const [w, s] of cases) assert.equal(stem(w), s, w);
});

test("the cached stemmer returns the same stems", () => {
  const cached = createCachedStemmer();
  for (const w of ["ΑΓΩΓΕΣ", "ΑΓΩΓΕΣ", "ΕΠΙΣΗΣ", "ΑΡΘΡΟ5"]) assert.equal(cached(w), stem(w));
});
