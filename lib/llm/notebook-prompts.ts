/** The paper's prompts from the notebook JSON: nine constants plus, best-effort, the inline rewrite system message. */
import { extractStringConstants, literalStartsAt, parsePythonStringLiteral, type ConstantResult } from "./python-literals";
import { PROMPT_NAMES, PromptError, type ExtraPromptName, type PromptName } from "./prompts";
import { parsedOr } from "../util/errors";

/** Code cells, `%%` magics skipped (`%`/`!` lines stay: a prompt line inside a string may start with "!"). */
function notebookCodeCells(notebookJson: string): string[] {
  const invalid = (why: string) => new PromptError(`the notebook is not valid JSON (${why})`, "INVALID");
  const nb: unknown = parsedOr(() => JSON.parse(notebookJson), invalid);
  const cells = (nb as { cells?: unknown }).cells;
  if (!Array.isArray(cells)) throw new PromptError("the notebook has no 'cells' list (nbformat 4 expected)", "INVALID");
  return (cells as { cell_type?: unknown; source?: unknown }[])
    .filter((cell) => cell?.cell_type === "code")
    .map((cell) => (Array.isArray(cell.source) ? cell.source.join("") : typeof cell.source === "string" ? cell.source : ""))
    .filter((src) => !/^\s*%%/.test(src));
}

export interface NotebookPrompts {
  texts: Record<PromptName, string>;
  extras: Partial<Record<ExtraPromptName, { text: string; foundBy: string }>>;
}

/** Missing or non-literal constants raise one PromptError (MISSING_CONSTANTS) listing each with its reason. */
export function extractPromptsFromNotebook(notebookJson: string): NotebookPrompts {
  const cells = notebookCodeCells(notebookJson);
  const results = new Map<string, ConstantResult & { cell: number }>();
  cells.forEach((src, cell) => {
    for (const [name, r] of extractStringConstants(src, PROMPT_NAMES)) results.set(name, { ...r, cell });
  });
  const problems: string[] = [];
  const texts = {} as Record<PromptName, string>;
  for (const name of PROMPT_NAMES) {
    const r = results.get(name);
    if (!r) problems.push(`${name} (not assigned in any code cell)`);
    else if (!r.ok) problems.push(`${name} (code cell ${r.cell + 1}: ${r.error})`);
    else texts[name] = r.value;
  }
  if (problems.length > 0) {
    throw new PromptError(
      `the notebook lacks ${problems.length} of the ${PROMPT_NAMES.length} prompt constants: ${problems.join("; ")}`,
      "MISSING_CONSTANTS",
    );
  }
  const rewriteSystem = findRewriteSystem(cells);
  return { texts, extras: rewriteSystem ? { REWRITE_SYSTEM: rewriteSystem } : {} };
}

/** The rewrite system message, inline in the notebook: a cell's first string-literal call that fills `original_query`. */
function findRewriteSystem(cells: string[]): { text: string; foundBy: string } | undefined {
  for (let c = 0; c < cells.length; c++) {
    const src = cells[c].replace(/\r\n?/g, "\n");
    if (!/\bSPARSE_REWRITE_PROMPT\b/.test(src) || extractStringConstants(src, ["SPARSE_REWRITE_PROMPT"]).size > 0) continue;
    const call = /\b[A-Za-z_]\w*\(\s*/g;
    let m: RegExpExecArray | null;
    while ((m = call.exec(src)) !== null) {
      const at = m.index + m[0].length;
      if (!literalStartsAt(src, at)) continue;
      try {
        const lit = parsePythonStringLiteral(src, at);
        const rest = src.slice(lit.end, src.indexOf("\n", lit.end) === -1 ? undefined : src.indexOf("\n", lit.end));
        if (/original_query/.test(rest)) {
          return { text: lit.value, foundBy: `first string argument of the chat call that fills original_query (code cell ${c + 1})` };
        }
      } catch {
        // not a readable literal: keep looking
      }
    }
  }
  return undefined;
}
