import { rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { create, fromBinary, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import type { Logger } from "@chaind/core/logger";
import { type Request, RequestSchema, ResponseSchema } from "@chaind/proto/tendermint/abci/types_pb";
import { AsyncLock } from "../app/async-lock.js";
import { AbciFrameReader, abciFrame } from "./abci-frames.js";

/** One answer: the Response's oneof, fields given as `create` takes them. */
export type AbciAnswer = MessageInitShape<typeof ResponseSchema>["value"];

/** What answers each request: the App's side of ABCI (abci-app.ts), or a stand-in in tests. */
export interface AbciHandler {
  handle(request: Request): Promise<AbciAnswer>;
}

export interface AbciServerOptions {
  /** `tcp://host:port` or `unix:///path/to.sock`, as CometBFT's `proxy_app` names it. */
  address: string;
  /** The largest message taken (a block's FinalizeBlock carries all its txs). */
  maxFrameBytes: number;
}

/** Bytes of answers waiting on a connection past which its requests are not read until the client reads. */
const WRITE_BACKLOG_BYTES = 8 * 1024 * 1024;

type Listen = { port: number; host: string } | { path: string };

function listenTarget(address: string): Listen {
  const unix = /^unix:\/\/(.+)$/.exec(address);
  if (unix) return { path: unix[1] };
  const tcp = /^(?:tcp:\/\/)?(\[[^\]]+\]|[^:/]+):(\d{1,5})$/.exec(address);
  if (!tcp)
    throw new Error(`ABCI address ${JSON.stringify(address)} is neither tcp://host:port nor unix:///path`);
  return { host: tcp[1].replace(/^\[|\]$/g, ""), port: Number(tcp[2]) };
}

/**
 * CometBFT's ABCI socket server: it opens one connection each for consensus, mempool, queries and snapshots and
 * sends length-prefixed Request frames; each connection is answered in order. As CometBFT's own server does, one
 * request is handled at a time across all connections (the App's state moves one step at a time), and a request
 * that cannot be answered (a frame too long, bytes that are no Request, an unknown method, an error in the App)
 * gets a ResponseException and its connection is closed: CometBFT stops on it, the process here goes on.
 */
export class AbciServer {
  private readonly sockets = new Set<Socket>();
  private readonly turn = new AsyncLock();

  private constructor(
    private readonly server: Server,
    readonly address: string,
    private readonly opts: AbciServerOptions,
    private readonly handler: AbciHandler,
    private readonly logger: Logger,
  ) {}

  static async listen(opts: AbciServerOptions, handler: AbciHandler, logger: Logger): Promise<AbciServer> {
    const target = listenTarget(opts.address);
    // A socket file left by a process that died is in the way; a live server on it would answer, so only a stale
    // one is removed (listening fails with EADDRINUSE otherwise).
    if ("path" in target) rmSync(target.path, { force: true });
    const server = createServer({ noDelay: true });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(target, () => {
        server.off("error", reject);
        resolve();
      });
    });
    const bound = server.address();
    const address =
      "path" in target
        ? opts.address
        : `tcp://${target.host}:${typeof bound === "object" && bound ? bound.port : target.port}`;
    const abci = new AbciServer(server, address, opts, handler, logger);
    server.on("connection", (socket) => abci.serve(socket));
    server.on("error", (e) => logger.error("ABCI listener failed", { err: e.message }));
    return abci;
  }

  private serve(socket: Socket): void {
    this.sockets.add(socket);
    const reader = new AbciFrameReader(this.opts.maxFrameBytes);
    let queue = Promise.resolve();
    let closed = false;
    const fail = (why: string) => {
      if (closed) return;
      closed = true;
      this.logger.error("ABCI request refused; closing its connection", { err: why });
      socket.end(
        abciFrame(
          toBinary(
            ResponseSchema,
            create(ResponseSchema, { value: { case: "exception", value: { error: why } } }),
          ),
        ),
      );
    };
    socket.on("data", (bytes: Buffer) => {
      let frames: Uint8Array[];
      try {
        frames = reader.push(bytes);
      } catch (e) {
        // Past a bad length nothing on this stream can be read as frames again; what came before is answered.
        queue = queue.then(() => fail((e as Error).message));
        socket.pause();
        return;
      }
      for (const frame of frames)
        queue = queue.then(() => (closed ? undefined : this.answer(frame, socket, fail)));
      if (socket.writableLength > WRITE_BACKLOG_BYTES) {
        socket.pause();
        socket.once("drain", () => socket.resume());
      }
    });
    socket.on("error", (e) => this.logger.debug("ABCI connection error", { err: e.message }));
    socket.on("close", () => {
      closed = true;
      this.sockets.delete(socket);
    });
  }

  private async answer(frame: Uint8Array, socket: Socket, fail: (why: string) => void): Promise<void> {
    let request: Request;
    try {
      request = fromBinary(RequestSchema, frame);
    } catch (e) {
      return fail(`cannot decode ABCI request: ${(e as Error).message}`);
    }
    if (request.value.case === undefined) return fail("unknown ABCI request");
    let value: AbciAnswer;
    // The protocol's own requests, answered here; the rest are the App's, one at a time.
    if (request.value.case === "echo")
      value = { case: "echo", value: { message: request.value.value.message } };
    else if (request.value.case === "flush") value = { case: "flush", value: {} };
    else
      try {
        value = await this.turn.run(() => this.handler.handle(request));
      } catch (e) {
        return fail(`${request.value.case}: ${(e as Error).message}`);
      }
    socket.write(abciFrame(toBinary(ResponseSchema, create(ResponseSchema, { value }))));
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
