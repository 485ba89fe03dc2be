/**
 * Worker threads for the batch work that can use both cores (BM25 over thousands of queries, the
 * tuning sweep): how many threads to use, starting a worker on a lib/ module whether lib/ runs
 * from its TypeScript sources (tsx) or compiled (build/lib, the notebooks), and a small
 * request/answer protocol over `postMessage`.
 */
import os from "node:os";
import path from "node:path";
import { parentPort, Worker } from "node:worker_threads";
import { readConfig } from "../config";

/**
 * Threads batch work may use: `GBR_THREADS` when set (1 keeps everything on the main thread),
 * else the machine's available parallelism, at most 4.
 *
 * @example
 * threads(); // 2 on a 2-core machine
 */
export function threads(asked: number | undefined = readConfig().threads): number {
  if (asked !== undefined) return asked;
  return Math.max(1, Math.min(4, os.availableParallelism?.() ?? os.cpus().length));
}

/**
 * A worker running the module `name` that sits beside `callerFile` (a `__filename`): the `.ts`
 * source through tsx when the caller is one, the compiled `.js` otherwise. The worker is
 * unref'd: an idle worker never keeps the process alive.
 *
 * @example
 * const w = startWorker(__filename, "bm25-worker");
 */
export function startWorker(callerFile: string, name: string): Worker {
  const ext = path.extname(callerFile);
  const file = path.join(path.dirname(callerFile), `${name}${ext}`);
  const code = ext === ".ts" ? `require("tsx/cjs"); require(${JSON.stringify(file)});` : `require(${JSON.stringify(file)});`;
  const worker = new Worker(code, { eval: true });
  worker.unref();
  return worker;
}

interface Answer {
  id: number;
  ok: boolean;
  value?: unknown;
  error?: string;
}

/**
 * Requests to one worker, each answered in turn: `call` posts a message and resolves with the
 * worker's answer (or rejects with its error, or when the worker dies).
 *
 * @example
 * const client = new WorkerClient(startWorker(__filename, "bm25-worker"));
 * const top = await client.call({ kind: "search", … });
 */
export class WorkerClient {
  private next = 0;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private dead: Error | undefined;

  constructor(readonly worker: Worker) {
    worker.on("message", (a: Answer) => {
      const p = this.pending.get(a.id);
      if (!p) return;
      this.pending.delete(a.id);
      if (a.ok) p.resolve(a.value);
      else p.reject(new Error(`worker: ${a.error}`));
    });
    const fail = (err: Error) => {
      this.dead = err;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`worker exited with code ${code}`)));
  }

  /** Whether the worker can still answer. */
  get alive(): boolean {
    return this.dead === undefined;
  }

  call<T>(message: Record<string, unknown>, transfer: readonly ArrayBuffer[] = []): Promise<T> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      // Held only while a request is out, so a worker left idle lets the process exit.
      this.worker.ref();
      this.worker.postMessage({ ...message, id }, transfer as ArrayBuffer[]);
    }).finally(() => {
      if (this.pending.size === 0) this.worker.unref();
    });
  }
}

/**
 * The worker side: answers every request with `handler`'s value (typed arrays in it are
 * transferred, not copied) or its error.
 *
 * @example
 * serveRequests((msg) => (msg.kind === "ping" ? "pong" : undefined));
 */
export function serveRequests(handler: (message: Record<string, unknown>) => unknown): void {
  if (!parentPort) throw new Error("serveRequests runs in a worker thread");
  const port = parentPort;
  port.on("message", async (m: Record<string, unknown> & { id: number }) => {
    try {
      const value = await handler(m);
      port.postMessage({ id: m.id, ok: true, value }, buffersOf(value));
    } catch (err) {
      port.postMessage({ id: m.id, ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    }
  });
}

/** The distinct ArrayBuffers of the typed arrays in a value (one level of objects and arrays). */
function buffersOf(value: unknown): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>();
  const visit = (v: unknown, depth: number) => {
    if (ArrayBuffer.isView(v) && v.buffer instanceof ArrayBuffer) out.add(v.buffer);
    else if (depth < 2 && Array.isArray(v)) v.forEach((x) => visit(x, depth + 1));
    else if (depth < 2 && v && typeof v === "object") Object.values(v).forEach((x) => visit(x, depth + 1));
  };
  visit(value, 0);
  return [...out];
}

/**
 * Workers of one module, started on first use and kept (unref'd), with the data each has been
 * sent: `load` sends a key's data (an index, a corpus) to the workers that lack it, once, and
 * names it by an id that later requests refer to.
 *
 * @example
 * const pool = new WorkerPool(__filename, "bm25-worker");
 * const [w] = pool.take(1);
 * const id = pool.load(index, [w], (id) => ({ kind: "load", index: id, arrays: index.arrays() }));
 */
export class WorkerPool {
  private clients: WorkerClient[] = [];
  private readonly loaded = new WeakMap<object, { id: number; in: Set<WorkerClient> }>();
  private nextId = 0;

  constructor(
    private readonly callerFile: string,
    private readonly name: string,
  ) {}

  /** Up to `n` live workers (dead ones replaced). */
  take(n: number): WorkerClient[] {
    this.clients = this.clients.filter((c) => c.alive);
    while (this.clients.length < n) this.clients.push(new WorkerClient(startWorker(this.callerFile, this.name)));
    return this.clients.slice(0, n);
  }

  /** The id of `key`'s data in the workers, sending `message(id)` first to those that lack it (copied, not transferred). */
  load(key: object, clients: readonly WorkerClient[], message: (id: number) => Record<string, unknown>): number {
    let entry = this.loaded.get(key);
    if (!entry) this.loaded.set(key, (entry = { id: this.nextId++, in: new Set() }));
    for (const c of clients) {
      if (entry.in.has(c)) continue;
      entry.in.add(c);
      const e = entry;
      // A failed load shows as the failure of the request that follows; forget it so a retry resends.
      void c.call(message(e.id)).catch(() => e.in.delete(c));
    }
    return entry.id;
  }
}

/**
 * A batch cut into chunks for `shareChunks` in guided order: each chunk a share of what is left
 * (half of it divided among `sides`), between 1/16 and 1/256 of the whole, so chunks are large
 * while there is much to do and small at the end, where the side that finishes first waits for
 * the other's last chunk. With `cost`, shares are of summed cost (postings, say) rather than of
 * item counts. Every item once, in order.
 *
 * @example
 * const chunks = guidedChunks(queries, 2, (q) => q.length); // ~30 chunks, the last ones small
 */
export function guidedChunks<T>(items: readonly T[], sides: number, cost?: (item: T) => number): T[][] {
  const weights = items.map((x) => (cost ? Math.max(0, cost(x)) : 1));
  const total = weights.reduce((a, b) => a + b, 0);
  const chunks: T[][] = [];
  let left = total;
  let i = 0;
  while (i < items.length) {
    const goal = Math.min(total / 16, Math.max(total / 256, left / (2 * Math.max(1, sides))));
    const from = i;
    let sum = 0;
    // At least one item; the item that crosses the goal goes in when that brings the sum closer.
    while (i < items.length && (i === from || sum + weights[i] / 2 <= goal)) sum += weights[i++];
    chunks.push(items.slice(from, i));
    left -= sum;
  }
  return chunks;
}

/**
 * Runs the chunks of a batch on this thread and on `clients` at once, each taking the next chunk
 * in order when it is free (a worker is kept `inFlight` chunks ahead, so it never waits for this
 * thread to hand it one). Fixed shares left one side idle whenever the other was slower than
 * expected (a worker still starting, a core taken by another process); here the faster side
 * simply takes more chunks. Results come back in chunk order; a chunk whose worker fails is run
 * here, so a failure costs time, never results.
 *
 * @example
 * const tops = (await shareChunks(guidedChunks(queries, 2, cost), clients,
 *   (chunk) => chunk.map((q) => scorer.searchIds(q, 100)),
 *   (client, chunk) => searchInWorker(client, scorer, chunk, 100))).flat();
 */
export function shareChunks<T, R>(
  chunks: readonly T[],
  clients: readonly WorkerClient[],
  here: (chunk: T) => R,
  there: (client: WorkerClient, chunk: T) => Promise<R>,
  inFlight = 2,
): Promise<R[]> {
  return startChunks(chunks, clients, there, inFlight).join(here);
}

/**
 * `shareChunks` in two steps: the workers start taking chunks now, and this thread joins in
 * later (`join`), when it has finished what it was doing; chunks a worker failed are run then.
 * What the job does while the workers start on a batch it will need (`gbr reproduce`'s tuning
 * sweep, begun while other experiments run).
 *
 * @example
 * const share = startChunks(chunks, clients, (client, chunk) => sweepInWorker(client, chunk));
 * // … other work on this thread …
 * const results = await share.join((chunk) => sweepHere(chunk));
 */
export function startChunks<T, R>(
  chunks: readonly T[],
  clients: readonly WorkerClient[],
  there: (client: WorkerClient, chunk: T) => Promise<R>,
  inFlight = 2,
): { join(here: (chunk: T) => R): Promise<R[]> } {
  const results = new Array<R>(chunks.length);
  const failed: number[] = [];
  let next = 0;
  const lane = async (client: WorkerClient): Promise<void> => {
    while (next < chunks.length) {
      const i = next++;
      try {
        results[i] = await there(client, chunks[i]);
      } catch {
        failed.push(i);
      }
    }
  };
  const lanes = clients.flatMap((c) => Array.from({ length: inFlight }, () => lane(c)));
  return {
    async join(here) {
      while (next < chunks.length) {
        const i = next++;
        results[i] = here(chunks[i]);
        // Lets the workers' answers in, and their next chunks out, between this thread's chunks.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      await Promise.all(lanes);
      // A failure costs time, never results: what a worker could not do is done here.
      for (const i of failed.splice(0)) results[i] = here(chunks[i]);
      return results;
    },
  };
}

