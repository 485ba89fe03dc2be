/**
 * Starts the local API doubles (test/fakes/) so that the notebooks' LLM and embedding code runs
 * its real paths (SDKs, retries, caches, traces) without a model server or the internet:
 *
 * - an OpenAI-compatible double (chat completions and embeddings) whose chat answers are
 *   scripted from the prompts, in the formats the methods parse: keyword rewrites (KEYWORDS:),
 *   prose rewrites (QUERY:), a planner (REASON: / QUERY:), an observer (RELEVANT: id | reason)
 *   and a word-by-word "translation";
 * - a Gemini double for the gemini-001 preset.
 *
 * Prints `export NAME=value` lines for a shell to source, then a line `# ready`, and serves
 * until it is sent SIGTERM or SIGINT. The answers are made up: every number computed with them
 * says that the code ran, nothing about retrieval quality.
 *
 * Usage: node --import tsx scripts/serve-doubles.ts [--dir DIR]
 *   --dir DIR   where to write the embedding presets the doubles serve (default: a temp folder)
 *
 * @example
 * node --import tsx scripts/serve-doubles.ts --dir /tmp/nb > /tmp/nb/doubles.env &
 * until grep -q '^# ready' /tmp/nb/doubles.env; do sleep 0.2; done; . /tmp/nb/doubles.env
 */
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { builtinPresets } from "../lib/dense/presets";
import { foldLower } from "../lib/text/normalize";
import { startOpenAIDouble, type ChatAnswer, type ChatCompletionBody } from "../test/fakes/openai-server";
import { startGeminiDouble } from "../test/fakes/gemini-server";

/** Vector size of the OpenAI-compatible double (every local preset is re-declared with it). */
const DIMS = 32;

const TOPIC = "Νομικό θέμα (πραγματικά περιστατικά και ερώτηση):\n\n";

/** The text between the last `start` and the first following `end` marker found (or the rest). */
function between(text: string, start: string, ends: string[]): string {
  const i = text.lastIndexOf(start);
  if (i < 0) return text;
  const rest = text.slice(i + start.length);
  const cut = Math.min(...ends.map((e) => rest.indexOf(e)).filter((j) => j >= 0), rest.length);
  return rest.slice(0, cut);
}

/** Distinct content words (six letters or more, accents ignored) of a text, in order. */
function keywords(text: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const w of text.match(/[\p{L}]{6,}/gu) ?? []) {
    const key = foldLower(w);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(w.toLowerCase());
  }
  return out;
}

const GREEK_TO_LATIN: Record<string, string> = {
  α: "a", β: "v", γ: "g", δ: "d", ε: "e", ζ: "z", η: "i", θ: "th", ι: "i", κ: "k", λ: "l", μ: "m", ν: "n", ξ: "x",
  ο: "o", π: "p", ρ: "r", σ: "s", ς: "s", τ: "t", υ: "y", φ: "f", χ: "ch", ψ: "ps", ω: "o",
};

/** The double's "translation": the Greek text transliterated letter by letter (deterministic). */
function transliterate(text: string): string {
  return foldLower(text).replace(/\p{L}/gu, (c) => GREEK_TO_LATIN[c] ?? c);
}

/**
 * The scripted model. It recognises each method by its prompt and answers in that method's
 * format, using the question's own words so that the downstream retrieval has something to
 * work with; unknown prompts get an echo of their first words.
 */
function scripted(body: ChatCompletionBody): ChatAnswer {
  const system = String(body.messages.find((m) => m.role === "system")?.content ?? "");
  const user = String(body.messages.filter((m) => m.role === "user").pop()?.content ?? "");
  const usage = { prompt_tokens: Math.ceil(user.length / 4) + Math.ceil(system.length / 4), completion_tokens: 60 };
  const answer = (content: string): ChatAnswer => ({ content, usage: { ...usage, completion_tokens: Math.ceil(content.length / 4) } });

  // Observer: keep the articles of the batch that share at least two content words with the question.
  if (user.includes("Άρθρα που επέστρεψε η αναζήτηση BM25")) {
    const question = new Set(keywords(between(user, TOPIC, ["\n\nΆρθρα που επέστρεψε"])).map(foldLower));
    const lines: string[] = [];
    for (const m of user.matchAll(/\[DOC\]\ndoc_id: (.*)\ntext: ([\s\S]*?)\n\[\/DOC\]/g)) {
      const shared = keywords(m[2]).filter((w) => question.has(foldLower(w)));
      if (shared.length >= 2 && lines.length < 5) lines.push(`${m[1]} | κοινοί όροι με το θέμα: ${shared.slice(0, 4).join(", ")}`);
    }
    return answer(lines.length ? `<think>συγκρίνω τους όρους</think>RELEVANT:\n${lines.join("\n")}` : "RELEVANT: NONE");
  }
  // Planner: round 1 from the question's first content words, later rounds from the next ones.
  if (user.includes("πρώτος γύρος") || /Γύρος \d+ από \d+/.test(user)) {
    const round = Number(/Γύρος (\d+) από/.exec(user)?.[1] ?? "1");
    const words = keywords(between(user, TOPIC, ["\n\nΑυτός είναι ο πρώτος γύρος", "\n\nΓύρος "]));
    const start = words.length ? ((round - 1) * 6) % words.length : 0;
    const query = [...words.slice(start), ...words.slice(0, start)].slice(0, 10).join(" ");
    return answer(`REASON:\nΓύρος ${round}: όροι του θέματος που δεν έχουν καλυφθεί.\n\nQUERY:\n${query}`);
  }
  // Reformulation: keywords for BM25, a paragraph for dense models.
  if (user.includes("Θέμα:")) {
    const topic = between(user, "Θέμα:\n\n", ["\n\nΑπάντησε τώρα"]);
    if (user.includes("KEYWORDS")) return answer(`KEYWORDS: ${keywords(topic).slice(0, 25).join(", ")}`);
    return answer(`QUERY: Το νομικό ζήτημα αφορά ${keywords(topic).slice(-20).join(" ")}.`);
  }
  // Translation: the source text, transliterated.
  if (system.startsWith("You translate")) return answer(transliterate(between(user, "--- GREEK TEXT ---\n", ["\n--- END OF GREEK TEXT ---"])));
  return answer(`echo: ${user.slice(0, 200)}`);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const dirAt = args.indexOf("--dir");
  const dir = dirAt >= 0 && args[dirAt + 1] ? path.resolve(args[dirAt + 1]) : mkdtempSync(path.join(os.tmpdir(), "gbr-doubles-"));
  mkdirSync(dir, { recursive: true });

  const openai = await startOpenAIDouble({ dims: DIMS });
  openai.chat(scripted);
  const gemini = await startGeminiDouble({ usage: true });

  // The built-in local presets name real vector sizes (4096, 2560 …); the double serves DIMS.
  // Everything else follows GBR_EMBED_NAMES, so the authors' request shape can be tried here too.
  const presets = builtinPresets()
    .filter((p) => p.provider === "openai")
    .map((p) => ({
      name: p.name,
      provider: p.provider,
      model: p.model,
      dims: DIMS,
      queryTemplate: p.queryTemplate,
      documentTemplate: p.documentTemplate,
      ...(p.batchSize !== undefined ? { batchSize: p.batchSize } : {}),
      ...(p.input !== undefined ? { input: p.input } : {}),
      ...(p.server !== undefined ? { server: p.server } : {}),
    }));
  const presetsFile = path.join(dir, "presets.json");
  writeFileSync(presetsFile, JSON.stringify({ presets }, null, 2) + "\n");

  const env: Record<string, string> = {
    GBR_CHAT_BASE_URL: `${openai.url}/v1`,
    GBR_CHAT_MODEL: "openai/gpt-oss-120b",
    GBR_EMBED_BASE_URL: `${openai.url}/v1`,
    GBR_PRESETS: presetsFile,
    GBR_GEMINI_BASE_URL: gemini.url,
    GEMINI_API_KEY: "local-double",
  };
  const quote = (v: string) => `'${v.replace(/'/g, `'\\''`)}'`;
  process.stdout.write(Object.entries(env).map(([k, v]) => `export ${k}=${quote(v)}\n`).join("") + "# ready\n");

  const stop = async () => {
    process.stderr.write(`serve-doubles: ${openai.count("chat/completions")} chat and ${openai.count("embeddings")} embedding requests, ${gemini.count()} Gemini requests; stopping\n`);
    await Promise.allSettled([openai.close(), gemini.close()]);
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop());
  process.on("SIGINT", () => void stop());
}

main().catch((err: unknown) => {
  process.stderr.write(`serve-doubles: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
