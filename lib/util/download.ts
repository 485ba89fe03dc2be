/** Fetching one URL into one file, hashed and retried (data/ and llm/ both need it). */
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream, promises as fs } from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { retryAfterMs, retryWithBackoff } from "./retry";
import { GbrError, writeFault, type GbrErrorOptions } from "./errors";
import { deadlineFetch } from "./http";

/** A failed download (`reproduce` skips an experiment on OFFLINE). */
export class DownloadError extends GbrError {
  declare readonly code: "HTTP" | "NETWORK" | "INTEGRITY" | "OFFLINE";

  constructor(
    message: string,
    code: DownloadError["code"],
    readonly status?: number,
    /** Retrying cannot help (the host name does not resolve). */
    readonly permanent = false,
    readonly retryAfterMs?: number,
    options: GbrErrorOptions = {},
  ) {
    super(message, code, { unavailable: code === "OFFLINE", ...options });
    this.name = "DownloadError";
  }
}

/** Headers are never logged; defaults: 4 attempts, backoff from 500 ms, 60 s per attempt (body included). */
export interface DownloadOptions {
  headers?: Record<string, string>;
  attempts?: number;
  backoffMs?: number;
  timeoutMs?: number;
  /** `total` is undefined when the server sends no length. */
  onProgress?: (received: number, total: number | undefined) => void;
}

type DownloadResult = { path: string; size: number; sha256: string };

function retryable(err: DownloadError): boolean {
  if (err.permanent) return false;
  if (err.code !== "HTTP") return err.code === "NETWORK";
  const status = err.status ?? 0;
  return status === 408 || status === 429 || status >= 500;
}

/** Streams `url` into `dest` atomically, hashing, with backoff honouring Retry-After; a short body is a failure. */
export async function downloadFile(url: string, dest: string, opts: DownloadOptions = {}): Promise<DownloadResult> {
  await fs.mkdir(path.dirname(dest), { recursive: true });
  return retryWithBackoff(
    async () => {
      try {
        return await attemptDownload(url, dest, opts);
      } catch (err) {
        // A disk that refuses the file is no network fault: named, and not retried.
        const fault = writeFault(err, path.dirname(dest), "GBR_DATA_DIR");
        if (fault !== err) throw fault;
        throw err instanceof DownloadError ? err : new DownloadError(`${url}: ${(err as Error).message}`, "NETWORK");
      }
    },
    {
      attempts: opts.attempts ?? 4,
      baseMs: opts.backoffMs ?? 500,
      maxWaitMs: opts.timeoutMs ?? 60_000,
      label: url,
      classify: (err) => ({ retry: retryable(err as DownloadError), afterMs: (err as DownloadError).retryAfterMs }),
    },
  );
}

async function attemptDownload(url: string, dest: string, opts: DownloadOptions): Promise<DownloadResult> {
  const tmp = `${dest}.part-${process.pid}`;
  try {
    const fetched = deadlineFetch(opts.timeoutMs ?? 60_000)(url, { headers: opts.headers, redirect: "follow" });
    const res = await fetched.catch((err: unknown) => {
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
      // An unknown host stays unknown for the next few seconds; a refused or reset connection may not.
      throw new DownloadError(`${url}: cannot connect (${cause})`, "NETWORK", undefined, cause === "ENOTFOUND");
    });
    if (!res.ok) {
      // Release the connection now rather than at garbage collection, since a retry follows.
      await res.body?.cancel().catch(() => {});
      throw new DownloadError(`${url}: HTTP ${res.status} ${res.statusText}`, "HTTP", res.status, false, retryAfterMs(res.headers.get("retry-after")));
    }
    const lengthHeader = res.headers.get("content-length");
    const total = lengthHeader ? Number(lengthHeader) : undefined;
    const hash = createHash("sha256");
    let received = 0;
    // pipeline waits for the file as well as the body (backpressure, errors); a write the disk refuses passes as it is.
    await pipeline(
      (res.body ?? []) as unknown as AsyncIterable<Uint8Array>,
      async function* (body: AsyncIterable<Uint8Array>) {
        try {
          for await (const chunk of body) {
            hash.update(chunk);
            received += chunk.length;
            yield chunk;
            opts.onProgress?.(received, total);
          }
        } catch (err) {
          throw new DownloadError(`${url}: connection dropped after ${received} bytes (${(err as Error).message})`, "NETWORK");
        }
      },
      createWriteStream(tmp),
    );
    if (total !== undefined && received !== total) {
      throw new DownloadError(`${url}: truncated body, ${received} of ${total} bytes`, "NETWORK");
    }
    await fs.rename(tmp, dest);
    return { path: dest, size: received, sha256: hash.digest("hex") };
  } finally {
    await fs.rm(tmp, { force: true });
  }
}

export async function hashFile(file: string): Promise<{ sha256: string; size: number }> {
  const hash = createHash("sha256");
  await pipeline(createReadStream(file), hash);
  return { sha256: hash.digest("hex"), size: (await fs.stat(file)).size };
}
