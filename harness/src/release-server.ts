import { createReadStream, statSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { basename, join } from "node:path";

/** What a test may make the server do to one file, to prove the supervisor copes. */
export type ReleaseFault =
  | "status-500"
  /** Half the bytes, then the connection is cut. */
  | "drop-midway"
  /** Half the bytes, then nothing more, the connection held open. */
  | "stall"
  /** A complete, well-formed answer holding only the first half of the file. */
  | "truncated"
  /** Every byte, with one flipped. */
  | "corrupt";

/** Credentials every request must carry, as private release hosts and presigned URLs require them. */
export interface ReleaseAuth {
  /** `Authorization: Basic` with this user and password. */
  basic?: { user: string; password: string };
  /** A query parameter with this value (`?X-Amz-Signature=...`). */
  query?: { param: string; value: string };
}

export interface ReleaseServerOptions {
  /** The folder whose files are served by name (`GET /<file>`), e.g. the output of `npm run release`. */
  dir: string;
  /** Without them, every request gets 401. */
  auth?: ReleaseAuth;
}

/** One request as the server saw it. */
export interface ReleaseRequest {
  name: string;
  authorization: string | null;
  query: string;
}

/**
 * A loopback HTTP server for release archives and plan-info documents: what the supervisor downloads from in
 * tests, the demo and local testnets. It counts requests per file and can be told to misbehave.
 */
export class ReleaseServer {
  /** Every request in order, with the credentials it carried. */
  readonly log: ReleaseRequest[] = [];
  private readonly faults = new Map<string, { fault: ReleaseFault; times: number }>();
  private readonly redirects = new Map<string, string>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(opts: ReleaseServerOptions): Promise<ReleaseServer> {
    let self: ReleaseServer | undefined;
    const server = createServer((req, res) => self!.handle(opts, req, res));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    self = new ReleaseServer(server, `http://127.0.0.1:${port}`);
    return self;
  }

  /** Requests per file name, counted from the log. */
  get requests(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const { name } of this.log) counts.set(name, (counts.get(name) ?? 0) + 1);
    return counts;
  }

  /** The URL of a served file. */
  fileUrl(name: string): string {
    return `${this.url}/${encodeURIComponent(name)}`;
  }

  /** The next `times` requests for `name` misbehave this way. */
  injectFault(name: string, fault: ReleaseFault, times = 1): void {
    this.faults.set(name, { fault, times });
  }

  /** Requests for `name` are answered with a 302 to `location` (another server, to test what follows it). */
  redirect(name: string, location: string): void {
    this.redirects.set(name, location);
  }

  private authorized(auth: ReleaseAuth | undefined, req: IncomingMessage, url: URL): boolean {
    if (auth?.basic) {
      const want = `Basic ${Buffer.from(`${auth.basic.user}:${auth.basic.password}`).toString("base64")}`;
      if (req.headers.authorization !== want) return false;
    }
    return !auth?.query || url.searchParams.get(auth.query.param) === auth.query.value;
  }

  private handle(opts: ReleaseServerOptions, req: IncomingMessage, res: ServerResponse): void {
    const dir = opts.dir;
    const url = new URL(req.url ?? "/", "http://x");
    const name = decodeURIComponent(url.pathname.slice(1));
    this.log.push({ name, authorization: req.headers.authorization ?? null, query: url.search });
    if (!this.authorized(opts.auth, req, url)) {
      res.writeHead(401, { "www-authenticate": 'Basic realm="releases"' }).end("unauthorized\n");
      return;
    }
    const location = this.redirects.get(name);
    if (location) {
      res.writeHead(302, { location }).end();
      return;
    }
    // Names only, never paths: nothing outside `dir` is reachable.
    if (!name || name !== basename(name)) {
      res.writeHead(404).end("not found\n");
      return;
    }
    const path = join(dir, name);
    let size: number;
    try {
      size = statSync(path).size;
    } catch {
      res.writeHead(404).end("not found\n");
      return;
    }
    const f = this.faults.get(name);
    if (f) {
      f.times--;
      if (f.times <= 0) this.faults.delete(name);
    }
    if (f?.fault === "status-500") {
      res.writeHead(500).end("injected failure\n");
      return;
    }
    const half = Math.floor(size / 2);
    const length = f?.fault === "truncated" ? half : size;
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(length) });
    if (f?.fault === "stall" || f?.fault === "drop-midway") {
      createReadStream(path, { end: half - 1 })
        .on("data", (chunk) => res.write(chunk))
        .on("end", () => {
          if (f.fault === "drop-midway") res.destroy();
        });
      return;
    }
    const stream = createReadStream(path, { end: length - 1 });
    if (f?.fault === "corrupt") {
      let first = true;
      stream.on("data", (chunk) => {
        if (first && typeof chunk !== "string" && chunk.length > 0) chunk[chunk.length - 1] ^= 0xff;
        first = false;
      });
    }
    stream.pipe(res);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
