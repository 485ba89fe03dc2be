/**
 * The Hub loader against a local double of the Hub: a tiny Greek dataset in the real card's
 * shape (corpus as sharded parquet behind a glob, queries as jsonl, qrels as csv, the
 * greekbarbench metadata as csv with multi-line quoted fields).
 */
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, afterEach, describe, test } from "node:test";
import { parquetWriteBuffer } from "hyparquet-writer";
import { readBeir } from "../../lib/data/beir";
import { DownloadError, hashFile } from "../../lib/util/download";
import { DataError } from "../../lib/util/errors";
import { parseCard, pullHub, pullLog, pullHubToDir, resolveDataFiles, type PullOptions } from "../../lib/data/hub";
import { readConfig } from "../../lib/config";
import { readTable } from "../../lib/data/tabular";

const readRows = async (file: string) => (await readTable(file)).rows;
import { parseDelimited } from "../../lib/util/csv";
import { API, startHubDouble, type HubDouble, type HubDoubleOptions } from "../fakes/hub-server";

for (const k of ["HF_TOKEN", "HF_ENDPOINT", "HF_HUB_OFFLINE"]) delete process.env[k];

const FAST = { attempts: 4, backoffMs: 1 };

const DOCS = [
  { id: "ΑΚ::914", text: "Όποιος ζημιώσει άλλον παράνομα και υπαίτια έχει υποχρέωση να τον αποζημιώσει." },
  { id: "ΑΚ::932", text: "Σε περίπτωση αδικοπραξίας το δικαστήριο μπορεί να επιδικάσει εύλογη χρηματική ικανοποίηση." },
  { id: "ΠΚ::375", text: "Όποιος ιδιοποιείται παράνομα ξένο κινητό πράγμα τιμωρείται με φυλάκιση." },
  { id: "ΚΠολΔ::216", text: "Η αγωγή πρέπει να περιέχει σαφή έκθεση των γεγονότων που τη θεμελιώνουν." },
  { id: "Ν4072/2012::1", text: "Το εμπορικό σήμα προστατεύεται με την καταχώρισή του." },
];

const QUERIES = [
  { id: "q-2019-civil-1", text: "Ο Α τραυματίστηκε από το αυτοκίνητο του Β.\n\nΠοια αξίωση έχει ο Α;" },
  { id: "q-2020-criminal-2", text: "Ο Γ πήρε το ποδήλατο του Δ.\n\nΤι αδίκημα διέπραξε ο Γ;" },
  { id: "q-2021-commercial-3", text: "Η εταιρεία Ε χρησιμοποίησε σήμα της Ζ.\n\nΠοια προστασία έχει η Ζ;" },
];

const QRELS_CSV = [
  "query-id,corpus-id,score,note",
  'q-2019-civil-1,ΑΚ::914,1,"άρθρο 914, αδικοπραξία"',
  'q-2019-civil-1,ΑΚ::932,1,"ηθική βλάβη, ""χρηματική ικανοποίηση"""',
  "q-2019-civil-1,ΚΠολΔ::216,0,not relevant",
  'q-2020-criminal-2,ΠΚ::375,1,"υπεξαίρεση,\nκλοπή"',
  "q-2021-commercial-3,Ν4072/2012::1,1,",
].join("\r\n");

const GBB_CSV = [
  "id,facts,question,area,date,number,answer",
  'q-2019-civil-1,"Ο Α, φοιτητής,\nτραυματίστηκε.",Ποια αξίωση;,civil,2019-A,1,"Κατά το ""914 ΑΚ"" ..."',
  "q-2020-criminal-2,Ο Γ πήρε το ποδήλατο.,Τι αδίκημα;,criminal,2020-B,2,Υπεξαίρεση.",
  "q-2021-commercial-3,Η Ε.,Προστασία;,commercial,2021-A,3,Ν 4072/2012.",
  "q-2024-public-9,Κρατούμενη ερώτηση.,;,public,2024-A,9,—",
].join("\n");

function parquet(rows: { id: string; text: string }[]): Buffer {
  const ab = parquetWriteBuffer({
    columnData: [
      { name: "id", data: rows.map((r) => r.id), type: "STRING" },
      { name: "text", data: rows.map((r) => r.text), type: "STRING" },
    ],
  });
  return Buffer.from(ab);
}

const CARD = (extra = "") => `---
license: cc-by-4.0
language:
  - el
configs:
  - config_name: greekbarbench
    data_files:
      - split: test
        path: greekbarbench.csv
  - config_name: corpus
    data_files:
      - split: test
        path: data/corpus-*.parquet
  - config_name: queries
    data_files:
      - split: test
        path: queries.jsonl
  - config_name: qrels
    data_files:
      - split: test
        path: [qrels.csv]
${extra}---

# GreekBarBench (synthetic double)
`;

function dataset(overrides: Partial<HubDoubleOptions> = {}): HubDoubleOptions {
  return {
    readme: CARD(),
    files: {
      // Shard 1 sorts after shard 0; listed in reverse to prove the loader orders them.
      "data/corpus-00001-of-00002.parquet": parquet(DOCS.slice(3)),
      "data/corpus-00000-of-00002.parquet": parquet(DOCS.slice(0, 3)),
      "queries.jsonl": QUERIES.map((q) => JSON.stringify(q)).join("\n") + "\n",
      "qrels.csv": QRELS_CSV,
      "greekbarbench.csv": GBB_CSV,
      "gbb_jme.csv": "id,x\n1,2\n",
    },
    ...overrides,
  };
}

const tmpRoots: string[] = [];
async function tmpDir(): Promise<string> {
  const d = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-hub-test-"));
  tmpRoots.push(d);
  return d;
}
after(async () => {
  for (const d of tmpRoots) await fs.rm(d, { recursive: true, force: true });
});

let hubs: HubDouble[] = [];
afterEach(async () => {
  for (const h of hubs) await h.close().catch(() => {});
  hubs = [];
});
async function hub(opts: HubDoubleOptions = dataset()): Promise<HubDouble> {
  const h = await startHubDouble(opts);
  hubs.push(h);
  return h;
}

function pullOpts(h: HubDouble, cacheDir: string, extra: Partial<PullOptions> = {}): PullOptions & { logs: string[] } {
  const logs: string[] = [];
  return { endpoint: h.url, cacheDir, retry: FAST, log: (m) => logs.push(m), logs, ...extra };
}

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fs.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await listFiles(p)));
    else out.push(p);
  }
  return out;
}

describe("pullHub", () => {
  test("a full pull builds the benchmark, joins the metadata and writes a verified cache", async () => {
    const h = await hub();
    const cacheDir = path.join(await tmpDir(), "cache");
    const o = pullOpts(h, cacheDir);
    const { benchmark: b, manifest, dir, beirDir } = await pullHub(o);

    assert.equal(dir, cacheDir);
    assert.deepEqual(b.docs, DOCS, "corpus in shard order, ids and texts verbatim");
    assert.deepEqual(b.queries, QUERIES);
    assert.deepEqual(
      [...b.qrels].map(([q, s]) => [q, [...s]]),
      [
        ["q-2019-civil-1", ["ΑΚ::914", "ΑΚ::932"]],
        ["q-2020-criminal-2", ["ΠΚ::375"]],
        ["q-2021-commercial-3", ["Ν4072/2012::1"]],
      ],
      "score 0 dropped",
    );
    assert.deepEqual(b.meta.get("q-2019-civil-1"), { area: "civil", date: "2019-A", number: 1 });
    assert.deepEqual(b.meta.get("q-2020-criminal-2"), { area: "criminal", date: "2020-B", number: 2 });
    assert.equal(b.meta.size, 3, "the held-out greekbarbench row matches no query");
    assert.equal(b.name, "AUEB-NLP/greek-bar-bench");
    assert.equal(b.revision, "v2.0");

    assert.equal(manifest.repo, "AUEB-NLP/greek-bar-bench");
    assert.equal(manifest.revision, "v2.0");
    assert.match(manifest.sha, /^[0-9a-f]{40}$/);
    assert.deepEqual(manifest.configs.corpus, ["data/corpus-00000-of-00002.parquet", "data/corpus-00001-of-00002.parquet"]);
    assert.ok(!manifest.files.some((f) => f.path === "gbb_jme.csv"), "only the four configs are fetched");
    for (const f of manifest.files) {
      const local = path.join(cacheDir, "files", ...f.path.split("/"));
      assert.deepEqual(await hashFile(local), { sha256: f.sha256, size: f.size });
    }
    const onDisk = JSON.parse(await fs.readFile(path.join(cacheDir, "manifest.json"), "utf8"));
    assert.equal(onDisk.sha, manifest.sha);

    const back = await readBeir(beirDir);
    assert.deepEqual(back.docs, b.docs);
    assert.deepEqual(back.queries, b.queries);
    assert.deepEqual(back.qrels, b.qrels);
    assert.deepEqual(back.meta, b.meta);

    assert.ok(o.logs.some((m) => /1 greekbarbench rows match no query/.test(m)));
  });

  test("a second pull verifies the cache and downloads no file", async () => {
    const h = await hub();
    const cacheDir = path.join(await tmpDir(), "cache");
    const first = await pullHub(pullOpts(h, cacheDir));
    const filesBefore = h.fileRequests();
    assert.equal(filesBefore, 6, "README + 2 shards + queries + qrels + greekbarbench");

    const o = pullOpts(h, cacheDir);
    const second = await pullHub(o);
    assert.equal(h.fileRequests(), filesBefore, "zero file requests on the second pull");
    assert.equal(h.counts.get(API), 2, "only the revision check");
    assert.deepEqual(second.benchmark, first.benchmark);
    assert.equal(second.manifest.sha, first.manifest.sha);
    assert.ok(!o.logs.some((m) => /fetched/.test(m)));
  });

  test("a file corrupted or truncated on disk is detected, reported and fetched again", async () => {
    const h = await hub();
    const cacheDir = path.join(await tmpDir(), "cache");
    const first = await pullHub(pullOpts(h, cacheDir));
    const shard = path.join(cacheDir, "files", "data", "corpus-00000-of-00002.parquet");
    const bytes = await fs.readFile(shard);
    bytes[Math.floor(bytes.length / 2)] ^= 0xff; // same size, different content
    await fs.writeFile(shard, bytes);
    const qrels = path.join(cacheDir, "files", "qrels.csv");
    await fs.truncate(qrels, 10);

    const o = pullOpts(h, cacheDir);
    const again = await pullHub(o);
    assert.ok(o.logs.some((m) => /corpus-00000-of-00002\.parquet is corrupted/.test(m)), o.logs.join("\n"));
    assert.ok(o.logs.some((m) => /qrels\.csv is 10 bytes/.test(m)), o.logs.join("\n"));
    assert.equal(h.counts.get("data/corpus-00000-of-00002.parquet"), 2);
    assert.equal(h.counts.get("qrels.csv"), 2);
    assert.equal(h.counts.get("queries.jsonl"), 1, "intact files are not fetched again");
    assert.deepEqual(again.benchmark, first.benchmark);
    const entry = again.manifest.files.find((f) => f.path === "qrels.csv")!;
    assert.deepEqual(await hashFile(qrels), { sha256: entry.sha256, size: entry.size });
  });

  test("a truncated download is retried and the final file is whole", async () => {
    const h = await hub();
    h.setFault("data/corpus-00001-of-00002.parquet", { kind: "truncate", times: 1 });
    const cacheDir = path.join(await tmpDir(), "cache");
    const { benchmark, manifest } = await pullHub(pullOpts(h, cacheDir));
    assert.equal(h.counts.get("data/corpus-00001-of-00002.parquet"), 2);
    const entry = manifest.files.find((f) => f.path === "data/corpus-00001-of-00002.parquet")!;
    const served = dataset().files["data/corpus-00001-of-00002.parquet"] as Buffer;
    assert.equal(entry.size, served.length);
    assert.deepEqual(await fs.readFile(path.join(cacheDir, "files", "data", "corpus-00001-of-00002.parquet")), served);
    assert.deepEqual(benchmark.docs, DOCS);
    const leftovers = (await listFiles(cacheDir)).filter((f) => f.includes(".part-"));
    assert.deepEqual(leftovers, [], "no partial file left behind");
  });

  test("HTTP 500 twice, then success, is retried", async () => {
    const h = await hub();
    h.setFault("queries.jsonl", { kind: "status", status: 500, times: 2 });
    h.setFault(API, { kind: "status", status: 503, times: 1 });
    const { benchmark } = await pullHub(pullOpts(h, path.join(await tmpDir(), "cache")));
    assert.equal(h.counts.get("queries.jsonl"), 3);
    assert.equal(h.counts.get(API), 2);
    assert.deepEqual(benchmark.queries, QUERIES);
  });

  test("429 is retried after the Retry-After delay", async () => {
    const h = await hub();
    h.setFault("greekbarbench.csv", { kind: "rateLimit", times: 1, retryAfter: "1" });
    h.setFault("qrels.csv", { kind: "rateLimit", times: 1, retryAfter: "0" });
    const t0 = Date.now();
    const { benchmark } = await pullHub(pullOpts(h, path.join(await tmpDir(), "cache")));
    const elapsed = Date.now() - t0;
    assert.equal(h.counts.get("greekbarbench.csv"), 2);
    assert.equal(h.counts.get("qrels.csv"), 2);
    assert.ok(elapsed >= 950, `waited ${elapsed} ms; Retry-After asked for 1 s while the backoff is 1 ms`);
    assert.equal(benchmark.meta.size, 3);
  });

  test("bytes that arrive whole but wrong fail the Hub's checksum: an INTEGRITY error naming the file; the next pull fetches it", async () => {
    for (const [file, check] of [["data/corpus-00000-of-00002.parquet", "sha256"], ["queries.jsonl", "git blob id"]]) {
      const h = await hub();
      h.setFault(file, { kind: "corrupt", times: 1 });
      const o = pullOpts(h, path.join(await tmpDir(), "cache"));
      await assert.rejects(pullHub(o), (e: unknown) => {
        assert.ok(e instanceof DownloadError && e.code === "INTEGRITY", String(e));
        assert.ok(e.message.includes(`${file}: arrived corrupted (${check}`), e.message);
        return true;
      });
      const { benchmark } = await pullHub(o);
      assert.equal(h.counts.get(file), 2);
      assert.deepEqual(benchmark.docs, DOCS);
      assert.deepEqual(benchmark.queries, QUERIES);
    }
  });

  test("the token is sent as a Bearer header and never written or logged", async () => {
    const token = "test-hub-SeCrEtT0ken-1234";
    const h = await hub(dataset({ token }));
    const root = await tmpDir();
    const cacheDir = path.join(root, "cache");

    await assert.rejects(pullHub(pullOpts(h, cacheDir, { token: "" })), (err: unknown) => {
      assert.ok(err instanceof DownloadError);
      assert.equal(err.status, 401);
      assert.match(err.message, /HF_TOKEN/);
      return true;
    });

    const o = pullOpts(h, cacheDir, { token });
    await pullHub(o);
    const outDir = path.join(root, "beir-out");
    await pullHubToDir(outDir, pullOpts(h, cacheDir, { token }));
    assert.ok(h.authorizations.filter((a) => a === `Bearer ${token}`).length >= 7);

    const written = [...(await listFiles(root))];
    assert.ok(written.length > 8);
    for (const f of written) {
      const content = await fs.readFile(f);
      assert.ok(!content.includes(token), `token found in ${f}`);
    }
    assert.ok(!o.logs.join("\n").includes(token));
  });

  test("offline, and with the Hub unreachable, a verified cache is used without the network", async () => {
    const h = await hub();
    const cacheDir = path.join(await tmpDir(), "cache");
    const first = await pullHub(pullOpts(h, cacheDir));
    const url = h.url;
    await h.close();

    const offline = await pullHub({ endpoint: url, cacheDir, offline: true, retry: FAST });
    assert.deepEqual(offline.benchmark, first.benchmark);

    const logs: string[] = [];
    const unreachable = await pullHub({ endpoint: url, cacheDir, retry: FAST, log: (m) => logs.push(m) });
    assert.deepEqual(unreachable.benchmark, first.benchmark);
    assert.ok(logs.some((m) => /using the verified cache/.test(m)), logs.join("\n"));

    // HF_HUB_OFFLINE, through the configuration's hub settings.
    const viaEnv = await pullHub({ ...readConfig({ HF_HUB_OFFLINE: "1", HF_ENDPOINT: url }).hub, cacheDir, retry: FAST });
    assert.deepEqual(viaEnv.benchmark, first.benchmark);
  });

  test("offline or unreachable without a cache fails with OFFLINE and says how to fix it", async () => {
    const h = await hub();
    const url = h.url;
    await h.close();
    const cacheDir = path.join(await tmpDir(), "never-pulled");
    for (const opts of [{ offline: true }, { offline: false }]) {
      await assert.rejects(pullHub({ endpoint: url, cacheDir, retry: FAST, ...opts }), (err: unknown) => {
        assert.ok(err instanceof DownloadError, String(err));
        assert.equal(err.code, "OFFLINE");
        assert.match(err.message, /HF_ENDPOINT/);
        assert.match(err.message, /--data sample/);
        assert.match(err.message, /AUEB-NLP\/greek-bar-bench@v2\.0/);
        return true;
      });
    }
    await assert.rejects(fs.access(cacheDir), "a failed pull leaves no cache folder behind");
  });

  test("offline with a damaged cache refuses instead of loading part of it", async () => {
    const h = await hub();
    const cacheDir = path.join(await tmpDir(), "cache");
    await pullHub(pullOpts(h, cacheDir));
    await fs.rm(path.join(cacheDir, "files", "queries.jsonl"));
    const logs: string[] = [];
    await assert.rejects(pullHub({ endpoint: h.url, cacheDir, offline: true, log: (m) => logs.push(m) }), (err: unknown) => {
      assert.ok(err instanceof DownloadError && err.code === "OFFLINE");
      assert.match(err.message, /incomplete \(queries\.jsonl\)/);
      return true;
    });
    assert.ok(logs.some((m) => /queries\.jsonl is missing/.test(m)));
  });

  test("a missing field fails with a DataError naming the file and line", async () => {
    const files = dataset().files;
    files["queries.jsonl"] = [JSON.stringify(QUERIES[0]), JSON.stringify({ id: "q-x", question: "no text" })].join("\n");
    const h = await hub(dataset({ files }));
    await assert.rejects(pullHub(pullOpts(h, path.join(await tmpDir(), "cache"))), (err: unknown) => {
      assert.ok(err instanceof DataError, String(err));
      assert.ok(err.file?.endsWith(path.join("files", "queries.jsonl")), err.file);
      assert.equal(err.line, 2);
      assert.match(err.message, /missing field "text" for queries id 'q-x'/);
      return true;
    });
  });

  test("metadata rows without a 'number' column fail with a DataError naming the file", async () => {
    const files = dataset().files;
    files["greekbarbench.csv"] = "id,area,date\nq-2019-civil-1,civil,2019-A\n";
    const h = await hub(dataset({ files }));
    await assert.rejects(pullHub(pullOpts(h, path.join(await tmpDir(), "cache"))), (err: unknown) => {
      assert.ok(err instanceof DataError);
      assert.ok(err.file?.endsWith("greekbarbench.csv"));
      assert.match(err.message, /missing field "number"/);
      return true;
    });
  });

  // Issue 29, row 11: a number as the area was taken as its text, and a blank one made a second "(no area)" row.
  test("an area that is not a string fails naming the file and line; a blank one is no area", async () => {
    const rows = (area: unknown) =>
      [
        { id: "q-2019-civil-1", area: " civil ", date: "2019-A", number: 1 },
        { id: "q-2020-criminal-2", area: "   ", date: "2020-B", number: 2 },
        { id: "q-2021-commercial-3", area, date: "2021-A", number: 3 },
      ]
        .map((r) => JSON.stringify(r))
        .join("\n");
    const readme = CARD().replace("path: greekbarbench.csv", "path: greekbarbench.jsonl");
    const files = dataset().files;
    delete files["greekbarbench.csv"];
    const bad = await hub(dataset({ readme, files: { ...files, "greekbarbench.jsonl": rows(7) } }));
    await assert.rejects(pullHub(pullOpts(bad, path.join(await tmpDir(), "cache"))), (err: unknown) => {
      assert.ok(err instanceof DataError, String(err));
      assert.ok(err.file?.endsWith("greekbarbench.jsonl"), err.file);
      assert.equal(err.line, 3);
      assert.match(err.message, /area of id 'q-2021-commercial-3' is 7, not a string/);
      return true;
    });
    const good = await hub(dataset({ readme, files: { ...files, "greekbarbench.jsonl": rows("") } }));
    const { benchmark } = await pullHub(pullOpts(good, path.join(await tmpDir(), "cache")));
    assert.deepEqual([...benchmark.meta.values()].map((m) => m.area), ["civil", undefined, undefined]);
  });

  test("qrels naming an unknown article fail with the qrels file and line", async () => {
    const files = dataset().files;
    files["qrels.csv"] = QRELS_CSV + "\r\nq-2020-criminal-2,ΠΚ::999,1,x";
    const h = await hub(dataset({ files }));
    await assert.rejects(pullHub(pullOpts(h, path.join(await tmpDir(), "cache"))), (err: unknown) => {
      assert.ok(err instanceof DataError);
      assert.ok(err.file?.endsWith("qrels.csv"));
      assert.equal(err.line, 8, "the multi-line quoted note counts as two lines");
      assert.match(err.message, /ΠΚ::999/);
      return true;
    });
  });

  test("duplicate ids across corpus shards are rejected", async () => {
    const files = dataset().files;
    files["data/corpus-00001-of-00002.parquet"] = parquet([DOCS[0]]);
    const h = await hub(dataset({ files }));
    await assert.rejects(pullHub(pullOpts(h, path.join(await tmpDir(), "cache"))), (err: unknown) => {
      assert.ok(err instanceof DataError);
      assert.ok(err.file?.endsWith("corpus-00001-of-00002.parquet"));
      assert.match(err.message, /duplicate corpus id 'ΑΚ::914'.*corpus-00000-of-00002\.parquet, row 1/);
      return true;
    });
  });

  test("a card without the retrieval configs names what it has", async () => {
    const h = await hub(
      dataset({ readme: "---\nconfigs:\n  - config_name: greekbarbench\n    data_files:\n      - split: test\n        path: greekbarbench.csv\n---\n" }),
    );
    await assert.rejects(pullHub(pullOpts(h, path.join(await tmpDir(), "cache"))), /no 'corpus' config \(it has: greekbarbench\)/);
  });

  test("a new commit behind the same tag is detected and its files are fetched", async () => {
    const h = await hub();
    const cacheDir = path.join(await tmpDir(), "cache");
    const first = await pullHub(pullOpts(h, cacheDir));
    h.setFile("queries.jsonl", QUERIES.slice(0, 2).map((q) => JSON.stringify(q)).join("\n"));
    h.setFile("qrels.csv", QRELS_CSV.split("\r\n").slice(0, 5).join("\n"));
    const second = await pullHub(pullOpts(h, cacheDir));
    assert.notEqual(second.manifest.sha, first.manifest.sha);
    assert.equal(second.benchmark.queries.length, 2);
    assert.equal(h.counts.get("queries.jsonl"), 2);
  });
});

describe("pullHubToDir", () => {
  test("writes exactly a BEIR folder plus manifest that readBeir loads back", async () => {
    const h = await hub();
    const root = await tmpDir();
    const out = path.join(root, "gbr");
    const { benchmark, manifest } = await pullHubToDir(out, pullOpts(h, path.join(root, "cache")));
    const files = (await listFiles(out)).map((f) => path.relative(out, f).split(path.sep).join("/")).sort();
    assert.deepEqual(files, ["corpus.jsonl", "manifest.json", "meta.jsonl", "qrels/test.tsv", "queries.jsonl"]);
    const back = await readBeir(out);
    assert.deepEqual(back.docs, benchmark.docs);
    assert.deepEqual(back.queries, benchmark.queries);
    assert.deepEqual(back.qrels, benchmark.qrels);
    assert.deepEqual(back.meta, benchmark.meta);
    const m = JSON.parse(await fs.readFile(path.join(out, "manifest.json"), "utf8"));
    assert.equal(m.sha, manifest.sha);
    for (const f of m.beir) assert.deepEqual(await hashFile(path.join(out, f.path)), { sha256: f.sha256, size: f.size });
    // BEIR's own fields, as beir's GenericDataLoader reads them.
    const first = JSON.parse((await fs.readFile(path.join(out, "corpus.jsonl"), "utf8")).split("\n")[0]) as Record<string, unknown>;
    assert.deepEqual(Object.keys(first), ["_id", "title", "text"]);
    assert.equal(m.beirLayout, 2);
  });

  test("the cache's BEIR copy in the older layout (\"id\") is written again on the next load", async () => {
    const h = await hub();
    const root = await tmpDir();
    const opts = pullOpts(h, path.join(root, "cache"));
    const { beirDir } = await pullHub(opts);
    const manifestFile = path.join(beirDir, "manifest.json");
    const old = JSON.parse(await fs.readFile(manifestFile, "utf8")) as Record<string, unknown>;
    delete old.beirLayout;
    await fs.writeFile(manifestFile, JSON.stringify(old));
    await pullHub(opts);
    assert.equal((JSON.parse(await fs.readFile(manifestFile, "utf8")) as { beirLayout?: number }).beirLayout, 2);
  });
});

describe("dataset card", () => {
  const siblings = [
    "README.md",
    "data/corpus-00001-of-00002.parquet",
    "data/corpus-00000-of-00002.parquet",
    "data/extra/corpus-00002.parquet",
    "qrels.csv",
  ].map((rfilename) => ({ rfilename }));

  test("globs resolve against the file list, sorted, * within a folder and ** across", () => {
    assert.deepEqual(resolveDataFiles("corpus", [{ split: "test", patterns: ["data/corpus-*.parquet"] }], siblings), [
      "data/corpus-00000-of-00002.parquet",
      "data/corpus-00001-of-00002.parquet",
    ]);
    assert.deepEqual(resolveDataFiles("corpus", [{ split: "test", patterns: ["data/**/corpus-*.parquet"] }], siblings), [
      "data/corpus-00000-of-00002.parquet",
      "data/corpus-00001-of-00002.parquet",
      "data/extra/corpus-00002.parquet",
    ]);
    assert.throws(() => resolveDataFiles("corpus", [{ split: "test", patterns: ["nope-*.parquet"] }], siblings), DataError);
  });

  test("data_files in every shape the datasets library accepts", () => {
    const card = parseCard(`---
configs:
- config_name: a
  data_files: qrels.csv
- config_name: b
  data_files: [x.csv, y.csv]
- config_name: c
  data_files:
  - split: train
    path: t.csv
  - split: test
    path: [u.csv, v.csv]
- config_name: d
  data_files:
    test: w.csv
---
body`);
    assert.deepEqual(card.get("a"), [{ split: "train", patterns: ["qrels.csv"] }]);
    assert.deepEqual(card.get("b"), [{ split: "train", patterns: ["x.csv", "y.csv"] }]);
    assert.deepEqual(card.get("c")![1], { split: "test", patterns: ["u.csv", "v.csv"] });
    assert.deepEqual(card.get("d"), [{ split: "test", patterns: ["w.csv"] }]);
    assert.throws(() => parseCard("no front matter"), DataError);
  });
});

describe("tabular", () => {
  test("RFC 4180 csv: quoted commas, escaped quotes, embedded newlines, CRLF, line numbers", () => {
    const { rows, lines } = parseDelimited('a,b\r\n1,"x, y"\r\n2,"he said ""hi"""\r\n3,"multi\nline"\n4,\n\n');
    assert.deepEqual(rows, [
      { a: "1", b: "x, y" },
      { a: "2", b: 'he said "hi"' },
      { a: "3", b: "multi\nline" },
      { a: "4", b: "" },
    ]);
    assert.deepEqual(lines, [2, 3, 4, 6]);
    assert.throws(() => parseDelimited('a,b\n1,"open'), /unterminated/);
    assert.throws(() => parseDelimited("a,b\n1,2,3\n"), (e: unknown) => e instanceof DataError && e.line === 2);
  });

  test("readRows by extension: json array, jsonl, parquet", async () => {
    const d = await tmpDir();
    await fs.writeFile(path.join(d, "a.json"), JSON.stringify([{ id: 1, text: "α" }]));
    await fs.writeFile(path.join(d, "c.jsonl"), '{"id":"3","text":"γ"}\n\n');
    await fs.writeFile(path.join(d, "d.parquet"), parquet([{ id: "4", text: "δ" }]));
    assert.deepEqual(await readRows(path.join(d, "a.json")), [{ id: 1, text: "α" }]);
    assert.deepEqual(await readRows(path.join(d, "c.jsonl")), [{ id: "3", text: "γ" }]);
    assert.deepEqual(await readRows(path.join(d, "d.parquet")), [{ id: "4", text: "δ" }]);
    await assert.rejects(readRows(path.join(d, "e.xlsx")), DataError);
  });
});

describe("pullLog", () => {
  test("issue 29, row 7: a file name or message from the Hub reaches the terminal with its control characters as escapes", () => {
    const written: string[] = [];
    const log = { isTTY: false, write: (t: string) => (written.push(t), true) } as unknown as NodeJS.WriteStream;
    pullLog(log)("pulled x\u001b]0;pwned\u0007\r\nFAKE: 0 failed");
    // One line: the pull's messages are one line each, so a line feed inside one is shown, not obeyed.
    assert.deepEqual(written, ["pulled x\\x1b]0;pwned\\x07\\x0d\\x0aFAKE: 0 failed\n"]);
  });
});

// Issue 29, row 11: `gbr data pull --dir D` replaced a user's own corpus.jsonl without a word.
describe("pullHubToDir into a folder it did not write", () => {
  test("refuses to replace a file it did not write or that changed since, before downloading; its own folder it pulls again", async () => {
    const h = await hub();
    const root = await tmpDir();
    const mine = path.join(root, "mine");
    await fs.mkdir(mine, { recursive: true });
    await fs.writeFile(path.join(mine, "corpus.jsonl"), '{"_id": "x", "text": "my own"}\n');
    await fs.writeFile(path.join(mine, "notes.txt"), "mine");
    const requests = h.authorizations.length;
    await assert.rejects(pullHubToDir(mine, pullOpts(h, path.join(root, "cache"))), (e: unknown) => {
      assert.ok(e instanceof DataError, String(e));
      assert.equal(e.message, `${mine}: corpus.jsonl was not written by gbr data pull (or changed since): not replacing it; choose a new or empty folder, or move it away`);
      return true;
    });
    assert.equal(h.authorizations.length, requests, "nothing asked of the Hub");
    assert.equal(await fs.readFile(path.join(mine, "corpus.jsonl"), "utf8"), '{"_id": "x", "text": "my own"}\n');

    // A folder of its own is pulled into again; once a file of it is edited, it is the user's.
    const out = path.join(root, "pulled");
    await fs.mkdir(out);
    await fs.writeFile(path.join(out, "notes.txt"), "other files are left alone");
    await pullHubToDir(out, pullOpts(h, path.join(root, "cache")));
    await pullHubToDir(out, pullOpts(h, path.join(root, "cache")));
    await fs.appendFile(path.join(out, "queries.jsonl"), '{"_id": "mine", "text": "added by hand"}\n');
    await assert.rejects(pullHubToDir(out, pullOpts(h, path.join(root, "cache"))), /queries\.jsonl was not written by gbr data pull \(or changed since\)/);
    assert.match(await fs.readFile(path.join(out, "queries.jsonl"), "utf8"), /added by hand/);
    assert.equal(await fs.readFile(path.join(out, "notes.txt"), "utf8"), "other files are left alone");
  });
});
