/**
 * Prompt sets: the project's own files, and the official ones pulled from a local double of
 * raw.githubusercontent.com serving a synthetic notebook. The notebook is written here (no
 * third-party text): code cells define the nine constants with every literal form the parser
 * must handle, amid code that could fool a naive scanner (decoys in comments, strings and
 * markdown, f-strings with braces, escaped quotes).
 */
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { DownloadError } from "../../lib/util/download";
import { extractPromptsFromNotebook } from "../../lib/llm/notebook-prompts";
import { OFFICIAL_COMMIT, OFFICIAL_NOTEBOOK_PATH, OFFICIAL_REPO, pullOfficialPrompts } from "../../lib/llm/official-prompts";
import { readConfig } from "../../lib/config";
import { extractStringConstants, parsePythonStringLiteral, PythonLiteralError } from "../../lib/llm/python-literals";
import {
  fillPrompt,
  loadPromptSet,
  officialPromptsDir,
  PLACEHOLDERS,
  PROMPT_NAMES,
  PROMPT_PLACEHOLDERS,
  PromptError,
  type PromptName,
} from "../../lib/llm/prompts";
import { digestOf } from "../../lib/util/safe-files";
import { parseDenseRewrite, parseSparseRewrite } from "../../lib/llm/reformulate";
import { startStaticServer, type StaticServer } from "../fakes/static-server";

delete process.env.GBR_GITHUB_RAW_URL;

const FAST = { attempts: 3, backoffMs: 1 };

// ---------------------------------------------------------------------------------------------
// The synthetic notebook. Python source is written with String.raw, so a backslash below is a
// backslash in the Python source.
// ---------------------------------------------------------------------------------------------

const CELL_NOISE = String.raw`import re
%pip install nothing-at-all
!echo don't break the scanner
ARTIFACTS = re.compile(r"NNBSP|\\u202f|[\u202f\u00a0]")
PUNCT = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_{|}~·«»")
# PLANNER_FIRST = "a commented-out decoy"
DECOY = """not a constant:
OBSERVER_USER = "inside a string, must be ignored"
"""
CONFIG = {
    "PLANNER_SYSTEM": "=",
    'x': f"{1+1} = {{braces}}",
}
SPARSE_REWRITE_PROMPT = """Λέξεις-κλειδιά για: "{original_query}"
Μορφή: KEYWORDS: α, β"""
`;

const CELL_CONCAT = String.raw`DENSE_REWRITE_PROMPT = '''Πες το \'ζήτημα\' σε μία παράγραφο.\tΤέλος: \\ {original_query}'''
TRANSLATION_SYSTEM = (
    "You translate Greek "  # first part
    'into English.\n'

    r"Keep \d and \n as typed."
)
TRANSLATION_USER = r"""Type: {text_type} \n id={item_id}
<<<{source_text}>>>"""
`;

const CELL_ESCAPES = String.raw`PLANNER_SYSTEM = "Σχεδιαστής\nα=\u03b1 A=\x41 B=\102 smile=\U0001F600 keep=\d bell=\a"
PLANNER_FIRST = "Πρώτος γύρος: " \
    "{original_query}"
PLANNER_NEXT = "old version {original_query}"
`;

const CELL_LATER = String.raw`PLANNER_NEXT = """{original_query}
Γύρος {round_idx}/{max_rounds}
{query_history}
{kept_docs_summary}"""
OBSERVER_SYSTEM = u"""Κριτής. \
Συνέχεια στην ίδια γραμμή.
RELEVANT: NONE"""
OBSERVER_USER: str = """{original_query}

{retrieved_docs_block}
!Μόνο τα παραπάνω, όχι %άλλα."""  # trailing comment
if PLANNER_NEXT == OBSERVER_USER:
    pass
`;

const CELL_USE = String.raw`def rewrite_all(kind):
    prompt = SPARSE_REWRITE_PROMPT if kind == "sparse" else DENSE_REWRITE_PROMPT
    for qid, original in queries.items():
        raw = chat("Σύστημα αναδιατύπωσης.", prompt.format(original_query=original))
`;

const EXPECTED: Record<PromptName, string> = {
  SPARSE_REWRITE_PROMPT: 'Λέξεις-κλειδιά για: "{original_query}"\nΜορφή: KEYWORDS: α, β',
  DENSE_REWRITE_PROMPT: "Πες το 'ζήτημα' σε μία παράγραφο.\tΤέλος: \\ {original_query}",
  TRANSLATION_SYSTEM: "You translate Greek into English.\nKeep \\d and \\n as typed.",
  TRANSLATION_USER: "Type: {text_type} \\n id={item_id}\n<<<{source_text}>>>",
  PLANNER_SYSTEM: "Σχεδιαστής\nα=α A=A B=B smile=\u{1F600} keep=\\d bell=\x07",
  PLANNER_FIRST: "Πρώτος γύρος: {original_query}",
  PLANNER_NEXT: "{original_query}\nΓύρος {round_idx}/{max_rounds}\n{query_history}\n{kept_docs_summary}",
  OBSERVER_SYSTEM: "Κριτής. Συνέχεια στην ίδια γραμμή.\nRELEVANT: NONE",
  OBSERVER_USER: "{original_query}\n\n{retrieved_docs_block}\n!Μόνο τα παραπάνω, όχι %άλλα.", // "!" starts a line of the string, not a shell escape
};

/** Jupyter stores a cell's source as a list of lines, each keeping its "\n" (or as one string). */
const asLines = (src: string) => src.split(/(?<=\n)/);

function notebook(cells: string[], opts: { singleStringCell?: number } = {}): string {
  const nbCells: object[] = [{ cell_type: "markdown", metadata: {}, source: ["# A synthetic notebook\n", 'PLANNER_NEXT = "markdown is not code"'] }];
  cells.forEach((src, i) => {
    nbCells.push({
      cell_type: "code",
      execution_count: null,
      metadata: {},
      outputs: [],
      source: opts.singleStringCell === i ? src : asLines(src),
    });
    if (i === 2) nbCells.push({ cell_type: "markdown", metadata: {}, source: 'OBSERVER_SYSTEM = "markdown again"' });
  });
  return JSON.stringify({ cells: nbCells, metadata: {}, nbformat: 4, nbformat_minor: 5 }, null, 1);
}

const GOOD = notebook([CELL_NOISE, CELL_CONCAT, CELL_ESCAPES, CELL_LATER, CELL_USE], { singleStringCell: 1 });
const notebookPath = (commit: string) => `/${OFFICIAL_REPO}/${commit}/${OFFICIAL_NOTEBOOK_PATH}`;

// ---------------------------------------------------------------------------------------------

describe("official prompts from a local GitHub double", () => {
  let srv: StaticServer;
  let tmp: string;
  before(async () => {
    srv = await startStaticServer({ [notebookPath(OFFICIAL_COMMIT)]: GOOD });
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-prompts-"));
  });
  after(async () => {
    await srv.close();
    await fs.rm(tmp, { recursive: true, force: true });
  });

  test("pull (through one injected 500) -> load 'official' gives the exact strings", async () => {
    const cacheDir = path.join(tmp, "official");
    srv.fault(notebookPath(OFFICIAL_COMMIT), "500");
    const logs: string[] = [];
    const before = srv.counts.get(notebookPath(OFFICIAL_COMMIT)) ?? 0;
    const { manifest } = await pullOfficialPrompts({ baseUrl: srv.url + "/", cacheDir, download: FAST, log: (m) => logs.push(m) });
    assert.equal((srv.counts.get(notebookPath(OFFICIAL_COMMIT)) ?? 0) - before, 2, "one failed attempt, one retry");
    assert.equal(manifest.commit, OFFICIAL_COMMIT);
    assert.equal(manifest.url, `${srv.url}${notebookPath(OFFICIAL_COMMIT)}`);
    assert.equal(manifest.notebookSha256, digestOf(GOOD));

    const set = loadPromptSet("official", { cacheDir });
    assert.equal(set.name, "official");
    assert.equal(set.commit, OFFICIAL_COMMIT);
    assert.ok(set.source.includes(OFFICIAL_COMMIT), "the source names the commit");
    for (const name of PROMPT_NAMES) {
      assert.equal(set.texts[name], EXPECTED[name], name);
      assert.equal(set.sha256[name], digestOf(EXPECTED[name]), name);
      assert.equal(await fs.readFile(path.join(cacheDir, `${name}.txt`), "utf8"), EXPECTED[name], `${name}.txt on disk`);
    }
    assert.equal(set.extras.REWRITE_SYSTEM, "Σύστημα αναδιατύπωσης.");
    assert.match(manifest.extras.REWRITE_SYSTEM!.foundBy, /code cell/);
    assert.ok(logs.some((l) => l.includes("cached 9 official prompts")));
  });

  test("GBR_GITHUB_RAW_URL (the configuration's githubRawUrl) picks the host; another commit is another path", async () => {
    const commit = "0123456789abcdef0123456789abcdef01234567";
    srv.set(notebookPath(commit), GOOD);
    const config = readConfig({ GBR_GITHUB_RAW_URL: srv.url, GBR_DATA_DIR: path.join(tmp, "env") });
    const cacheDir = officialPromptsDir(config.dataDir);
    const { manifest } = await pullOfficialPrompts({ commit, baseUrl: config.githubRawUrl, cacheDir, download: FAST });
    assert.equal(manifest.commit, commit);
    assert.equal(srv.counts.get(notebookPath(commit)), 1);
    assert.equal(loadPromptSet("official", { cacheDir }).texts.PLANNER_FIRST, EXPECTED.PLANNER_FIRST);
  });

  test("missing or unreadable constants -> one error listing each; the previous cache still loads", async () => {
    const cacheDir = path.join(tmp, "broken");
    await pullOfficialPrompts({ baseUrl: srv.url, cacheDir, download: FAST });
    const commit = "fedcba9876543210fedcba9876543210fedcba98";
    const later = CELL_LATER.replace(/OBSERVER_SYSTEM = u"""/, 'OBSERVER_SYSTEM = f"""').replace(/OBSERVER_USER: str = [\s\S]*?# trailing comment\n/, "");
    srv.set(notebookPath(commit), notebook([CELL_NOISE, CELL_CONCAT + 'TRANSLATION_USER += "!"\n', CELL_ESCAPES, later, CELL_USE]));
    await assert.rejects(
      pullOfficialPrompts({ baseUrl: srv.url, commit, cacheDir, download: FAST }),
      (e: unknown) => {
        assert.ok(e instanceof PromptError);
        assert.equal(e.code, "MISSING_CONSTANTS");
        assert.match(e.message, /lacks 3 of the 9/);
        assert.match(e.message, /TRANSLATION_USER \(code cell 2: changed by an augmented assignment/);
        assert.match(e.message, /OBSERVER_SYSTEM \(code cell 4: an f-string/);
        assert.match(e.message, /OBSERVER_USER \(not assigned in any code cell\)/);
        assert.doesNotMatch(e.message, /PLANNER_NEXT|SPARSE_REWRITE_PROMPT/);
        return true;
      },
    );
    const set = loadPromptSet("official", { cacheDir });
    assert.equal(set.commit, OFFICIAL_COMMIT);
    assert.equal(set.texts.OBSERVER_USER, EXPECTED.OBSERVER_USER);
  });

  test("not pulled -> NOT_PULLED telling to run `gbr prompts pull`; an edited file -> INVALID", async () => {
    assert.throws(
      () => loadPromptSet("official", { cacheDir: path.join(tmp, "never") }),
      (e: unknown) => e instanceof PromptError && e.code === "NOT_PULLED" && /gbr prompts pull/.test(e.message),
    );
    const cacheDir = path.join(tmp, "tampered");
    await pullOfficialPrompts({ baseUrl: srv.url, cacheDir, download: FAST });
    await fs.appendFile(path.join(cacheDir, "PLANNER_SYSTEM.txt"), " edited");
    assert.throws(
      () => loadPromptSet("official", { cacheDir }),
      (e: unknown) => e instanceof PromptError && e.code === "INVALID" && /PLANNER_SYSTEM\.txt: sha256 differs/.test(e.message),
    );
  });

  test("an unknown commit -> DownloadError (HTTP 404) and nothing cached", async () => {
    const cacheDir = path.join(tmp, "missing-commit");
    await assert.rejects(
      pullOfficialPrompts({ baseUrl: srv.url, commit: "a".repeat(40), cacheDir, download: FAST }),
      (e: unknown) => e instanceof DownloadError && e.status === 404,
    );
    assert.throws(() => loadPromptSet("official", { cacheDir }), (e: unknown) => e instanceof PromptError && e.code === "NOT_PULLED");
  });
});

describe("the Python string-literal parser", () => {
  const lit = (src: string) => parsePythonStringLiteral(src, 0).value;

  test("escapes decode as Python decodes them", () => {
    assert.equal(lit(String.raw`"a\\b\'c\"d\ne\tf\rg\vh\fi\bj\ak"`), "a\\b'c\"d\ne\tf\rg\vh\fi\bj\x07k");
    assert.equal(lit(String.raw`'\0\7\101\1011'`), "\0\x07AA1", "octal takes at most three digits");
    assert.equal(lit(String.raw`"\x3a\u03A3\U0001F600"`), ":Σ\u{1F600}");
    assert.equal(lit(String.raw`"keep \d \w \ "`), "keep \\d \\w \\ ", "unknown escapes keep their backslash");
    assert.equal(lit('"""a\\\nb"""'), "ab", "backslash-newline continues the line");
    assert.equal(lit("'''one\n\"two\"\n'three\\''''"), "one\n\"two\"\n'three'", "quotes inside a triple-quoted literal");
  });

  test("raw literals keep backslashes, yet a backslash still protects a quote", () => {
    assert.equal(lit(String.raw`r"\n\d\""`), String.raw`\n\d\"`);
    assert.equal(lit(String.raw`R'''a\'''b'''`), String.raw`a\'''b`);
    assert.equal(lit('r"""x\\\ny"""'), "x\\\ny");
    assert.equal(lit(String.raw`u"\u03b1"`), "α", "u is the same as no prefix");
  });

  test("returns the offset after the closing quotes", () => {
    const src = `x = r"a\\nb" + 'c'`;
    assert.deepEqual(parsePythonStringLiteral(src, 4), { value: "a\\nb", end: 11 });
  });

  test("what cannot be read without Python is refused, with a reason", () => {
    const refuses = (src: string, re: RegExp) => assert.throws(() => lit(src), (e: unknown) => e instanceof PythonLiteralError && re.test(e.message));
    refuses('f"{x}"', /f-string/);
    refuses('rb"x"', /bytes/);
    refuses('"\\N{GREEK SMALL LETTER ALPHA}"', /\\N/);
    refuses('"\\x4"', /hex digits/);
    refuses('"""never closed', /unterminated/);
    refuses('"line\nbreak"', /line break/);
  });

  test("assignments: last wins, `==` and `+=` are not plain assignments, trailing calls are refused", () => {
    const src = 'A = "one"\nA = "two"\nif A == "x":\n    pass\nB = "b".strip()\nC = ("c"\n  "d")\nD = "d"\nD += "e"\nE = A\n';
    const found = extractStringConstants(src, ["A", "B", "C", "D", "E"]);
    assert.deepEqual(found.get("A"), { ok: true, value: "two", offset: src.indexOf('A = "two"') });
    assert.equal(found.get("B")?.ok, false);
    assert.match((found.get("B") as { error: string }).error, /followed by '\.strip\(\)'/);
    assert.deepEqual(found.get("C"), { ok: true, value: "cd", offset: src.indexOf("C = (") });
    assert.match((found.get("D") as { error: string }).error, /augmented/);
    assert.match((found.get("E") as { error: string }).error, /not a string literal/);
  });

  test("the notebook parser needs nbformat 4 JSON", () => {
    assert.throws(() => extractPromptsFromNotebook("{not json"), (e: unknown) => e instanceof PromptError && e.code === "INVALID");
    assert.throws(() => extractPromptsFromNotebook('{"worksheets": []}'), /nbformat 4/);
  });
});

describe("fillPrompt", () => {
  test("substitutes every placeholder, numbers included", () => {
    assert.equal(
      fillPrompt("Γύρος {round_idx} από {max_rounds}\n{original_query}", { round_idx: 2, max_rounds: 10, original_query: "Ο Α μίσθωσε…" }),
      "Γύρος 2 από 10\nΟ Α μίσθωσε…",
    );
  });

  test("a placeholder without a value is an error naming it (all of them)", () => {
    assert.throws(
      () => fillPrompt("{original_query} {query_history} {kept_docs_summary}", { original_query: "x" }),
      (e: unknown) =>
        e instanceof PromptError && e.code === "MISSING_VALUE" && /\{query_history\}, \{kept_docs_summary\}/.test(e.message) && !/original_query/.test(e.message),
    );
    assert.throws(() => fillPrompt("{source_text}", { source_text: undefined }), /no value for placeholder \{source_text\}/);
  });

  test("other braces are left alone, values are not scanned again, extra values are ignored", () => {
    const t = 'JSON: {"doc_id": 1} {} {unknown} {{x}} {original_query}';
    assert.equal(fillPrompt(t, { original_query: "{item_id} {}", item_id: "never", round_idx: 3 }), 'JSON: {"doc_id": 1} {} {unknown} {{x}} {item_id} {}');
    assert.equal(fillPrompt("{custom}", { custom: "ok" }), "ok", "any name given in values is a placeholder");
  });
});

describe("the project's prompt set", () => {
  const set = loadPromptSet();

  test("loads all nine prompts with hashes and the rewrite system message", () => {
    assert.equal(set.name, "project");
    assert.equal(set.commit, undefined);
    for (const name of PROMPT_NAMES) {
      assert.ok(set.texts[name].length > 50, name);
      assert.equal(set.sha256[name], digestOf(set.texts[name]));
      assert.ok(!set.texts[name].endsWith("\n"), `${name}: the final newline of the file is dropped`);
    }
    assert.ok(set.extras.REWRITE_SYSTEM && /[α-ω]/.test(set.extras.REWRITE_SYSTEM));
  });

  test("each prompt has exactly the placeholders its method fills, and no others", () => {
    for (const name of PROMPT_NAMES) {
      const used = new Set([...set.texts[name].matchAll(/\{([A-Za-z_]+)\}/g)].map((m) => m[1]));
      assert.deepEqual([...used].sort(), [...PROMPT_PLACEHOLDERS[name]].sort(), name);
      for (const u of used) assert.ok((PLACEHOLDERS as readonly string[]).includes(u), `${name}: {${u}}`);
    }
  });

  test("output formats and few-shot examples follow the method", () => {
    const t = set.texts;
    assert.match(t.SPARSE_REWRITE_PROMPT, /^KEYWORDS: /m);
    assert.match(t.DENSE_REWRITE_PROMPT, /^QUERY: /m);
    for (const p of [t.PLANNER_SYSTEM, t.PLANNER_FIRST, t.PLANNER_NEXT]) assert.match(p, /^REASON:\n[\s\S]*^QUERY:\n/m);
    for (const p of [t.OBSERVER_SYSTEM, t.OBSERVER_USER]) {
      assert.match(p, /^RELEVANT:\n<doc_id> \| /m);
      assert.match(p, /^RELEVANT: NONE$/m);
    }
    // Same facts, two questions, two different outputs; every sparse example has 20–30 items.
    for (const [prompt, parse] of [
      [t.SPARSE_REWRITE_PROMPT, parseSparseRewrite],
      [t.DENSE_REWRITE_PROMPT, parseDenseRewrite],
    ] as const) {
      assert.equal(prompt.match(/^Πραγματικά περιστατικά:$/gm)?.length, 1, "one set of facts");
      const answers = [...prompt.matchAll(/^Απάντηση [ΑΒ]:\n(.+)$/gm)].map((m) => parse(m[1]));
      assert.equal(answers.length, 2);
      assert.notEqual(answers[0], answers[1]);
      if (parse === parseSparseRewrite) {
        for (const a of answers) {
          const n = a.split(", ").length;
          assert.ok(n >= 20 && n <= 30, `${n} keywords`);
        }
        assert.ok(answers[1].startsWith("άρθρο 314 ΠΚ"), "the explicit citation is kept");
      }
    }
    assert.match(t.TRANSLATION_SYSTEM, /Output the English translation and nothing else/);
  });
});
