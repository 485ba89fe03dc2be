/** Cross-process locks (proper-lockfile), stale after 10 s: shorter gives a stalled lock away, longer delays recovery. */
import fs from "node:fs";
import path from "node:path";
import { lockfileSdk } from "./sdk";

export const LOCK_STALE_MS = 10_000;

const LOCK_UPDATE_MS = 2_000;

export interface FileLockOptions {
  what?: string;
  log?: (message: string) => void;
  /** Told when a wait for another process has lasted a second (default `log`). */
  onWait?: (message: string) => void;
  /** "shared" (default): this object's callers of one lock share one hold. "exclusive": they take turns. */
  inProcess?: "shared" | "exclusive";
  /** How long (ms) to wait for another process before failing with ELOCKED; default: as long as it holds. */
  waitMs?: number;
  /** Only this object's callers, no lock file (an object store has no folder). */
  fileless?: boolean;
}

interface Hold {
  holders: number;
  /** Resolves to the release function, or undefined when the lock could not be taken (run unlocked). */
  ready: Promise<(() => Promise<void>) | undefined>;
}

/** One owner's locks; one that cannot be taken (a read-only folder) is skipped, logged once: correctness needs none. */
export class FileLocks {
  private readonly holds = new Map<string, Hold>();
  private readonly unlockable = new Set<string>();
  /** A release in progress per path: the next hold waits for it instead of finding the lock taken. */
  private readonly releasing = new Map<string, Promise<void>>();
  private readonly turns = new Map<string, Promise<void>>();

  /** Runs `fn` holding the lock directory `lockPath` (parents made as needed); `fn`'s errors pass after release. */
  async run<T>(lockPath: string, fn: () => Promise<T>, opts: FileLockOptions = {}): Promise<T> {
    const target = path.resolve(lockPath);
    if (opts.inProcess !== "exclusive") return this.holding(target, fn, opts);
    const before = this.turns.get(target) ?? Promise.resolve();
    let done!: () => void;
    const released = new Promise<void>((r) => (done = r));
    const mine = before.then(() => released);
    this.turns.set(target, mine);
    await before;
    try {
      return await this.holding(target, fn, opts);
    } finally {
      done();
      if (this.turns.get(target) === mine) this.turns.delete(target);
    }
  }

  private async holding<T>(target: string, fn: () => Promise<T>, opts: FileLockOptions): Promise<T> {
    const ready = () => (opts.fileless ? Promise.resolve(undefined) : this.acquire(target, opts));
    const hold = this.holds.get(target) ?? { holders: 0, ready: ready() };
    this.holds.set(target, hold);
    hold.holders++;
    try {
      await hold.ready;
      return await fn();
    } finally {
      if (--hold.holders === 0) {
        this.holds.delete(target);
        const done = hold.ready.then((release) => release?.()).catch((err: unknown) => {
          // ERELEASED: the lock was lost to a takeover, which onCompromised already reported.
          if (!["ERELEASED", "ELOCKED"].includes((err as NodeJS.ErrnoException).code ?? "")) opts.log?.(`could not release the lock ${target}: ${(err as Error).message}`);
        });
        this.releasing.set(target, done);
        await done;
        if (this.releasing.get(target) === done) this.releasing.delete(target);
      }
    }
  }

  private async acquire(target: string, opts: FileLockOptions): Promise<(() => Promise<void>) | undefined> {
    await this.releasing.get(target);
    const what = opts.what ?? target;
    try {
      await fs.promises.mkdir(path.dirname(target), { recursive: true });
    } catch (err) {
      return this.unlocked(target, what, err, opts);
    }
    const started = Date.now();
    let told = false;
    let delay = 25;
    for (;;) {
      try {
        return await lockfileSdk().lock(target, {
          lockfilePath: target,
          realpath: false,
          stale: LOCK_STALE_MS,
          update: LOCK_UPDATE_MS,
          retries: 0,
          // The library's default throws from a timer and ends the process; a lost lock only means repeated work.
          onCompromised: (err) =>
            opts.log?.(`lost the lock on ${what} (${err.message}): another process took it over after ${LOCK_STALE_MS / 1000} s without a refresh; it may repeat work in progress here`),
        });
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== "ELOCKED") return this.unlocked(target, what, err, opts);
        if (opts.waitMs !== undefined && Date.now() - started >= opts.waitMs) throw err;
        if (!told && Date.now() - started >= 1000) {
          told = true;
          (opts.onWait ?? opts.log)?.(
            `waiting for another process working on ${what} (lock ${target}); a lock left by a process that was killed is taken over ` +
              `once it is ${LOCK_STALE_MS / 1000} s old`,
          );
        }
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, 500);
      }
    }
  }

  private unlocked(target: string, what: string, err: unknown, opts: FileLockOptions): undefined {
    const dir = path.dirname(target);
    if (!this.unlockable.has(dir)) {
      this.unlockable.add(dir);
      opts.log?.(`cannot lock ${what} (${(err as Error).message}); going on without locks in ${dir}, so another process sharing it may repeat work`);
    }
    return undefined;
  }
}
