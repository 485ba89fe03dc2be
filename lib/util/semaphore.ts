/** A counting semaphore: each embedder caps its own in-flight requests, since providers throttle bursts. */

/** Runs async work with at most `size` tasks in flight; a shrink lets running tasks finish first. */
export type Semaphore = ReturnType<typeof createSemaphore>;

/** A semaphore with `n` slots, first come first served, so batches are embedded roughly in submission order. */
export function createSemaphore(n: number) {
  const check = (k: number) => {
    if (!(Number.isInteger(k) && k >= 1)) throw new RangeError(`semaphore size must be a positive integer, got ${k}`);
  };
  check(n);
  let size = n;
  let active = 0;
  const queue: (() => void)[] = [];

  const release = () => {
    // Hand the slot straight to the next waiter so no newcomer overtakes the queue; after a shrink, give it back.
    if (active > size) {
      active--;
      return;
    }
    const next = queue.shift();
    if (next) next();
    else active--;
  };

  return {
    async run<T>(fn: () => Promise<T>): Promise<T> {
      if (active < size) active++;
      else await new Promise<void>((resolve) => queue.push(resolve));
      try {
        return await fn();
      } finally {
        release();
      }
    },
    get active() {
      return active;
    },
    get size() {
      return size;
    },
    resize(k: number) {
      check(k);
      size = k;
      while (active < size && queue.length) {
        active++;
        queue.shift()!();
      }
    },
  };
}
