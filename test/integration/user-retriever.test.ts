/**
 * Issue 28, item 9: a retriever registered with `registerRetriever` could not join `reproduce(…, { only })` or the
 * report without the undocumented `experiments:` option. Now a registered name, alone or composed with built-in ones,
 * is an experiment of its own, marked as the user's (beyond the authors' list), in summary.csv and the report.
 */
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { loadBenchmark, type LoadedBenchmark } from "../../lib/data/source";
import { userExperiments } from "../../lib/experiments/registry";
import { reproduce } from "../../lib/experiments/reproduce";
import { parseCsvRecords } from "../../lib/util/csv";
import { buildReport } from "../../lib/report/html";
import { registerRetriever } from "../../lib/retrievers";
import { GbrError } from "../../lib/util/errors";

let tmp = "";
let loaded: LoadedBenchmark;
const saved = process.env.GBR_DATA_DIR;

before(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-user-retriever-"));
  process.env.GBR_DATA_DIR = path.join(tmp, "data");
  loaded = await loadBenchmark("sample");
  // The gold article first, then every other: a run whose numbers say it is this retriever's (nDCG@10 of 1).
  registerRetriever("oracle-probe", async (name, bench) => ({
    name,
    retrieve: (queries, k) => ({
      rankings: new Map(queries.map((q) => [q.id, [...(bench.qrels.get(q.id) ?? []), ...bench.docs.map((d) => d.id).filter((d) => !bench.qrels.get(q.id)?.has(d))].slice(0, k)])),
    }),
  }));
});
after(async () => {
  process.env.GBR_DATA_DIR = saved;
  await fs.rm(tmp, { recursive: true, force: true });
});

const summaryOf = async (dir: string) => parseCsvRecords(await fs.readFile(path.join(dir, "summary.csv"), "utf8"));

test("reproduce with only naming a registered retriever (alone and in rrf:) writes its rows, marked as the user's, and the report shows them", async () => {
  const outRoot = path.join(tmp, "a");
  const ids = ["oracle-probe", "rrf:bm25-greekstemmer+oracle-probe"];
  const r = await reproduce(loaded, { outRoot, only: ids });
  assert.deepEqual(
    r.outcomes.map((o) => [o.id, o.status]),
    ids.map((id) => [id, "ok"]),
  );
  const rows = await summaryOf(r.outDir);
  assert.deepEqual(rows.map((x) => x.experiment), ids);
  assert.equal(Number(rows[0]["nDCG@10"]), 1, "the row holds the registered retriever's own run");
  for (const row of rows) assert.match(row.list, /beyond the authors: .*your own/, `${row.experiment} is marked as the user's`);
  const html = await buildReport(r.outDir);
  for (const id of ids) assert.ok(html.includes(id), `the report names ${id}`);
});

test("a later --only run keeps the registered retriever's earlier row; an unknown id is still a usage error naming the closest", async () => {
  const outRoot = path.join(tmp, "b");
  await reproduce(loaded, { outRoot, only: ["oracle-probe"] });
  const again = await reproduce(loaded, { outRoot, only: ["bm25-greekstemmer"] });
  assert.deepEqual((await summaryOf(again.outDir)).map((x) => x.experiment).sort(), ["bm25-greekstemmer", "oracle-probe"]);
  await assert.rejects(reproduce(loaded, { outRoot, only: ["oracle-prob"] }), (e: unknown) => {
    assert.ok(e instanceof GbrError && e.code === "USAGE");
    assert.match(e.message, /unknown experiment id 'oracle-prob' \(did you mean 'oracle-probe'/);
    return true;
  });
  await assert.rejects(reproduce(loaded, { outRoot, only: ["rrf:bm25-spacy+lsi"] }), /unknown experiment id 'rrf:bm25-spacy\+lsi'/, "a composition of built-ins alone is no new experiment");
  await assert.rejects(reproduce(loaded, { outRoot, only: ["oracle-probe"], official: true }), /beyond it/, "--official runs the authors' list only");
});

test("a composition with an LLM method needs the chat model, so --repeat samples it as it does the paper's", () => {
  const needs = (id: string) => userExperiments([id], [])[0]?.needs;
  assert.deepEqual(needs("oracle-probe"), []);
  assert.deepEqual(needs("rrf:bm25-greekstemmer+oracle-probe"), []);
  for (const id of ["reform:oracle-probe", "translate:oracle-probe", "rerank:llm:oracle-probe", "rrf:react-bm25+oracle-probe"]) assert.deepEqual(needs(id), ["llm"], id);
  assert.deepEqual(needs("rerank:bge-reranker-v2-m3:oracle-probe"), []);
});
