/**
 * A local double of the Hugging Face Hub (the protocol subset lib/data/hub.ts speaks), on
 * 127.0.0.1 with a random port. Tests script its files, read how often each path was asked
 * for (to prove caching), and inject the faults a real network produces.
 *
 *   GET /api/datasets/{repo}/revision/{rev}[?blobs=true] -> { id, sha, siblings }
 *   GET /datasets/{repo}/resolve/{rev}/{path}             -> bytes ({rev} = revision or commit sha)
 *
 * With `kind: "models"` it serves a model repository instead (what transformers.js asks for):
 *   GET /api/models/{repo}/revision/{rev}   GET /{repo}/resolve/{rev}/{path}
 */
import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

/** Key of `counts` and `setFault` for the revision (file list) endpoint. */
export const API = "api:revision";

export type Fault =
  /** Answer with this status (e.g. 500, 503) for the next `times` requests. */
  | { kind: "status"; status: number; times: number }
  /** 429 with a Retry-After header (seconds; default "0"). */
  | { kind: "rateLimit"; times: number; retryAfter?: string }
  /** Promise more bytes than are sent (Content-Length too big), then destroy the socket. */
  | { kind: "truncate"; times: number }
  /** The right length, wrong bytes. */
  | { kind: "corrupt"; times: number }
  /** Destroy the connection before any response. */
  | { kind: "drop"; times: number };

export interface HubDoubleOptions {
  repo?: string;
  revision?: string;
  /** Commit the revision resolves to (default: a hash of the content). */
  sha?: string;
  /** "datasets" (default) or "models": the URL layout of the repository. */
  kind?: "datasets" | "models";
  /** The dataset card, served as README.md. */
  readme: string;
  /** Repository path -> content. */
  files: Record<string, Buffer | string>;
  /** When set, every request needs `Authorization: Bearer <token>` (401 otherwise). */
  token?: string;
  /** Which files the file list reports as LFS, with their sha256 (default: *.parquet). */
  lfs?: (path: string) => boolean;
}

export interface HubDouble {
  url: string;
  /** Requests per key: a repository path for resolve requests, API for the file list. */
  counts: Map<string, number>;
  /** Authorization headers seen, per request (the tests check the token was sent). */
  authorizations: (string | undefined)[];
  /** Sum of resolve (file) requests. */
  fileRequests(): number;
  setFault(key: string, fault: Fault): void;
  /** Replace or add a file (e.g. to simulate a new upload). */
  setFile(path: string, content: Buffer | string): void;
  close(): Promise<void>;
}

/**
 * Starts the double; `close()` also ends keep-alive connections so a test can prove a later
 * pull needs no network.
 *
 * @example
 * const hub = await startHubDouble({ readme, files: { "queries.jsonl": "..." } });
 * await pullHub({ endpoint: hub.url, cacheDir });
 * hub.counts.get("queries.jsonl"); // 1
 * await hub.close();
 */
export async function startHubDouble(opts: HubDoubleOptions): Promise<HubDouble> {
  const repo = opts.repo ?? "AUEB-NLP/greek-bar-bench";
  const revision = opts.revision ?? "v2.0";
  const files = new Map<string, Buffer>();
  const setFile = (p: string, c: Buffer | string) => files.set(p, Buffer.isBuffer(c) ? c : Buffer.from(c, "utf8"));
  setFile("README.md", opts.readme);
  for (const [p, c] of Object.entries(opts.files)) setFile(p, c);
  const isLfs = opts.lfs ?? ((p: string) => p.endsWith(".parquet"));
  // Derived from the content unless scripted, so setFile() behaves like a new commit.
  const currentSha = () =>
    opts.sha ??
    createHash("sha1")
      .update([...files.entries()].map(([p, b]) => p + createHash("sha256").update(b).digest("hex")).join("\n"))
      .digest("hex");
  const counts = new Map<string, number>();
  const faults = new Map<string, Fault>();
  const authorizations: (string | undefined)[] = [];

  const bump = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  const takeFault = (key: string): Fault | undefined => {
    const f = faults.get(key);
    if (!f) return undefined;
    if (--f.times <= 0) faults.delete(key);
    return f;
  };

  const send = (res: http.ServerResponse, status: number, body: Buffer | string, type = "application/json") => {
    const buf = Buffer.isBuffer(body) ? body : Buffer.from(body);
    res.writeHead(status, { "Content-Type": type, "Content-Length": String(buf.length) });
    res.end(buf);
  };

  /** Applies a scripted fault; returns true when it answered the request. */
  const applyFault = (f: Fault | undefined, res: http.ServerResponse, body: Buffer): boolean => {
    if (!f) return false;
    switch (f.kind) {
      case "status":
        send(res, f.status, JSON.stringify({ error: `scripted ${f.status}` }));
        return true;
      case "rateLimit":
        res.writeHead(429, { "Retry-After": f.retryAfter ?? "0", "Content-Type": "application/json" });
        res.end(JSON.stringify({ error: "rate limited" }));
        return true;
      case "drop":
        res.socket?.destroy();
        return true;
      case "truncate": {
        res.writeHead(200, { "Content-Type": "application/octet-stream", "Content-Length": String(body.length + 64) });
        const part = body.subarray(0, Math.max(1, Math.floor(body.length / 2)));
        res.write(part, () => res.socket?.destroy());
        return true;
      }
      case "corrupt": {
        const bad = Buffer.from(body);
        for (let i = 0; i < bad.length; i += Math.max(1, Math.floor(bad.length / 7))) bad[i] ^= 0x5a;
        send(res, 200, bad, "application/octet-stream");
        return true;
      }
    }
  };

  const siblings = (blobs: boolean) =>
    [...files.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([p, b]) => {
        if (!blobs) return { rfilename: p };
        const s: Record<string, unknown> = {
          rfilename: p,
          size: b.length,
          blobId: createHash("sha1").update(`blob ${b.length}\0`).update(b).digest("hex"),
        };
        if (isLfs(p)) s.lfs = { sha256: createHash("sha256").update(b).digest("hex"), size: b.length, pointerSize: 134 };
        return s;
      });

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    authorizations.push(req.headers.authorization);
    const kind = opts.kind ?? "datasets";
    const apiPrefix = `/api/${kind}/${repo}/revision/`;
    const resolvePrefix = kind === "models" ? `/${repo}/resolve/` : `/datasets/${repo}/resolve/`;
    const sha = currentSha();
    const okRev = (r: string) => r === revision || r === sha;

    if (req.method !== "GET") return send(res, 405, JSON.stringify({ error: "method not allowed" }));
    if (url.pathname.startsWith(apiPrefix)) {
      bump(API);
      if (opts.token && req.headers.authorization !== `Bearer ${opts.token}`) return send(res, 401, JSON.stringify({ error: "Invalid credentials" }));
      const rev = decodeURIComponent(url.pathname.slice(apiPrefix.length));
      if (applyFault(takeFault(API), res, Buffer.alloc(0))) return;
      if (!okRev(rev)) return send(res, 404, JSON.stringify({ error: `Revision Not Found: ${rev}` }));
      return send(res, 200, JSON.stringify({ id: repo, sha, siblings: siblings(url.searchParams.get("blobs") === "true") }));
    }
    if (url.pathname.startsWith(resolvePrefix)) {
      const rest = url.pathname.slice(resolvePrefix.length);
      const slash = rest.indexOf("/");
      const rev = decodeURIComponent(rest.slice(0, slash));
      const p = rest
        .slice(slash + 1)
        .split("/")
        .map(decodeURIComponent)
        .join("/");
      bump(p);
      if (opts.token && req.headers.authorization !== `Bearer ${opts.token}`) return send(res, 401, JSON.stringify({ error: "Invalid credentials" }));
      const body = files.get(p);
      if (!okRev(rev) || !body) return send(res, 404, JSON.stringify({ error: "Entry not found" }));
      if (applyFault(takeFault(p), res, body)) return;
      return send(res, 200, body, "application/octet-stream");
    }
    send(res, 404, JSON.stringify({ error: "not found" }));
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    authorizations,
    fileRequests: () => [...counts.entries()].filter(([k]) => k !== API).reduce((s, [, n]) => s + n, 0),
    setFault: (key, fault) => faults.set(key, { ...fault }),
    setFile,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
