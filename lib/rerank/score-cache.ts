/**
 * The cross-encoder's pair scores, kept so that a rerun, or a run resumed after a crash, asks the
 * server only for the pairs it has not scored yet.
 *
 * An append-only JSONL file (default `<data>/rerank/scores.jsonl`), one line per scored pair:
 * `{"k": sha256 of (preset fingerprint, query, article), "s": score, "t"?: seconds, "d"?: true}`,
 * where `t` is the pair's share of its request's time (so a run served from the cache reports the
 * time its scores took when they were made) and `d` marks a score from the project's test double.
 * Loaded whole into a Map on open: a pair costs about a hundred bytes, and a full benchmark run
 * under one preset is 28,300 pairs.
 *
 * ## Crash safety
 * Each request's scores are appended as soon as it answers, in one write of whole lines, then
 * fsync'd: a killed process loses at most the requests in flight. A crash during the write can
 * leave one incomplete last line; opening ignores it (counted in `tornLines`, and logged) and the
 * first append cuts it off, so it is never glued to a new line. A complete line that is not a
 * record is an error naming file and line: the file was edited or damaged, and guessing would
 * serve wrong scores. Appends of one process are serialised; another process appending to the
 * same file lands whole lines too (O_APPEND, one write each), but nothing more is coordinated.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { dataDir } from "../paths";
import { DataError } from "../util/errors";
import { exists, isBlank, readLines, syncDir, writeAll } from "../cache/line-file";

/**
 * One cached pair score.
 *
 * @example
 * const c: CachedScore = { score: 0.83, seconds: 0.0041, standIn: false };
 */
export interface CachedScore {
  score: number;
  /** The pair's share of the request's time when it was scored, when recorded. */
  seconds?: number;
  /** Scored by the project's test double. */
  standIn: boolean;
}

/**
 * An opened score cache: lookups in memory, durable appends.
 *
 * @example
 * const cache = await openScoreCache();
 * cache.get(pairKey(rerankFingerprint(p), query.text, article.text))?.score;
 */
export interface ScoreCache {
  /** Absolute path of the JSONL file (created by the first append). */
  readonly file: string;
  /** Distinct pairs held. */
  readonly size: number;
  /** Incomplete last lines ignored when the file was opened (0 or 1). */
  readonly tornLines: number;
  get(key: string): CachedScore | undefined;
  /** Appends the scores of one request in one write and resolves once they are on disk. */
  append(entries: readonly (CachedScore & { key: string })[]): Promise<void>;
}

/**
 * Where scores are kept unless a file is given: `<data>/rerank/scores.jsonl`.
 *
 * @example
 * defaultScoreCacheFile(); // "/…/data/rerank/scores.jsonl"
 */
export function defaultScoreCacheFile(): string {
  return path.join(dataDir(), "rerank", "scores.jsonl");
}

/**
 * The cache key of one pair: sha256 of the preset's fingerprint (model, templates, article
 * limit), the query text and the whole article text, as sent through JSON so no separator can be
 * forged by the texts.
 *
 * @example
 * pairKey(rerankFingerprint(preset), query.text, doc.text); // 64 hex characters
 */
export function pairKey(fingerprint: string, query: string, article: string): string {
  return createHash("sha256").update(JSON.stringify([fingerprint, query, article])).digest("hex");
}

/**
 * Opens (reads) a score cache; a missing file is an empty cache.
 *
 * @example
 * const cache = await openScoreCache(path.join(tmp, "scores.jsonl"), { log: console.error });
 * cache.size; // pairs already scored
 */
export async function openScoreCache(file: string = defaultScoreCacheFile(), opts: { log?: (message: string) => void } = {}): Promise<ScoreCache> {
  const abs = path.resolve(file);
  const scores = new Map<string, CachedScore>();
  let tornLines = 0;
  // Where the complete lines end, and the size seen, for cutting a torn tail off before appending.
  let validEnd = 0;
  let seenSize = 0;
  if (await exists(abs)) {
    let lineNo = 0;
    for await (const { line, start, complete } of readLines(abs)) {
      lineNo++;
      if (!complete) {
        tornLines++;
        validEnd = start;
        seenSize = start + line.length;
        opts.log?.(`${abs}:${lineNo}: incomplete last line ignored (an interrupted write); it is cut off before the next append`);
        break;
      }
      validEnd = start + line.length + 1;
      seenSize = validEnd;
      if (isBlank(line)) continue;
      const [key, value] = parseLine(line.toString("utf8"), abs, lineNo);
      scores.set(key, value);
    }
  }
  let chain: Promise<void> = Promise.resolve();
  let created = false;

  async function write(entries: readonly (CachedScore & { key: string })[]): Promise<void> {
    if (entries.length === 0) return;
    const text = entries.map(encodeLine).join("");
    if (tornLines > 0) {
      // Only when nobody appended since we looked: then the tail is the torn line and nothing else.
      const now = (await fs.promises.stat(abs)).size;
      if (now === seenSize) await fs.promises.truncate(abs, validEnd);
      tornLines = 0;
    }
    if (!created) {
      await fs.promises.mkdir(path.dirname(abs), { recursive: true });
      created = true;
    }
    const isNew = !(await exists(abs));
    const fh = await fs.promises.open(abs, "a");
    try {
      await writeAll(fh, Buffer.from(text, "utf8"));
      await fh.sync();
    } finally {
      await fh.close();
    }
    if (isNew) await syncDir(path.dirname(abs));
    for (const e of entries) scores.set(e.key, { score: e.score, standIn: e.standIn, ...(e.seconds !== undefined ? { seconds: e.seconds } : {}) });
  }

  return {
    file: abs,
    get size() {
      return scores.size;
    },
    get tornLines() {
      return tornLines;
    },
    get: (key) => scores.get(key),
    append(entries) {
      const next = chain.then(() => write(entries));
      // A failed append must not stop the next one from trying; the caller sees this one's error.
      chain = next.catch(() => {});
      return next;
    },
  };
}

function encodeLine(e: CachedScore & { key: string }): string {
  if (!/^[0-9a-f]{64}$/.test(e.key)) throw new RangeError(`score cache: key must be 64 hex characters, got ${JSON.stringify(e.key)}`);
  if (!Number.isFinite(e.score)) throw new RangeError(`score cache: score of ${e.key} is not finite (${e.score})`);
  const rec: Record<string, unknown> = { k: e.key, s: e.score };
  // Microseconds are plenty for a share of an HTTP request's time, and keep lines short.
  if (e.seconds !== undefined) rec.t = Math.round(e.seconds * 1e6) / 1e6;
  if (e.standIn) rec.d = true;
  return `${JSON.stringify(rec)}\n`;
}

function parseLine(text: string, file: string, line: number): [string, CachedScore] {
  let j: unknown;
  try {
    j = JSON.parse(text);
  } catch (err) {
    throw new DataError(`not a JSON line of the re-ranking score cache (${(err as Error).message}); delete the line or the file to score those pairs again`, file, line);
  }
  const r = j as { k?: unknown; s?: unknown; t?: unknown; d?: unknown } | null;
  if (!r || typeof r !== "object" || typeof r.k !== "string" || !/^[0-9a-f]{64}$/.test(r.k)) throw new DataError('expected {"k": <64 hex characters>, "s": <score>}', file, line);
  if (typeof r.s !== "number" || !Number.isFinite(r.s)) throw new DataError(`score "s" of ${r.k} is not a finite number`, file, line);
  if (r.t !== undefined && !(typeof r.t === "number" && Number.isFinite(r.t) && r.t >= 0)) throw new DataError(`seconds "t" of ${r.k} must be a number >= 0`, file, line);
  if (r.d !== undefined && typeof r.d !== "boolean") throw new DataError(`stand-in mark "d" of ${r.k} must be true or false`, file, line);
  return [r.k, { score: r.s, standIn: r.d === true, ...(r.t !== undefined ? { seconds: r.t as number } : {}) }];
}
