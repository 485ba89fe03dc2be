/**
 * spaCy lexicon download/cache/offline behaviour against a local HTTP double, and the two
 * spaCy-style tokenizers on small synthetic tables written in the published formats.
 * The word lists below are made up for the tests; spaCy's own lists are never copied here.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DownloadError } from "../../lib/util/download";
import { DataError } from "../../lib/util/errors";
import {
  loadSpacyLexicon,
  spacyLoader,
  SPACY_FILES,
  type LoadSpacyLexiconOptions,
  type SpacyUpstreamFile,
} from "../../lib/data/spacy-tables";

const upstreamPath = (f: SpacyUpstreamFile): string => `/${f.path}`;
import { readConfig } from "../../lib/config";
import { parseStopWordsPy } from "../../lib/data/spacy-table-parsers";
import type { SpacyLang, SpacyLexicon } from "../../lib/text/spacy-lexicon";
import { spacyEnglishTokenizer, spacyGreekTokenizer } from "../../lib/text/spacy-tokenizers";
import { startStaticServer, type StaticServer } from "../fakes/static-server";

// ---- synthetic upstream files, same shapes as spacy-lookups-data and spaCy's stop_words.py ----

const EL_INDEX = JSON.stringify(
  {
    adj: ["άκυρος", "νόμιμος", "έγγραφος"],
    adv: ["εγγράφως"],
    noun: ["εκμισθωτής", "μισθωτής", "μίσθιο", "σύμβαση", "πώληση", "δικαστήριο", "αγωγή", "άρθρο", "ακίνητο", "ενοίκιο"],
    verb: ["υποχρεούμαι", "παραδίδω", "δέχομαι", "έχω", "ασκώ"],
  },
  null,
  4,
);
const EL_EXC = JSON.stringify(
  {
    verb: { "υποχρεούται": ["υποχρεούμαι"], "παραδώσει": ["παραδίδω"], "είχαμε": ["έχω"], "είναι": ["είμαι"] },
    det: { "της": ["η"], "οι": ["ο", "η"] },
    propn: { "Πειραιώς": ["Πειραιάς"] },
  },
  null,
  4,
);
const EL_RULES = JSON.stringify(
  {
    adj: [["η", "ος"], ["ο", "ος"], ["μένου, μένος"]],
    noun: [["ή", "ής"], ["ες", "ας"], ["εως", "η"], ["ου", "ο"]],
    verb: [["εται", "ομαι"], ["ει", "ω"]],
    punct: [["“", '"']],
  },
  null,
  4,
);
const EL_STOP = `# Stop words (synthetic test list)
# Link: "not a string" and 'neither' — comments are skipped

STOP_WORDS = set(
    """
αλλά απ από για
είμαι είναι η
να ο όλους
στον την της το
"""
.split()
)
`;
const EN_LOOKUP = JSON.stringify(
  {
    "'s": "have",
    Americans: "American",
    buildings: "building",
    claims: "claim",
    considering: "consider",
    courts: "court",
    did: "do",
    is: "be",
    known: "know",
    leased: "lease",
    were: "be",
  },
  null,
  4,
);
const EN_STOP = `# Stop words

STOP_WORDS = set(
    """
a an and be but can do

it not the well will
"""
.split()
)

contractions = ["n't", "'d", "'ll", "'m", "'re", "'s", "'ve"]
STOP_WORDS.update(contractions)

for apostrophe in ["‘", "’"]:
    for stopword in contractions:
        STOP_WORDS.add(stopword.replace("'", apostrophe))
`;

const BODY: Record<string, string> = {
  el_lemma_index: EL_INDEX,
  el_lemma_exc: EL_EXC,
  el_lemma_rules: EL_RULES,
  en_lemma_lookup: EN_LOOKUP,
};
function servedFiles(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const lang of ["el", "en"] as const) {
    for (const f of SPACY_FILES[lang]) {
      const base = path.posix.basename(f.path).replace(/\.json$/, "");
      out[upstreamPath(f)] = f.role === "stop_words" ? (lang === "el" ? EL_STOP : EN_STOP) : BODY[base];
    }
  }
  return out;
}
const pathOf = (lang: SpacyLang, file: string) => upstreamPath(SPACY_FILES[lang].find((f) => f.path.endsWith(file))!);
const sha = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

let srv: StaticServer;
let tmpRoot: string;
let n = 0;
const freshDir = () => path.join(tmpRoot, `cache-${++n}`);
const FAST = { attempts: 2, backoffMs: 1, timeoutMs: 5_000 };
const opts = (cacheDir: string, extra: Partial<LoadSpacyLexiconOptions> = {}): LoadSpacyLexiconOptions => ({
  cacheDir,
  baseUrl: srv.url,
  download: FAST,
  ...extra,
});

before(async () => {
  tmpRoot = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-spacy-"));
  srv = await startStaticServer(servedFiles());
});
after(async () => {
  await srv.close();
  await fs.rm(tmpRoot, { recursive: true, force: true });
});

/** Requests made while `fn` runs, per path. */
async function requestsDuring(fn: () => Promise<unknown>): Promise<Map<string, number>> {
  const before = new Map(srv.counts);
  await fn();
  const out = new Map<string, number>();
  for (const [p, c] of srv.counts) if (c !== (before.get(p) ?? 0)) out.set(p, c - (before.get(p) ?? 0));
  return out;
}

describe("loadSpacyLexicon: download, cache, offline", () => {
  test("first load downloads each file once, records sizes and sha256 in manifest.json", async () => {
    const dir = freshDir();
    let lex: SpacyLexicon | undefined;
    const reqs = await requestsDuring(async () => (lex = await loadSpacyLexicon("el", opts(dir))));
    assert.deepEqual([...reqs.values()], [1, 1, 1, 1]);
    assert.deepEqual(new Set(reqs.keys()), new Set(SPACY_FILES.el.map(upstreamPath)));

    const manifest = JSON.parse(await fs.readFile(path.join(dir, "el", "manifest.json"), "utf8"));
    const entry = manifest.files["spacy-lookups-data@v1.0.5/el_lemma_index.json"];
    assert.equal(entry.sha256, sha(EL_INDEX));
    assert.equal(entry.size, Buffer.byteLength(EL_INDEX));
    assert.equal(entry.url, srv.url + pathOf("el", "el_lemma_index.json"));
    assert.equal(await fs.readFile(path.join(dir, "el", "spaCy@v3.8.7", "stop_words.py"), "utf8"), EL_STOP);

    assert.equal(lex!.lang, "el");
    assert.ok(lex!.greek!.index.get("noun")!.has("σύμβαση"));
    assert.deepEqual(lex!.greek!.rules.get("adj"), [["η", "ος"], ["ο", "ος"]], "malformed rule entries are skipped");
    assert.equal(lex!.lemma.get("πειραιώς"), "Πειραιάς", "exception keys are lower-cased");
    assert.equal(lex!.stopwords.size, 14);
    assert.ok(lex!.stopwords.has("αλλά"));
  });

  test("second load makes zero requests and gives the same lexicon", async () => {
    const dir = freshDir();
    const first = await loadSpacyLexicon("en", opts(dir));
    const reqs = await requestsDuring(async () => {
      const second = await loadSpacyLexicon("en", opts(dir));
      assert.deepEqual([...second.lemma], [...first.lemma]);
      assert.deepEqual([...second.stopwords], [...first.stopwords]);
    });
    assert.equal(reqs.size, 0);
  });

  test("a corrupted cached file is detected and fetched again; the others are reused", async () => {
    const dir = freshDir();
    await loadSpacyLexicon("el", opts(dir));
    const cached = path.join(dir, "el", "spacy-lookups-data@v1.0.5", "el_lemma_index.json");
    await fs.writeFile(cached, EL_INDEX.replace("σύμβαση", "σύμβασηX"));
    const logs: string[] = [];
    const reqs = await requestsDuring(() => loadSpacyLexicon("el", opts(dir, { log: (m) => logs.push(m) })));
    assert.deepEqual([...reqs], [[pathOf("el", "el_lemma_index.json"), 1]]);
    assert.equal(await fs.readFile(cached, "utf8"), EL_INDEX);
    assert.ok(logs.some((m) => m.includes("does not match its manifest")), logs.join("\n"));
  });

  test("offline with a complete cache works without any request", async () => {
    const dir = freshDir();
    await loadSpacyLexicon("el", opts(dir));
    const reqs = await requestsDuring(async () => {
      const lex = await loadSpacyLexicon("el", opts(dir, { offline: true }));
      assert.equal(spacyGreekTokenizer(lex).tokenize("Η σύμβαση").join(" "), "συμβαση");
    });
    assert.equal(reqs.size, 0);
  });

  test("offline without cache fails with code OFFLINE naming the missing files and the fix", async () => {
    const dir = freshDir();
    const reqs = await requestsDuring(async () => {
      await assert.rejects(loadSpacyLexicon("el", opts(dir, { offline: true })), (err: unknown) => {
        assert.ok(err instanceof DownloadError);
        assert.equal(err.code, "OFFLINE");
        for (const f of ["el_lemma_index.json", "el_lemma_exc.json", "el_lemma_rules.json", "stop_words.py"]) {
          assert.ok(err.message.includes(f), `message names ${f}: ${err.message}`);
        }
        assert.match(err.message, /BM25-SPACY/);
        assert.ok(err.message.includes(path.resolve(dir, "el")), err.message);
        assert.match(err.message, /network access/);
        assert.match(err.message, /GBR_SPACY_BASE_URL/);
        return true;
      });
    });
    assert.equal(reqs.size, 0);
  });

  test("offline with a corrupted cached file fails with OFFLINE and says it is corrupted", async () => {
    const dir = freshDir();
    await loadSpacyLexicon("en", opts(dir));
    await fs.appendFile(path.join(dir, "en", "spacy-lookups-data@v1.0.5", "en_lemma_lookup.json"), " ");
    await assert.rejects(loadSpacyLexicon("en", opts(dir, { offline: true })), (err: unknown) => {
      assert.ok(err instanceof DownloadError && err.code === "OFFLINE");
      assert.match(err.message, /en_lemma_lookup\.json \(cached copy corrupted\)/);
      assert.match(err.message, /BM25-ENGLISH/);
      return true;
    });
  });

  test("an unreachable server and no cache also gives OFFLINE", async () => {
    const dead = await startStaticServer({});
    const deadUrl = dead.url;
    await dead.close();
    await assert.rejects(
      loadSpacyLexicon("en", { cacheDir: freshDir(), baseUrl: deadUrl, download: { attempts: 1, backoffMs: 1 } }),
      (err: unknown) => err instanceof DownloadError && err.code === "OFFLINE" && /download failed: .*cannot connect/.test(err.message),
    );
  });

  test("GBR_SPACY_BASE_URL is honoured by the configuration's loader, into <data>/spacy", async () => {
    const data = freshDir();
    const load = spacyLoader(readConfig({ GBR_SPACY_BASE_URL: srv.url + "/", GBR_DATA_DIR: data }));
    const reqs = await requestsDuring(() => load("en", {}));
    assert.equal(reqs.size, 2);
    assert.ok(existsSync(path.join(data, "spacy", "en", "manifest.json")));
  });

  test("a transient 500 and a truncated body are retried", async () => {
    srv.fault(pathOf("en", "en_lemma_lookup.json"), "500");
    srv.fault(pathOf("en", "stop_words.py"), "truncate");
    const reqs = await requestsDuring(async () => {
      const lex = await loadSpacyLexicon("en", opts(freshDir()));
      assert.equal(lex.lemma.get("courts"), "court");
    });
    assert.equal(reqs.get(pathOf("en", "en_lemma_lookup.json")), 2);
    assert.equal(reqs.get(pathOf("en", "stop_words.py")), 2);
  });

  test("a body that does not parse is a DataError naming the file, left unrecorded so the next load fetches it again", async () => {
    const dir = freshDir();
    srv.fault(pathOf("el", "el_lemma_exc.json"), "corrupt");
    await assert.rejects(loadSpacyLexicon("el", opts(dir)), (e: unknown) => e instanceof DataError && /el_lemma_exc\.json/.test(e.file ?? ""));
    const manifest = JSON.parse(await fs.readFile(path.join(dir, "el", "manifest.json"), "utf8"));
    assert.equal(manifest.files["spacy-lookups-data@v1.0.5/el_lemma_exc.json"], undefined);
    assert.ok(manifest.files["spacy-lookups-data@v1.0.5/el_lemma_index.json"]);
    const reqs = await requestsDuring(async () => {
      const lex = await loadSpacyLexicon("el", opts(dir));
      assert.equal(lex.lemma.get("παραδώσει"), "παραδίδω");
    });
    assert.equal(reqs.get(pathOf("el", "el_lemma_exc.json")), 1);
    assert.ok(!reqs.has(pathOf("el", "el_lemma_index.json")), "the file parsed before is reused");
  });

  test("a 404 (wrong ref or mirror) is an HTTP error that points at the pinned refs", async () => {
    srv.fault(pathOf("en", "en_lemma_lookup.json"), "404");
    await assert.rejects(loadSpacyLexicon("en", opts(freshDir())), (err: unknown) => {
      assert.ok(err instanceof DownloadError);
      assert.equal(err.code, "HTTP");
      assert.equal(err.status, 404);
      assert.match(err.message, /v1\.0\.5/);
      return true;
    });
  });
});

describe("parseStopWordsPy", () => {
  test("reads every triple-quoted string, skips comments and one-line strings", () => {
    const src = `# a comment with """ quotes
X = "not \\" counted"
STOP = set(r'''
alpha  beta
gamma''' .split()) | set("""delta""".split())
`;
    assert.deepEqual([...parseStopWordsPy(src)].sort(), ["alpha", "beta", "delta", "gamma"]);
  });

  test("adds spaCy's English contractions with both curly apostrophes", () => {
    const s = parseStopWordsPy(EN_STOP);
    for (const w of ["n't", "n‘t", "n’t", "'s", "’s", "the", "will"]) assert.ok(s.has(w), w);
    assert.equal(s.size, 12 + 7 * 3);
  });

  test("an unterminated or missing string is a DataError", () => {
    assert.throws(() => parseStopWordsPy('S = set("""\na b\n', "x.py"), (e: unknown) => e instanceof DataError && /unterminated/.test(e.message));
    assert.throws(() => parseStopWordsPy("S = set()\n", "x.py"), DataError);
  });
});

describe("spaCy-style tokenizers", () => {
  let el: ReturnType<typeof spacyGreekTokenizer>;
  let en: ReturnType<typeof spacyEnglishTokenizer>;
  before(async () => {
    const dir = freshDir();
    el = spacyGreekTokenizer(await loadSpacyLexicon("el", opts(dir)));
    en = spacyEnglishTokenizer(await loadSpacyLexicon("en", opts(dir)));
  });

  test("names", () => {
    assert.equal(el.name, "bm25-spacy");
    assert.equal(en.name, "bm25-english");
  });

  test("Greek: lemmas from index, exceptions and suffix rules; accents stripped; stopwords and punctuation dropped", () => {
    assert.deepEqual(el.tokenize("Ο εκμισθωτής υποχρεούται να παραδώσει το μίσθιο στον μισθωτή."), [
      "εκμισθωτης", // in the index
      "υποχρεουμαι", // exception
      "παραδιδω", // exception
      "μισθιο",
      "μισθωτης", // noun rule ή -> ής, found in the index
    ]);
  });

  test("Greek: accent-blind rule match, lemma-level stopwords, case folding, numbers and citations", () => {
    assert.deepEqual(
      el.tokenize("Η σύμβαση της πωλήσεως είναι άκυρη, ΑΛΛΑ το ΔΙΚΑΣΤΗΡΙΟ δέχεται την αγωγή (άρθρο 914 ΑΚ, ν. 4172/2013)."),
      ["συμβαση", "πωληση", "ακυρος", "δικαστηριο", "δεχομαι", "αγωγη", "αρθρο", "914", "ακ", "ν", "4172/2013"],
    );
    // "είναι" -> lemma "είμαι", a stopword: dropped; "είχαμε" -> "έχω", not one in this list: kept;
    // the elided "απ'" and "όλους" are stopwords; the guillemets are punctuation
    assert.deepEqual(el.tokenize("είναι είχαμε «όλους» απ' όλους"), ["εχω"]);
  });

  test("Greek: paper's clean() artifacts, decomposed input, hyphens", () => {
    assert.deepEqual(el.tokenize("μίσθιο NBSP ενοίκιο\u00a0ακίνητο \\u202f"), ["μισθιο", "ενοικιο", "ακινητο"]);
    assert.deepEqual(el.tokenize("σύμβαση".normalize("NFD")), ["συμβαση"]);
    assert.deepEqual(el.tokenize("κράτος-μέλος"), ["κρατος", "μελος"]);
    assert.deepEqual(el.tokenize("!!! … ___ ;"), []);
  });

  test("English: lookup lemmas, lower-case, stopwords after lemmatisation, contractions", () => {
    assert.deepEqual(en.tokenize("The courts were considering the tenant's claims, but didn't rule."), [
      "court",
      "consider",
      "tenant",
      "claim",
      "rule",
    ]);
    assert.deepEqual(en.tokenize("Americans leased 1,500 well-known buildings."), ["american", "lease", "1,500", "know", "building"]);
    assert.deepEqual(en.tokenize("It’s O'Brien's can't-lose case"), ["o'brien", "lose", "case"]);
  });

  test("tokenizers refuse the other language's lexicon", async () => {
    const dir = freshDir();
    const enLex = await loadSpacyLexicon("en", opts(dir));
    assert.throws(() => spacyGreekTokenizer(enLex), /Greek lexicon/);
  });

  test("fast on a large text (memoised per distinct word)", () => {
    const text = "Ο εκμισθωτής υποχρεούται να παραδώσει το μίσθιο στον μισθωτή. ".repeat(20_000);
    const t0 = performance.now();
    const toks = el.tokenize(text);
    const ms = performance.now() - t0;
    assert.equal(toks.length, 5 * 20_000);
    assert.ok(ms < 2_000, `took ${ms.toFixed(0)} ms for 200k words`);
  });
});

describe("createTokenizer of the public face: spaCy's tables without a loader", () => {
  /** Runs `fn` with GBR_DATA_DIR and GBR_SPACY_BASE_URL set, restoring both after. */
  async function withEnv<T>(env: { GBR_DATA_DIR: string; GBR_SPACY_BASE_URL: string }, fn: () => Promise<T>): Promise<T> {
    const saved = { GBR_DATA_DIR: process.env.GBR_DATA_DIR, GBR_SPACY_BASE_URL: process.env.GBR_SPACY_BASE_URL };
    Object.assign(process.env, env);
    try {
      return await fn();
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  }

  test("bm25-spacy and bm25-english download the tables once into <data>/spacy and tokenize", async () => {
    const { createTokenizer } = await import("../../lib/index.js");
    const data = freshDir();
    await withEnv({ GBR_DATA_DIR: data, GBR_SPACY_BASE_URL: srv.url }, async () => {
      const first = await requestsDuring(async () => {
        assert.deepEqual((await createTokenizer("bm25-spacy")).tokenize("Η σύμβαση το μίσθιο παραδώσει"), ["συμβαση", "μισθιο", "παραδιδω"]);
        assert.deepEqual((await createTokenizer("english")).tokenize("The courts were"), ["court"]);
      });
      assert.equal([...first.values()].reduce((a, b) => a + b, 0), SPACY_FILES.el.length + SPACY_FILES.en.length);
      for (const lang of ["el", "en"]) assert.ok(JSON.parse(await fs.readFile(path.join(data, "spacy", lang, "manifest.json"), "utf8")).files);
      // The cache serves the next tokenizer, with nothing fetched.
      const again = await requestsDuring(() => createTokenizer("spacy"));
      assert.equal(again.size, 0);
    });
  });

  test("offline and uncached, the error names the tokenizer and GBR_SPACY_BASE_URL, briefly too, and no source file", async () => {
    const { createTokenizer } = await import("../../lib/index.js");
    await withEnv({ GBR_DATA_DIR: freshDir(), GBR_SPACY_BASE_URL: srv.url }, async () => {
      const reqs = await requestsDuring(async () => {
        await assert.rejects(createTokenizer("bm25-spacy", { offline: true }), (err: unknown) => {
          assert.ok(err instanceof DownloadError && err.code === "OFFLINE", String(err));
          assert.match(err.message, /BM25-SPACY/);
          assert.match(err.message, /GBR_SPACY_BASE_URL/);
          assert.match(err.brief ?? "", /BM25-SPACY.*GBR_SPACY_BASE_URL/);
          assert.doesNotMatch(err.message, /lib\/|\.ts\b|ctx\./);
          return true;
        });
      });
      assert.equal(reqs.size, 0);
    });
  });

  test("a loader given in the context is used instead", async () => {
    const { createTokenizer } = await import("../../lib/index.js");
    const lex = await loadSpacyLexicon("en", opts(freshDir()));
    const langs: string[] = [];
    const tok = await createTokenizer("bm25-english", { loadSpacyLexicon: async (lang) => (langs.push(lang), lex) });
    assert.deepEqual(tok.tokenize("courts"), ["court"]);
    assert.deepEqual(langs, ["en"]);
  });
});
