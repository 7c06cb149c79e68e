import { createReadStream, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
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

export interface ReleaseServerOptions {
  /** The folder whose files are served by name (`GET /<file>`), e.g. the output of `npm run release`. */
  dir: string;
}

/**
 * A loopback HTTP server for release archives and plan-info documents: what the supervisor downloads from in
 * tests, the demo and local testnets. It counts requests per file and can be told to misbehave.
 */
export class ReleaseServer {
  readonly requests = new Map<string, number>();
  private readonly faults = new Map<string, { fault: ReleaseFault; times: number }>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(opts: ReleaseServerOptions): Promise<ReleaseServer> {
    let self: ReleaseServer | undefined;
    const server = createServer((req, res) => self!.handle(opts.dir, req.url ?? "/", res));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    self = new ReleaseServer(server, `http://127.0.0.1:${port}`);
    return self;
  }

  /** The URL of a served file. */
  fileUrl(name: string): string {
    return `${this.url}/${encodeURIComponent(name)}`;
  }

  /** The next `times` requests for `name` misbehave this way. */
  injectFault(name: string, fault: ReleaseFault, times = 1): void {
    this.faults.set(name, { fault, times });
  }

  private handle(dir: string, rawUrl: string, res: import("node:http").ServerResponse): void {
    const name = decodeURIComponent(new URL(rawUrl, "http://x").pathname.slice(1));
    this.requests.set(name, (this.requests.get(name) ?? 0) + 1);
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
