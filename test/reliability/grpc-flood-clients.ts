import { type ClientHttp2Stream, connect as connectHttp2 } from "node:http2";
import { createConnection, type Socket } from "node:net";

const hostPort = (address: string) => {
  const { hostname, port } = new URL(`http://${address}`);
  return { host: hostname.replace(/^\[|\]$/g, ""), port: Number(port) };
};

/** `n` TCP connections that never send a byte, as the reviewer's idle flood held them. */
export async function idleConnections(
  address: string,
  n: number,
): Promise<{ open(): number; closeAll(): void }> {
  const { host, port } = hostPort(address);
  const sockets: Socket[] = [];
  let closed = 0;
  await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<void>((settled) => {
          const s = createConnection(port, host, () => settled());
          sockets.push(s);
          s.on("error", () => settled());
          s.on("close", () => {
            closed++;
            settled();
          });
          // Read, so a connection the server closes is seen closed here.
          s.resume();
        }),
    ),
  );
  return {
    open: () => n - closed,
    closeAll: () => {
      for (const s of sockets) s.destroy();
    },
  };
}

/** How a call ended: its gRPC status when the server sent one, and the stream's RST_STREAM code. */
export interface CallEnding {
  grpcStatus?: number;
  grpcMessage?: string;
  rstCode?: number;
}

/**
 * The reviewer's stream flood: `connections` HTTP/2 connections, each opening `streams` calls to `path` whose one
 * message declares `messageBytes` and sends all of it but the last byte, as fast as the server takes it.
 * Resolves with how each call ended once all have, or after `timeoutMs` (undefined for a call still open); the
 * connections are closed either way.
 */
export async function unfinishedMessages(
  address: string,
  opts: { connections: number; streams: number; messageBytes: number; path: string; timeoutMs: number },
): Promise<(CallEnding | undefined)[]> {
  const chunk = Buffer.alloc(64 * 1024, 1);
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(opts.messageBytes, 1);
  // The client's own session memory must not be what stops the flood.
  const sessions = Array.from({ length: opts.connections }, () =>
    connectHttp2(`http://${address}`, { maxSessionMemory: 1024 }).on("error", () => {}),
  );
  const endings: (CallEnding | undefined)[] = [];
  const calls: Promise<void>[] = [];
  for (const session of sessions)
    for (let i = 0; i < opts.streams; i++) {
      const slot = endings.push(undefined) - 1;
      const req = session.request({
        ":method": "POST",
        ":path": opts.path,
        "content-type": "application/grpc",
        te: "trailers",
      });
      const ending: CallEnding = {};
      const noteStatus = (h: Record<string, unknown>) => {
        if (h["grpc-status"] !== undefined) ending.grpcStatus = Number(h["grpc-status"]);
        if (typeof h["grpc-message"] === "string") ending.grpcMessage = decodeURIComponent(h["grpc-message"]);
      };
      req.on("response", noteStatus);
      req.on("trailers", noteStatus);
      req.on("error", () => {});
      req.resume();
      calls.push(
        new Promise((done) =>
          req.once("close", () => {
            ending.rstCode = req.rstCode;
            endings[slot] = ending;
            done();
          }),
        ),
      );
      void sendAllButLastByte(req, prefix, chunk, opts.messageBytes - 1);
    }
  await Promise.race([Promise.all(calls), new Promise((r) => setTimeout(r, opts.timeoutMs))]);
  for (const s of sessions) s.destroy();
  return endings;
}

async function sendAllButLastByte(req: ClientHttp2Stream, prefix: Buffer, chunk: Buffer, bytes: number) {
  const writable = () => !req.closed && !req.destroyed;
  if (!req.write(prefix)) await drained(req);
  for (let left = bytes; left > 0 && writable(); ) {
    const n = Math.min(left, chunk.length);
    left -= n;
    if (!req.write(chunk.subarray(0, n))) await drained(req);
  }
}

const drained = (req: ClientHttp2Stream) =>
  new Promise<void>((resolve) => {
    const done = () => {
      req.off("drain", done);
      req.off("close", done);
      resolve();
    };
    req.on("drain", done);
    req.on("close", done);
  });
