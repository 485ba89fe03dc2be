/**
 * A tiny HTTP double for download tests: serves a fixed map of path -> body on 127.0.0.1 at a
 * random port, counts requests per path, and can inject faults into the next request(s) of a path.
 *
 * @example
 * const srv = await startStaticServer({ "/a/b.json": '{"x":1}' });
 * srv.fault("/a/b.json", "500");            // the next request of that path gets a 500
 * await fetch(srv.url + "/a/b.json");        // 500
 * await fetch(srv.url + "/a/b.json");        // 200 '{"x":1}'
 * srv.counts.get("/a/b.json");               // 2
 * await srv.close();
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * - "500": answer HTTP 500 with a short body.
 * - "corrupt": answer 200 with a damaged body of consistent length (the first half of the real
 *   body, Content-Length matching), which no transport check can detect.
 * - "truncate": announce the full Content-Length, send half the body, then drop the connection.
 * - "404": answer 404 as if the file did not exist.
 */
export type FaultKind = "500" | "corrupt" | "truncate" | "404";

export interface StaticServer {
  /** Base URL without trailing slash, e.g. http://127.0.0.1:40123. */
  url: string;
  /** Requests seen per path (faulted and 404 requests included). */
  counts: Map<string, number>;
  /** Total requests over all paths. */
  total(): number;
  /** Makes the next `times` requests of `path` fail as `kind`. */
  fault(path: string, kind: FaultKind, times?: number): void;
  /** Adds or replaces a served file. */
  set(path: string, body: string | Buffer): void;
  close(): Promise<void>;
}

export async function startStaticServer(
  files: Record<string, string | Buffer> | Map<string, string | Buffer>,
): Promise<StaticServer> {
  const bodies = new Map<string, Buffer>();
  const entries = files instanceof Map ? [...files] : Object.entries(files);
  for (const [p, body] of entries) bodies.set(p, Buffer.isBuffer(body) ? body : Buffer.from(body, "utf8"));
  const counts = new Map<string, number>();
  const faults = new Map<string, FaultKind[]>();

  const server = http.createServer((req, res) => {
    let p: string;
    try {
      p = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    } catch {
      p = req.url ?? "/";
    }
    counts.set(p, (counts.get(p) ?? 0) + 1);
    const body = bodies.get(p);
    const fault = faults.get(p)?.shift();
    if (fault === "500") {
      res.writeHead(500, { "content-type": "text/plain" }).end("injected fault");
      return;
    }
    if (body === undefined || fault === "404") {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    if (fault === "corrupt") {
      const bad = body.subarray(0, Math.floor(body.length / 2));
      res.writeHead(200, { "content-length": String(bad.length), "content-type": "application/octet-stream" }).end(bad);
      return;
    }
    if (fault === "truncate") {
      res.writeHead(200, { "content-length": String(body.length), "content-type": "application/octet-stream" });
      res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.destroy());
      return;
    }
    res.writeHead(200, { "content-length": String(body.length), "content-type": "application/octet-stream" }).end(body);
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    total: () => [...counts.values()].reduce((a, b) => a + b, 0),
    fault(path, kind, times = 1) {
      const list = faults.get(path) ?? [];
      for (let i = 0; i < times; i++) list.push(kind);
      faults.set(path, list);
    },
    set(path, body) {
      bodies.set(path, Buffer.isBuffer(body) ? body : Buffer.from(body, "utf8"));
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
