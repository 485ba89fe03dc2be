/**
 * Cross-process locks on a local folder, so that two processes sharing one data folder never pay
 * for the same provider call or write the same vector twice: the replay cache takes one per call
 * key, the vector store one per table.
 *
 * The lock itself is proper-lockfile's: a directory created with mkdir (atomic on local file
 * systems and NFS), whose mtime the holder refreshes every `LOCK_UPDATE_MS`. A lock whose mtime is
 * older than `LOCK_STALE_MS` belongs to a process that died without releasing it (kill -9, a
 * power cut) and is taken over. The library cannot tell a dead holder from a slow one by its pid,
 * so the takeover waits for the staleness period: 10 s, the library's default. Shorter would hand
 * the lock away when a live holder's event loop stalls for a few seconds (a large synchronous
 * tokenisation, say), and the only cost of a stall past the period is repeated work, which is
 * reported; longer would make every run after a crash wait longer.
 *
 * Within one process the callers of one lock either share a single hold (the default: the vector
 * store's batches are already coordinated, distinct batches and one write queue per table, and
 * queueing them would take away their concurrency; other processes wait until the last of them is
 * done) or take turns (`inProcess: "exclusive"`: a replay key, which two cache objects of one
 * process may both be about to call).
 */
import fs from "node:fs";
import path from "node:path";
import { lockfileSdk } from "./sdk";

/**
 * Age (ms) after which a lock whose holder stopped refreshing it is taken over.
 */
export const LOCK_STALE_MS = 10_000;

/**
 * How often (ms) a holder refreshes its lock's mtime (well inside `LOCK_STALE_MS`, so a holder
 * whose event loop is busy for a few seconds keeps its lock).
 */
export const LOCK_UPDATE_MS = 2_000;

/**
 * Options of `withFileLock`.
 */
export interface FileLockOptions {
  /** What the lock protects, for messages ("the replay key 3f2a… of data/replay/llm-calls.jsonl"). */
  what?: string;
  /** Where a lock lost to a takeover and a lock that cannot be taken are reported (default: none). */
  log?: (message: string) => void;
  /**
   * Told, with a message to show, when a wait for another process has lasted a second (default:
   * `log`). A caller taking many locks passes one that reports only the first wait.
   */
  onWait?: (message: string) => void;
  /**
   * "shared" (default): callers in this process share one hold and run together. "exclusive":
   * they take turns, each holding the lock alone.
   */
  inProcess?: "shared" | "exclusive";
}

/** A hold on one lock path shared by every caller in this process. */
interface Hold {
  holders: number;
  /** Resolves to the release function, or undefined when the lock could not be taken (run unlocked). */
  ready: Promise<(() => Promise<void>) | undefined>;
}

const holds = new Map<string, Hold>();
/** Folders whose locks could not be taken, reported once each (not once per key). */
const unlockable = new Set<string>();
/** A release in progress per path: the next hold waits for it instead of finding the lock taken. */
const releasing = new Map<string, Promise<void>>();
/** Tail of the queue of "exclusive" callers per path. */
const turns = new Map<string, Promise<void>>();

/**
 * Runs `fn` while this process holds the lock directory `lockPath` (created, with its parent
 * folders, when needed). Callers in this process share the hold, or take turns with
 * `inProcess: "exclusive"`; another process's callers wait, polling, until it is released or goes
 * stale (`LOCK_STALE_MS`). When the lock cannot be taken at
 * all (a read-only folder, say) `fn` runs without it and the reason is logged: the lock saves
 * repeated work, nothing depends on it for correctness. Errors of `fn` are passed through after
 * the lock is released.
 */
export async function withFileLock<T>(lockPath: string, fn: () => Promise<T>, opts: FileLockOptions = {}): Promise<T> {
  const target = path.resolve(lockPath);
  if (opts.inProcess !== "exclusive") return holding(target, fn, opts);
  const before = turns.get(target) ?? Promise.resolve();
  let done!: () => void;
  const released = new Promise<void>((r) => (done = r));
  const mine = before.then(() => released);
  turns.set(target, mine);
  await before;
  try {
    return await holding(target, fn, opts);
  } finally {
    done();
    if (turns.get(target) === mine) turns.delete(target);
  }
}

async function holding<T>(target: string, fn: () => Promise<T>, opts: FileLockOptions): Promise<T> {
  let hold = holds.get(target);
  if (!hold) {
    hold = { holders: 0, ready: acquire(target, opts) };
    holds.set(target, hold);
  }
  hold.holders++;
  try {
    await hold.ready;
    return await fn();
  } finally {
    hold.holders--;
    if (hold.holders === 0) {
      holds.delete(target);
      const done = hold.ready
        .then((release) => release?.())
        .catch((err: unknown) => {
          // ERELEASED: the lock was lost to a takeover, which onCompromised already reported.
          if ((err as NodeJS.ErrnoException).code !== "ERELEASED") opts.log?.(`could not release the lock ${target}: ${(err as Error).message}`);
        });
      releasing.set(target, done);
      await done;
      if (releasing.get(target) === done) releasing.delete(target);
    }
  }
}

async function acquire(target: string, opts: FileLockOptions): Promise<(() => Promise<void>) | undefined> {
  await releasing.get(target);
  const what = opts.what ?? target;
  try {
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
  } catch (err) {
    return unlocked(target, what, err, opts);
  }
  const started = Date.now();
  let told = false;
  let delay = 25;
  for (;;) {
    try {
      // The lock directory is the target itself (lockfilePath): no empty marker file is needed.
      return await lockfileSdk().lock(target, {
        lockfilePath: target,
        realpath: false,
        stale: LOCK_STALE_MS,
        update: LOCK_UPDATE_MS,
        retries: 0,
        // The library's default throws from a timer, which would end the process: a lock lost to
        // a long stall only means another process may repeat work, so say so and go on.
        onCompromised: (err) =>
          opts.log?.(`lost the lock on ${what} (${err.message}): another process took it over after ${LOCK_STALE_MS / 1000} s without a refresh; it may repeat work in progress here`),
      });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "ELOCKED") return unlocked(target, what, err, opts);
      if (!told && Date.now() - started >= 1000) {
        told = true;
        (opts.onWait ?? opts.log)?.(
          `waiting for another process working on ${what} (lock ${target}); a lock left by a process that was killed is taken over ` +
            `once it is ${LOCK_STALE_MS / 1000} s old`,
        );
      }
      await new Promise((r) => setTimeout(r, delay));
      // Polling: up to half a second between attempts keeps a waiting run responsive and cheap.
      delay = Math.min(delay * 2, 500);
    }
  }
}

function unlocked(target: string, what: string, err: unknown, opts: FileLockOptions): undefined {
  const dir = path.dirname(target);
  if (!unlockable.has(dir)) {
    unlockable.add(dir);
    opts.log?.(`cannot lock ${what} (${(err as Error).message}); going on without locks in ${dir}, so another process sharing it may repeat work`);
  }
  return undefined;
}
