/** Pure parsers of spaCy's lemma and stopword files into the values lib/text/spacy-lexicon.ts holds. */
import { DataError } from "../util/errors";

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** `en_lemma_lookup.json`: `{ form: lemma }`, NFC, non-strings skipped; DataError when not an object or empty. */
export function parseLemmaLookup(json: unknown, file: string): Map<string, string> {
  if (!isObject(json)) throw new DataError("expected a JSON object of form -> lemma", file);
  const out = new Map<string, string>();
  for (const [form, lemma] of Object.entries(json)) if (typeof lemma === "string") out.set(form.normalize("NFC"), lemma.normalize("NFC"));
  if (out.size === 0) throw new DataError("lemma lookup table is empty", file);
  return out;
}

/** A `{ pos: value }` table by lower-case POS; entries whose value `read` refuses (undefined) are skipped. */
function perPos<V>(json: unknown, file: string, shape: string, read: (value: unknown) => V | undefined): Map<string, V> {
  if (!isObject(json)) throw new DataError(`expected a JSON object of pos -> ${shape}`, file);
  const out = new Map<string, V>();
  for (const [pos, value] of Object.entries(json)) {
    const v = read(value);
    if (v !== undefined) out.set(pos.toLowerCase(), v);
  }
  return out;
}

const isText = (x: unknown): x is string => typeof x === "string" && x !== "";

/** `el_lemma_index.json`: `{ pos: [lemma, ...] }` -> pos -> Set of lower-cased lemmas; DataError if it has none. */
export function parseLemmaIndex(json: unknown, file: string): Map<string, Set<string>> {
  const out = perPos(json, file, "[lemma, ...]", (list) =>
    Array.isArray(list) ? new Set(list.filter(isText).map((w) => w.normalize("NFC").toLowerCase())) : undefined,
  );
  if (out.size === 0) throw new DataError("lemma index has no POS lists", file);
  return out;
}

/** `el_lemma_exc.json`: `{ pos: { form: [lemma, ...] } }`, forms lower-cased as spaCy looks them up; first wins. */
export function parseLemmaExceptions(json: unknown, file: string): Map<string, Map<string, string[]>> {
  return perPos(json, file, "{ form: [lemma, ...] }", (table) => {
    if (!isObject(table)) return undefined;
    const m = new Map<string, string[]>();
    for (const [form, lemmas] of Object.entries(table)) {
      const list = (Array.isArray(lemmas) ? lemmas : [lemmas]).filter(isText);
      const key = form.normalize("NFC").toLowerCase();
      if (list.length > 0 && !m.has(key)) m.set(key, list.map((l) => l.normalize("NFC")));
    }
    return m;
  });
}

/** `el_lemma_rules.json`: `{ pos: [[old, new], ...] }`; malformed pairs (the Greek file has a few) are skipped. */
export function parseLemmaRules(json: unknown, file: string): Map<string, Array<[string, string]>> {
  return perPos(json, file, "[[suffix, replacement], ...]", (list) =>
    Array.isArray(list)
      ? list
          .filter((r): r is [string, string] => Array.isArray(r) && r.length === 2 && isText(r[0]) && typeof r[1] === "string")
          .map(([old, repl]): [string, string] => [old.normalize("NFC"), repl.normalize("NFC")])
      : undefined,
  );
}

/** spaCy's stopwords from `stop_words.py` without Python: triple-quoted literals, plus English's contractions. */
export function parseStopWordsPy(source: string, file = "stop_words.py"): Set<string> {
  const out = new Set<string>();
  let i = 0;
  let strings = 0;
  while (i < source.length) {
    const ch = source[i];
    if (ch === "#") {
      const nl = source.indexOf("\n", i);
      i = nl < 0 ? source.length : nl + 1;
      continue;
    }
    if (ch === '"' || ch === "'") {
      const triple = source.startsWith(ch.repeat(3), i);
      if (triple) {
        const end = source.indexOf(ch.repeat(3), i + 3);
        if (end < 0) throw new DataError(`unterminated triple-quoted string starting at offset ${i}`, file);
        for (const w of source.slice(i + 3, end).split(/\s+/)) if (w !== "") out.add(w.normalize("NFC"));
        strings++;
        i = end + 3;
        continue;
      }
      // An ordinary one-line string literal: skip it (honouring backslash escapes).
      let j = i + 1;
      while (j < source.length && source[j] !== ch && source[j] !== "\n") j += source[j] === "\\" ? 2 : 1;
      i = j + 1;
      continue;
    }
    i++;
  }
  if (strings === 0) throw new DataError("no triple-quoted stopword string found", file);
  const contractions = /^\s*contractions\s*=\s*\[([^\]]*)\]/m.exec(source);
  if (contractions) {
    const items = [...contractions[1].matchAll(/"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'/g)].map((m) => (m[1] ?? m[2]).replace(/\\(.)/g, "$1"));
    for (const c of items) {
      out.add(c);
      if (c.includes("'") && /for\s+\w+\s+in\s+\[[^\]]*’/.test(source)) {
        out.add(c.replace(/'/g, "‘"));
        out.add(c.replace(/'/g, "’"));
      }
    }
  }
  if (out.size === 0) throw new DataError("the stopword string is empty", file);
  return out;
}
