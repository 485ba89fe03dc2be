// node:test reporter used by scripts/run-tests.js next to the readable (spec or tap) one. It
// prints nothing for people: it writes one JSON line per skipped or todo test to its
// destination file, and the runner decides from those lines whether the run passed (see the
// opt-out rule in run-tests.js's header). Deciding in the runner rather than here keeps this
// file free of policy and lets the runner fail closed when the file is missing.
//
// A line: {"file":"/abs/x.test.ts","name":"suite > test","leaf":"test","kind":"skip","reason":"…"}
// where reason is the string given to skip/todo, or null for a bare `skip: true`, `.skip()`.
// No line number: under tsx, node reports positions in the transpiled code, not the source.

/**
 * The reporter: node calls it with the run's event stream and writes what it yields to the
 * destination file.
 *
 * @example
 * // node --test --test-reporter=./scripts/skip-reporter.mjs --test-reporter-destination=skips.jsonl x.test.ts
 */
export default async function* skipReporter(source) {
  // Tests finish after their subtests, so a subtest's ancestors are known only later: skipped
  // entries wait per file, and each test that finishes prefixes its name to the entries deeper
  // than itself. An entry is complete once a top-level test (nesting 0) has claimed it.
  const waiting = new Map();
  for await (const event of source) {
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    const d = event.data;
    const file = d.file ?? "(unknown file)";
    let list = waiting.get(file);
    if (!list) waiting.set(file, (list = []));
    for (const entry of list) {
      if (entry.level > d.nesting) {
        entry.names.unshift(d.name);
        entry.level = d.nesting;
      }
    }
    const kind = d.skip !== undefined && d.skip !== false ? "skip" : d.todo !== undefined && d.todo !== false ? "todo" : undefined;
    if (kind) {
      const reason = kind === "skip" ? d.skip : d.todo;
      list.push({ file, names: [d.name], level: d.nesting, kind, reason: typeof reason === "string" ? reason : null });
    }
    if (d.nesting === 0) {
      for (const entry of list) yield line(entry);
      waiting.delete(file);
    }
  }
  // Only a crashed file leaves entries unclaimed; they still count.
  for (const list of waiting.values()) for (const entry of list) yield line(entry);
}

function line(entry) {
  const leaf = entry.names[entry.names.length - 1];
  return JSON.stringify({ file: entry.file, name: entry.names.join(" > "), leaf, kind: entry.kind, reason: entry.reason }) + "\n";
}
