// The one configuration (lib/config.ts): every variable keeps its documented name and meaning, a
// malformed value is a usage error naming its variable, and what outputs record of it has no secret.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { configRecord, configuredDataDir, DEFAULT_CONCURRENCY, INSTALLED, PACKAGE_ROOT, readConfig, userCacheDir } from "../../../lib/config";
import { maskCredentials } from "../../../lib/util/http";
import { REPO } from "../../helpers/shared";

test("concurrency: per kind, then --concurrency, then GBR_CONCURRENCY, then the kind's default; a bad value names its variable", () => {
  assert.equal(readConfig({}).chat.concurrency, DEFAULT_CONCURRENCY.chat);
  assert.equal(readConfig({}).embed.concurrency, 2);
  assert.equal(readConfig({ GBR_CONCURRENCY: "12" }).rerank.concurrency, 12);
  assert.equal(readConfig({ GBR_CONCURRENCY: "12", GBR_CHAT_CONCURRENCY: "3" }).chat.concurrency, 3);
  assert.equal(readConfig({ GBR_CHAT_CONCURRENCY: "3" }).embed.concurrency, 2, "another kind's setting does not apply");
  assert.equal(readConfig({ GBR_CONCURRENCY: "12" }, { concurrency: 5 }).embed.concurrency, 5, "the flag wins over GBR_CONCURRENCY");
  assert.equal(readConfig({ GBR_EMBED_CONCURRENCY: "7" }, { concurrency: 5 }).embed.concurrency, 7, "a kind's own variable wins over the flag");
  assert.throws(() => readConfig({ GBR_CHAT_CONCURRENCY: "0" }), /GBR_CHAT_CONCURRENCY must be a positive integer .*got '0'/);
  assert.throws(() => readConfig({ GBR_CONCURRENCY: "lots" }), /GBR_CONCURRENCY must be a positive integer/);
});

test("servers, keys and models: the GBR_ variable first, then the OpenAI one", () => {
  const c = readConfig({ OPENAI_BASE_URL: "http://a:1/v1", OPENAI_API_KEY: "sk-o", GBR_EMBED_BASE_URL: "http://e1:2/v1, http://e2:2/v1", GBR_CHAT_MODEL: "gpt-oss:20b" });
  assert.deepEqual(c.chat.baseUrls, ["http://a:1/v1"]);
  assert.equal(c.chat.urlVariable, "OPENAI_BASE_URL");
  assert.equal(c.chat.apiKey, "sk-o");
  assert.equal(c.chat.model, "gpt-oss:20b");
  assert.deepEqual(c.embed.baseUrls, ["http://e1:2/v1", "http://e2:2/v1"]);
  assert.equal(c.embed.urlVariable, "GBR_EMBED_BASE_URL");
  assert.equal(readConfig({ GBR_CHAT_API_KEY: "sk-g", OPENAI_API_KEY: "sk-o" }).chat.apiKey, "sk-g");
  assert.deepEqual(readConfig({}).rerank.baseUrls, []);
  assert.equal(readConfig({ GOOGLE_API_KEY: "g" }).gemini.apiKey, "g");
  assert.equal(readConfig({ GEMINI_API_KEY: "k", GOOGLE_API_KEY: "g" }).gemini.apiKey, "k");
});

test("deadlines: GBR_REQUEST_TIMEOUT_S for every kind, else each kind's default", () => {
  const d = readConfig({});
  assert.deepEqual([d.chat.timeoutMs, d.embed.timeoutMs, d.rerank.timeoutMs], [600_000, 60_000, 120_000]);
  const t = readConfig({ GBR_REQUEST_TIMEOUT_S: "2.5" });
  assert.deepEqual([t.chat.timeoutMs, t.embed.timeoutMs, t.rerank.timeoutMs, t.gemini.timeoutS], [2500, 2500, 2500, 2.5]);
  assert.throws(() => readConfig({ GBR_REQUEST_TIMEOUT_S: "0" }), /GBR_REQUEST_TIMEOUT_S must be a number of seconds/);
});

test("the other settings: caps, naming, rerank API, rerankers, offline, data folder", () => {
  assert.equal(readConfig({}).chat.caps, undefined);
  assert.deepEqual(readConfig({ GBR_CHAT_RPM: "500", GBR_CHAT_TPM: "2000000" }).chat.caps, { requestsPerMinute: 500, tokensPerMinute: 2_000_000 });
  assert.deepEqual(readConfig({ GBR_EMBED_TPM: "1e6" }).embed.caps, { tokensPerMinute: 1_000_000 });
  assert.equal(readConfig({ GBR_CHAT_RPM: "5" }).rerank.caps, undefined);
  assert.throws(() => readConfig({ GBR_CHAT_RPM: "-3" }), /GBR_CHAT_RPM must be a positive number/);
  assert.equal(readConfig({}).embed.naming, "hf");
  assert.equal(readConfig({ GBR_EMBED_NAMES: " authors " }).embed.naming, "authors");
  assert.throws(() => readConfig({ GBR_EMBED_NAMES: "lmstudio" }), /GBR_EMBED_NAMES must be "hf" or "authors", got 'lmstudio'/);
  assert.throws(() => readConfig({ GBR_RERANK_API: "cohere" }), /GBR_RERANK_API must be "rerank" or "tei"/);
  assert.deepEqual(readConfig({ GBR_RERANKERS: "qwen3-reranker-8b, bge-reranker-v2-m3,qwen3-reranker-8b" }).rerankers, ["qwen3-reranker-8b", "bge-reranker-v2-m3"]);
  assert.equal(readConfig({ GBR_OFFLINE: "yes" }).offline, true);
  assert.equal(readConfig({ GBR_OFFLINE: "0" }).offline, false);
  assert.equal(readConfig({ GBR_DATA_DIR: "/tmp/x" }).dataDir, "/tmp/x");
});

test("the data folder: GBR_DATA_DIR, else data/ of a checkout, else (an installed package) the user's cache folder", () => {
  assert.equal(INSTALLED, false, "the repository is a checkout");
  assert.equal(configuredDataDir({}), path.join(PACKAGE_ROOT, "data"));
  assert.equal(configuredDataDir({ GBR_DATA_DIR: "/tmp/x" }, true), "/tmp/x");
  assert.equal(configuredDataDir({ XDG_CACHE_HOME: "/c" }, true), "/c/greekbar-retrieval");
  assert.equal(userCacheDir({}, "linux", "/home/u"), "/home/u/.cache/greekbar-retrieval");
  // The XDG specification: a relative path is invalid and ignored.
  assert.equal(userCacheDir({ XDG_CACHE_HOME: "cache" }, "linux", "/home/u"), "/home/u/.cache/greekbar-retrieval");
  assert.equal(userCacheDir({}, "darwin", "/Users/u"), "/Users/u/Library/Caches/greekbar-retrieval");
  assert.equal(userCacheDir({ LOCALAPPDATA: "D:/local" }, "win32", "C:/Users/u"), path.join("D:/local", "greekbar-retrieval", "Cache"));
  assert.equal(userCacheDir({}, "win32", "C:/Users/u"), path.join("C:/Users/u", "AppData", "Local", "greekbar-retrieval", "Cache"));
});

test("what a run records of its configuration has endpoints as scheme://host:port and no key", () => {
  const secret = "test-secret-not-a-real-key-42";
  const c = readConfig({ GBR_CHAT_BASE_URL: "http://gpu1:8000/v1/route-abc", GBR_CHAT_API_KEY: secret, GEMINI_API_KEY: secret, GBR_RERANK_API_KEY: secret, GBR_REPLAY_FILE: "/shared/run.jsonl" });
  const record = configRecord(c);
  const text = JSON.stringify(record);
  assert.ok(!text.includes(secret), text);
  assert.ok(!text.includes("mode=abc"), "no path or query string is recorded");
  assert.deepEqual((record.chat as { endpoints: string[] }).endpoints, ["http://gpu1:8000"]);
  assert.equal((record.chat as { key: boolean }).key, true);
});

test("lib/ reads the environment in one file: lib/config.ts", () => {
  const readers: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith(".ts")) {
        // Doc comments may show how a user sets a variable; code may not read one.
        const code = readFileSync(p, "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
        if (code.includes("process.env")) readers.push(path.relative(REPO, p));
      }
    }
  };
  walk(path.join(REPO, "lib"));
  assert.deepEqual(readers, ["lib/config.ts"]);
});

test("a base URL that is not a URL is refused at once, naming the variable and not showing the value", () => {
  for (const value of ["http://user:SECRET8@ho st/v1", "localhost :8000/v1"]) {
    assert.throws(
      () => readConfig({ GBR_CHAT_BASE_URL: value }),
      (err: Error & { code?: string }) => err.code === "INVALID_URL" && err.message.includes("GBR_CHAT_BASE_URL") && !/SECRET|host/.test(err.message),
    );
  }
});

test("issue 22, item 2: a secret in a URL's query string is refused for every URL variable, masked in the message", () => {
  for (const name of ["GBR_CHAT_BASE_URL", "OPENAI_BASE_URL", "GBR_EMBED_BASE_URL", "GBR_LMSTUDIO_BASE_URL", "GBR_RERANK_BASE_URL", "GBR_GEMINI_BASE_URL", "HF_ENDPOINT", "GBR_SPACY_BASE_URL", "GBR_GITHUB_RAW_URL"]) {
    for (const query of ["api_key=sk-SECRET1", "key=SECRET2", "token=SECRET3", "Access_Token=SECRET4"]) {
      const url = `http://localhost:8000/v1?${query}`;
      assert.throws(
        () => readConfig({ [name]: `http://other:1/v1,${url}` }),
        (err: Error & { code?: string }) => {
          assert.equal(err.code, "CREDENTIALS_IN_URL", name);
          assert.ok(err.message.includes(name), err.message);
          assert.doesNotMatch(err.message, /SECRET/, "the secret never reaches the message");
          return true;
        },
      );
    }
  }
  assert.equal(maskCredentials("http://u:p@h/v1?token=abc&x=1"), "http://***:***@h/v1?token=***&x=1");
});

test("issue 29, row 6: any query string or fragment in a base URL is refused, naming the variable and the key variable, value unshown", () => {
  // Requests are appended to the base URL's path: a query would mangle it, a fragment would cut it off.
  const cases: [string, string | undefined][] = [
    ["GBR_CHAT_BASE_URL", "GBR_CHAT_API_KEY"],
    ["GBR_EMBED_BASE_URL", "GBR_EMBED_API_KEY"],
    ["GBR_RERANK_BASE_URL", "GBR_RERANK_API_KEY"],
    ["GBR_GEMINI_BASE_URL", "GEMINI_API_KEY"],
    ["HF_ENDPOINT", "HF_TOKEN"],
    ["GBR_SPACY_BASE_URL", undefined],
  ];
  for (const [name, keyVariable] of cases) {
    for (const tail of ["?subscription-key=SECRET5", "?code=SECRET6", "?mode=fast", "#SECRET7"]) {
      assert.throws(
        () => readConfig({ [name]: `http://localhost:8000/v1${tail}` }),
        (err: Error & { code?: string; hint?: string }) => {
          assert.equal(err.code, "QUERY_IN_URL", `${name}${tail}: ${err.message}`);
          assert.ok(err.message.includes(name), err.message);
          assert.ok(err.message.includes("http://localhost:8000/v1"), err.message);
          assert.doesNotMatch(`${err.message} ${err.hint ?? ""}`, /SECRET|fast/, "the query's values never reach the message");
          if (keyVariable) assert.ok(String(err.hint).includes(keyVariable), String(err.hint));
          return true;
        },
      );
    }
  }
});
