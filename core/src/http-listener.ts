import type { EventEmitter } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Duplex } from "node:stream";

/** What the listener logs: a request whose handler failed. Any logger with `error` fits. */
export interface HttpListenerLogger {
  error(msg: string, ctx?: Record<string, unknown>): void;
}

/** Answers one request; settles once the answer is written (or the handler gave up on it). */
export type HttpHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export interface HttpListenerOptions {
  host: string;
  port: number;
  /** Names the listener in its log lines (`<name> request failed`). */
  name: string;
  /**
   * Time a client has to send its whole request, headers included; 0: no limit. Absent: Node's own deadlines
   * (5 minutes for a request, 1 for its headers).
   */
  readTimeoutMs?: number;
  /**
   * Time the listener has to hand over a whole answer, counted from the request's turn; past it `onWriteTimeout`
   * runs, and an answer the OS still will not take closes the connection. 0 or absent: no limit.
   */
  writeTimeoutMs?: number;
  /** What a missed write deadline does to the answer; by default the connection is closed. */
  onWriteTimeout?: (res: ServerResponse) => void;
  /** Connections served at once; more are dropped on accept. 0 or absent: no limit. */
  maxConnections?: number;
  /** Takes over a request to switch protocols (a WebSocket); absent: such requests are dropped. */
  onUpgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
}

/**
 * An HTTP/1.1 listener with what every public one needs: read and write deadlines, a cap on connections, and
 * each connection's requests answered one at a time, each once the answer before it has left the process. A
 * client that pipelines requests without reading makes it hold one answer, not one per request (Node parses
 * every buffered request at once when handlers are asynchronous), and cannot hold the connection forever.
 */
export class HttpListener {
  private constructor(
    private readonly server: Server,
    /** Where it listens, as a URL (`http://127.0.0.1:26657`, `http://[::1]:1317`). */
    readonly address: string,
  ) {}

  /** Listens on `host:port` (port 0: one the OS picks); rejects with Node's error when it cannot (port taken). */
  static async start(
    opts: HttpListenerOptions,
    handle: HttpHandler,
    deps: { logger: HttpListenerLogger },
  ): Promise<HttpListener> {
    const read = opts.readTimeoutMs;
    const server = createServer(
      read === undefined
        ? {}
        : {
            requestTimeout: read,
            headersTimeout: read || undefined,
            // Node checks request deadlines on this interval (30 s by default): check often enough to honour
            // them, so a client trickling its headers a byte at a time is cut at the deadline, not 30 s later.
            connectionsCheckingInterval: read > 0 ? Math.min(read / 4, 1000) : undefined,
          },
      oneRequestAtATime(handle, opts, (e) =>
        deps.logger.error(`${opts.name} request failed`, { err: e instanceof Error ? e.message : String(e) }),
      ),
    );
    if (opts.maxConnections && opts.maxConnections > 0) server.maxConnections = opts.maxConnections;
    if (opts.onUpgrade) server.on("upgrade", opts.onUpgrade);
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(opts.port, opts.host, () => {
        server.off("error", reject);
        resolve();
      });
    });
    // A server's errors after it listens are failed accepts (out of file descriptors, EMFILE): that client goes
    // without its connection, and the server keeps listening. libuv 1.45+ drops such failures on Unix before
    // Node sees them; where one still reaches Node, an unheard 'error' would end the process.
    server.on("error", (e) =>
      deps.logger.error(`${opts.name} could not accept a connection`, { err: e.message }),
    );
    const a = server.address() as AddressInfo;
    const host = a.family === "IPv6" ? `[${a.address}]` : a.address;
    return new HttpListener(server, `http://${host}:${a.port}`);
  }

  /** Stops listening and closes every connection, idle or not. */
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function oneRequestAtATime(
  handle: HttpHandler,
  opts: Pick<HttpListenerOptions, "writeTimeoutMs" | "onWriteTimeout">,
  onError: (e: unknown) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  const writeTimeoutMs = opts.writeTimeoutMs ?? 0;
  const onWriteTimeout = opts.onWriteTimeout ?? ((res: ServerResponse) => res.destroy());
  /** Each connection's last request, answered or not: the next one waits for it. */
  const turns = new WeakMap<Socket, Promise<void>>();
  return (req, res) => {
    const socket = req.socket;
    const turn = (turns.get(socket) ?? Promise.resolve())
      .then(async () => {
        // A response still queued behind others never gets its socket: a dead socket is the sign it is gone.
        if (res.destroyed || socket.destroyed) return;
        // Go's WriteTimeout, counted from the request's turn rather than its arrival.
        if (writeTimeoutMs > 0) {
          const timer = setTimeout(() => onWriteTimeout(res), writeTimeoutMs);
          res.once("close", () => clearTimeout(timer));
        }
        await handle(req, res);
        await sent(res, socket, writeTimeoutMs);
      })
      .catch((e: unknown) => {
        onError(e);
        res.destroy();
      });
    turns.set(socket, turn);
  };
}

/**
 * Settles once the answer has been handed to the OS, or the connection is gone: closed by the client, or by
 * this side when the OS would not take the answer within `timeoutMs` (0: no limit).
 */
async function sent(res: ServerResponse, socket: Socket, timeoutMs: number): Promise<void> {
  if (!res.writableFinished && !res.destroyed && !socket.destroyed)
    await firstOf([res, "finish"], [res, "close"], [socket, "close"]);
  if (!socket.writableNeedDrain || socket.destroyed) return;
  const timer = timeoutMs > 0 ? setTimeout(() => socket.destroy(), timeoutMs) : undefined;
  await firstOf([socket, "drain"], [socket, "close"]);
  clearTimeout(timer);
}

function firstOf(...events: readonly [EventEmitter, string][]): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      for (const [emitter, e] of events) emitter.off(e, done);
      resolve();
    };
    for (const [emitter, e] of events) emitter.on(e, done);
  });
}
