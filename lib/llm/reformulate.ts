/** One-shot LLM query rewriting (the paper's "Reform-"): a case becomes 20–30 Greek legal keywords or legal prose. */
import { runCachedCalls, type CachedCallOptions } from "./cached-calls";
import { parseRewriteOfficial } from "./official-parsers";
import { fillPrompt, notebookParams, PromptError, type PromptSet } from "./prompts";
import { stripReasoning, type ChatModel, type ChatRequest } from "../models/chat";

export type RewriteKind = "sparse" | "dense";

/** The paper's reformulation sampling settings (DESIGN.md §6, the notebook's chat()). */
export const REFORMULATION_PARAMS = notebookParams(0.2, 42000) satisfies Partial<ChatRequest>;

/** The start of another labelled section (REASON:, NOTE:, …): the answer's part we want ends there. */
const NEXT_SECTION = /\n[ \t>#*_-]*(?:\*\*|__)?[A-Z][A-Z_ ]{2,}(?:\*\*|__)?[ \t]*:/;

/** The text after the first `LABEL:` (emphasis allowed around it), up to the next labelled section; else the whole text. */
function afterLabel(text: string, labels: readonly string[]): string {
  const label = new RegExp(`(?:\\*\\*|__)?\\b(?:${labels.join("|")})\\b(?:\\*\\*|__)?[ \\t]*[:：][ \\t]*(?:\\*\\*|__)?`, "i");
  const m = label.exec(text);
  if (!m) return text;
  const rest = text.slice(m.index + m[0].length);
  const end = NEXT_SECTION.exec(rest);
  return end ? rest.slice(0, end.index) : rest;
}

/** Markdown and punctuation a model wraps around an item: emphasis, code ticks, quotes, a final full stop. */
function unwrap(s: string): string {
  let t = s.trim();
  for (let guard = 0; guard < 4; guard++) {
    const before = t;
    t = t.replace(/^(\*\*|__|\*|_|`)+|(\*\*|__|\*|_|`)+$/g, "").trim();
    t = t.replace(/^["'«“‘]+|["'»”’]+$/g, "").trim();
    t = t.replace(/\.$/, "").trim();
    if (t === before) break;
  }
  return t;
}

/** Items after `KEYWORDS:` (else all), bullets and numbering dropped, joined by ", "; "" if none is left. */
export function parseSparseRewrite(text: string): string {
  const body = afterLabel(stripReasoning(text), ["KEYWORDS"]);
  return body
    .split(/[,\n，]/)
    .map((item) => item.replace(/^\s*(?:[-*•▪●–—]+\s*|\d{1,2}[.)]\s+)/, ""))
    .map(unwrap)
    .filter((item) => item !== "")
    .join(", ");
}

/** Text after `QUERY:`/`REWRITTEN_QUERY:` (else all) as one paragraph, wrapping quotes and emphasis dropped. */
export function parseDenseRewrite(text: string): string {
  const body = afterLabel(stripReasoning(text), ["QUERY", "REWRITTEN_QUERY"]);
  const para = body.replace(/\s+/g, " ").trim();
  // Only wrapping marks: the full stop that ends the paragraph is part of the prose.
  return para.replace(/^(\*\*|__|["«“])+|(\*\*|__|["»”])+$/g, "").trim();
}

/** The set's REWRITE_SYSTEM: a stand-in would silently make every official request differ from the authors'. */
function rewriteSystemFor(prompts: PromptSet): string {
  const system = prompts.extras.REWRITE_SYSTEM;
  if (system !== undefined) return system;
  const why = `the notebook's rewrite system message was not found in ${prompts.source}`;
  const fix = "run `gbr prompts pull` again, or use the project prompts";
  throw new PromptError(`the ${prompts.name} prompt set has no REWRITE_SYSTEM (${why}); ${fix}`, "MISSING_CONSTANTS");
}

export function buildRewriteRequest(queryText: string, kind: RewriteKind, prompts: PromptSet): ChatRequest {
  const template = kind === "sparse" ? prompts.texts.SPARSE_REWRITE_PROMPT : prompts.texts.DENSE_REWRITE_PROMPT;
  return {
    system: rewriteSystemFor(prompts),
    user: fillPrompt(template, { original_query: queryText }),
    ...REFORMULATION_PARAMS,
  };
}

/** The rewrite per query id; the project parser falls back to the query, the authors' leaves an empty rewrite empty. */
export async function reformulate(
  queries: readonly { id: string; text: string }[],
  kind: RewriteKind,
  model: ChatModel,
  prompts: PromptSet,
  opts: CachedCallOptions = {},
): Promise<Map<string, string>> {
  const official = prompts.name === "official";
  const parse = kind === "sparse" ? parseSparseRewrite : parseDenseRewrite;
  const out = await runCachedCalls(queries, model, opts, {
    label: `reformulate ${kind}`,
    request: (q) => buildRewriteRequest(q.text, kind, prompts),
    // A replayed or raw answer may still hold a think block, which must never reach BM25.
    parse: official ? parseRewriteOfficial : (raw) => parse(stripReasoning(raw)),
    keepEmpty: official,
  });
  const empty = official ? [...out.values()].filter((t) => t === "").length : 0;
  if (empty > 0) opts.log?.(`reformulate ${kind}: ${empty} rewrite(s) are empty after the authors' parsing; as in their notebook, they are searched as they are`);
  return out;
}
