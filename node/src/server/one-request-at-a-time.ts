import type { EventEmitter } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";

/**
 * A request listener that runs each connection's requests one at a time, each once the answer before it has
 * left the process: a client that pipelines requests without reading makes the server hold one answer, not one
 * per request (Node parses every buffered request at once when handlers are asynchronous). With a write timeout,
 * an answer the client does not take within it (the socket's buffers stay full) closes the connection, so such
 * a client cannot hold it, and the requests queued behind, forever.
 */
export function oneRequestAtATime(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  onError: (e: unknown) => void,
  writeTimeoutMs = 0,
): (req: IncomingMessage, res: ServerResponse) => void {
  /** Each connection's last request, answered or not: the next one waits for it. */
  const turns = new WeakMap<Socket, Promise<void>>();
  return (req, res) => {
    const socket = req.socket;
    const turn = (turns.get(socket) ?? Promise.resolve())
      .then(async () => {
        // A response still queued behind others never gets its socket: a dead socket is the sign it is gone.
        if (res.destroyed || socket.destroyed) return;
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
