/**
 * A made-up chat model for the OpenAI-compatible double, answering each of the project's
 * methods in the format it parses: keyword rewrites (KEYWORDS:), prose rewrites (QUERY:), a
 * planner (REASON: / QUERY:), an observer (RELEVANT: id | reason), a listwise re-ranker
 * ("[2] > [1] > …") and a letter-by-letter "translation". Used by scripts/serve-doubles.ts (the notebooks' headless run) and by tests
 * that need every LLM method to run end to end. Its answers say the code ran, nothing more.
 */
import { foldLower } from "../../lib/text/normalize";
import type { ChatAnswer, ChatCompletionBody } from "./openai-server";

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
 *
 * @example
 * const api = await startOpenAIDouble();
 * api.chat(scriptedModel);
 */
export function scriptedModel(body: ChatCompletionBody): ChatAnswer {
  const system = String(body.messages.find((m) => m.role === "system")?.content ?? "");
  const user = String(body.messages.filter((m) => m.role === "user").pop()?.content ?? "");
  const usage = { prompt_tokens: Math.ceil(user.length / 4) + Math.ceil(system.length / 4), completion_tokens: 60 };
  const answer = (content: string): ChatAnswer => ({ content, usage: { ...usage, completion_tokens: Math.ceil(content.length / 4) } });

  // Listwise re-ranker: the window's articles by the number of content words they share with the
  // question, most first (ties in the given order), as "[i] > [j] > …".
  if (/αριθμημένα από \[1\] έως \[\d+\]/.test(user)) {
    const question = new Set(keywords(between(user, TOPIC, ["\n\nΆρθρα (απόσπασμα"])).map(foldLower));
    const passages = [...user.matchAll(/^\[(\d+)\] (.*)$/gm)].map((m) => ({ id: Number(m[1]), shared: keywords(m[2]).filter((w) => question.has(foldLower(w))).length }));
    passages.sort((x, y) => y.shared - x.shared || x.id - y.id);
    return answer(passages.map((p) => `[${p.id}]`).join(" > "));
  }
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

