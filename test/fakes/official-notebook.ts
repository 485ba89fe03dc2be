/**
 * A synthetic stand-in for the authors' experiments notebook, for tests that pull the official
 * prompts (`gbr prompts pull`) from a local raw-file double: the cells that hold the constants in
 * the authors' notebook, in their order (the two rewrite prompts in one cell, the rewrite call in
 * the next, the two translation prompts together, then one cell per REACT prompt), with
 * placeholder texts written for the tests. The authors' texts never enter the repository.
 *
 * Each placeholder system prompt carries a marker ([PLANNER], [OBSERVER], [REWRITER],
 * [TRANSLATOR]) so a scripted chat double can tell the roles apart.
 *
 * @example
 * const raw = await startStaticServer({ [OFFICIAL_NOTEBOOK_URL_PATH]: SYNTHETIC_NOTEBOOK });
 * // then GBR_GITHUB_RAW_URL=raw.url gbr prompts pull
 */
import { OFFICIAL_COMMIT, OFFICIAL_NOTEBOOK_PATH, OFFICIAL_REPO } from "../../lib/llm/official-prompts";

/** The placeholder texts of the nine constants and of the inline rewrite system message. */
export const SYNTHETIC_PROMPTS = {
  SPARSE_REWRITE_PROMPT: "[SPARSE-REWRITE] Λέξεις-κλειδιά για το ερώτημα:\n\n{original_query}",
  DENSE_REWRITE_PROMPT: "[DENSE-REWRITE] Μία παράγραφος για το ερώτημα:\n\n{original_query}",
  REWRITE_SYSTEM: "[REWRITER] Rewrite as asked.",
  TRANSLATION_SYSTEM: "[TRANSLATOR] Translate Greek legal text into English.",
  TRANSLATION_USER: "Type: {text_type}\nId: {item_id}\n\n<<<\n{source_text}\n>>>",
  PLANNER_SYSTEM: "[PLANNER] Γράψε REASON: και QUERY:.",
  PLANNER_FIRST: "[FIRST] Ερώτημα:\n\n{original_query}\n\nΠρώτο query.",
  PLANNER_NEXT: "[NEXT] Ερώτημα:\n\n{original_query}\n\nΓύρος:\n{round_idx} από {max_rounds}\n\nΠριν:\n{query_history}\n\nΚείμενα:\n{kept_docs_summary}\n\nΕπόμενο query.",
  OBSERVER_SYSTEM: "[OBSERVER] Κράτησε τα χρήσιμα: RELEVANT: ή RELEVANT: NONE.",
  OBSERVER_USER: "[OBS-USER] Ερώτημα:\n\n{original_query}\n\nΑποτελέσματα:\n\n{retrieved_docs_block}\n\nΜόνο αυτά.",
};

const P = SYNTHETIC_PROMPTS;
const py = (s: string) => `"""${s}"""`;
const CELLS = [
  `from pathlib import Path\nCHAT_MODEL = "openai/gpt-oss-120b"\n`,
  `SPARSE_REWRITE_PROMPT = ${py(P.SPARSE_REWRITE_PROMPT)}\n\nDENSE_REWRITE_PROMPT = ${py(P.DENSE_REWRITE_PROMPT)}\n`,
  `def rewrite_all(kind):\n    prompt = SPARSE_REWRITE_PROMPT if kind == "sparse" else DENSE_REWRITE_PROMPT\n    for qid, original in queries.items():\n        raw = chat(${JSON.stringify(P.REWRITE_SYSTEM)}, prompt.format(original_query=original))\n`,
  `TRANSLATION_SYSTEM = ${py(P.TRANSLATION_SYSTEM)}\n\nTRANSLATION_USER = ${py(P.TRANSLATION_USER)}\n`,
  `PLANNER_SYSTEM = ${py(P.PLANNER_SYSTEM)}\n`,
  `PLANNER_FIRST = ${py(P.PLANNER_FIRST)}\n`,
  `PLANNER_NEXT = ${py(P.PLANNER_NEXT)}\n`,
  `OBSERVER_SYSTEM = ${py(P.OBSERVER_SYSTEM)}\n`,
  `OBSERVER_USER = ${py(P.OBSERVER_USER)}\n`,
];

/** The notebook's JSON, as raw.githubusercontent.com would serve the file. */
export const SYNTHETIC_NOTEBOOK = JSON.stringify({
  cells: CELLS.map((src) => ({ cell_type: "code", execution_count: null, metadata: {}, outputs: [], source: src.split(/(?<=\n)/) })),
  metadata: {},
  nbformat: 4,
  nbformat_minor: 5,
});

/** Where `gbr prompts pull` asks a raw-file host for the notebook. */
export const OFFICIAL_NOTEBOOK_URL_PATH = `/${OFFICIAL_REPO}/${OFFICIAL_COMMIT}/${OFFICIAL_NOTEBOOK_PATH}`;
