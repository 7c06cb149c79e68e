import type { IncomingMessage, ServerResponse } from "node:http";
import { parentPort } from "node:worker_threads";
import { HttpListener } from "@chaind/core/http-listener";
import { readLimitedBody } from "../limited-body.js";
import type { CometEvent } from "./comet-events.js";
import { errorAnswer, JsonRpcError, type RpcId, requestId } from "./json-rpc-error.js";
import type { FromRpcThread, RpcAnswer, RpcThreadSettings, ToRpcThread } from "./rpc-thread-messages.js";
import { WebSocketRpc } from "./websocket-rpc.js";

// The RPC's HTTP side, on a thread of its own (json-rpc-server.ts starts it): reading requests, parsing their
// JSON and writing answers cost a node's main thread more than CheckTx itself when clients send txs one by
// one, and a write to a waiting client is a system call that wakes another process. The node's thread only
// runs the calls and turns their results into JSON text.

const port = parentPort!;
/** Set by the node's first message, before anything is served. */
let settings: RpcThreadSettings;
const post = (m: FromRpcThread) => port.postMessage(m);

const waiting = new Map<number, (a: RpcAnswer) => void>();
let nextCall = 0;

/**
 * How deep a request's JSON may nest. A message to the node's thread is copied by recursion, which a request
 * nested thousands of levels deep would overflow (Go's encoding/json, CometBFT's, stops at 10,000). No method
 * takes more than a few levels.
 */
const MAX_REQUEST_DEPTH = 1000;

function nestedTooDeep(value: unknown): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth > MAX_REQUEST_DEPTH) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

/** What a call watches to learn its client left: an HTTP answer, or a WebSocket client's signal. */
interface ClientWatch {
  readonly destroyed: boolean;
  once(event: "close", listener: () => void): unknown;
  off(event: "close", listener: () => void): unknown;
}

function watchSignal(signal: AbortSignal): ClientWatch {
  return {
    get destroyed() {
      return signal.aborted;
    },
    once: (_, listener) => signal.addEventListener("abort", listener, { once: true }),
    off: (_, listener) => signal.removeEventListener("abort", listener),
  };
}

/** One JSON-RPC request's answer as JSON text, from the node's thread. */
async function answerRequest(request: unknown, res: ClientWatch): Promise<string> {
  if (nestedTooDeep(request)) {
    const why = `the request nests deeper than ${MAX_REQUEST_DEPTH} levels`;
    return JSON.stringify(errorAnswer(requestId(request), JsonRpcError.invalidRequest(why)));
  }
  return (await remote({ kind: "request", request }, res)).text;
}

/**
 * Hands one call to the node's thread; settles with its answer. Should `res` close first (the client left, or
 * the write timeout closed it), the node is told at once, so it stops the work rather than finish it for no one.
 */
function remote(
  call:
    | { kind: "request"; request: unknown }
    | { kind: "uri"; name: string; params: Record<string, unknown> },
  res: ClientWatch,
): Promise<RpcAnswer> {
  const n = nextCall++;
  return new Promise((resolve) => {
    const gone = () => post({ kind: "gone", n });
    waiting.set(n, (a) => {
      res.off("close", gone);
      resolve(a);
    });
    res.once("close", gone);
    post({ ...call, n });
    if (res.destroyed) gone();
  });
}

const logger = {
  error(msg: string, ctx: Record<string, unknown> = {}) {
    post({ kind: "log", level: "error", msg, ctx });
  },
};

function send(res: ServerResponse, status: number, body: unknown): void {
  sendText(res, status, JSON.stringify(body));
}

function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** One answer's JSON text, or the error that replaces it when it is larger than max_response_bytes. */
function capped(text: string, id: RpcId): { text: string; replaced: boolean } {
  const max = settings.maxResponseBytes;
  const size = Buffer.byteLength(text);
  if (size <= max) return { text, replaced: false };
  const why = `the answer of ${size} bytes exceeds max_response_bytes (${max}); ask for less at a time`;
  return { text: JSON.stringify(errorAnswer(id, JsonRpcError.internal(why))), replaced: true };
}

/** URI-form values: `"text"` is a string, `0xABCD` hex bytes (kept as a string for the method to decode). */
function uriParams(search: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, raw] of search) {
    out[k] = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
  }
  return out;
}

/**
 * Runs a batch one request after another, as CometBFT does, and joins the answers as they come, so it never
 * holds more than max_response_bytes of them: past that it stops and answers one error instead.
 */
async function batch(requests: readonly unknown[], res: ServerResponse): Promise<string> {
  const max = settings.maxResponseBytes;
  const parts: string[] = [];
  let size = 2;
  for (const [i, request] of requests.entries()) {
    // The client left or the write timeout closed the answer: the rest would be made for no one.
    if (res.destroyed) return "";
    const text = await answerRequest(request, res);
    size += Buffer.byteLength(text) + (i > 0 ? 1 : 0);
    if (size > max) {
      const why = `the answers to this batch exceed max_response_bytes (${max}) at request ${i + 1} of ${requests.length}; send fewer requests at a time`;
      return JSON.stringify(errorAnswer(null, JsonRpcError.internal(why)));
    }
    parts.push(text);
  }
  return `[${parts.join(",")}]`;
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    if (req.method === "GET") {
      const url = new URL(req.url ?? "/", "http://rpc");
      const name = url.pathname.slice(1);
      if (!name) {
        send(res, 200, { jsonrpc: "2.0", id: -1, result: { methods: settings.methodNames } });
        return;
      }
      const answer = await remote({ kind: "uri", name, params: uriParams(url.searchParams) }, res);
      const { text, replaced } = capped(answer.text, -1);
      sendText(res, replaced ? 500 : answer.status, text);
      return;
    }
    if (req.method !== "POST") {
      send(res, 405, errorAnswer(null, JsonRpcError.invalidRequest("use POST or GET")));
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(
        await readLimitedBody(req, settings.maxBodyBytes, () =>
          JsonRpcError.invalidRequest(`request body exceeds ${settings.maxBodyBytes} bytes`),
        ),
      );
    } catch (e) {
      if (e instanceof JsonRpcError) {
        send(res, 413, errorAnswer(null, e));
        return;
      }
      send(res, 200, errorAnswer(null, JsonRpcError.parseError((e as Error).message)));
      return;
    }
    if (Array.isArray(body)) {
      if (body.length === 0) {
        send(res, 200, errorAnswer(null, JsonRpcError.invalidRequest("empty batch")));
        return;
      }
      const maxBatch = settings.maxBatchSize;
      if (maxBatch > 0 && body.length > maxBatch) {
        const why = `batch request exceeds maximum (${maxBatch}) allowed number of requests`;
        send(res, 200, errorAnswer(null, JsonRpcError.invalidRequest(why)));
        return;
      }
      const answers = await batch(body, res);
      if (!res.destroyed) sendText(res, 200, answers);
      return;
    }
    sendText(res, 200, capped(await answerRequest(body, res), requestId(body)).text);
  } catch (e) {
    logger.error("rpc request failed", { err: e instanceof Error ? e.message : String(e) });
    if (!res.headersSent) send(res, 500, errorAnswer(null, JsonRpcError.internal("unexpected failure")));
    else res.destroy();
  }
}

async function listen(): Promise<void> {
  let listener: HttpListener;
  const websocket = new WebSocketRpc(
    { ...settings.websocket, maxMessageBytes: settings.maxBodyBytes },
    {
      // Capped as over HTTP: an answer past max_response_bytes becomes an error.
      call: async (request, gone) =>
        capped(await answerRequest(request, watchSignal(gone)), requestId(request)).text,
      subscribed: (any) => post({ kind: "subscribed", any }),
      logger,
    },
  );
  try {
    listener = await HttpListener.start(
      {
        host: settings.host,
        port: settings.port,
        name: "rpc",
        readTimeoutMs: settings.readTimeoutMs,
        writeTimeoutMs: settings.writeTimeoutMs,
        maxConnections: settings.maxOpenConnections,
        onUpgrade: (req, socket, head) => {
          if (new URL(req.url ?? "/", "http://rpc").pathname === "/websocket")
            websocket.upgrade(req, socket, head);
          else socket.end("HTTP/1.1 404 Not Found\r\nconnection: close\r\n\r\n");
        },
      },
      handle,
      { logger },
    );
  } catch (e) {
    websocket.close();
    post({ kind: "listen-failed", message: (e as Error).message });
    return;
  }
  publish = (events) => websocket.publish(events);
  closeListener = () => {
    websocket.close();
    return listener.close();
  };
  post({ kind: "listening", address: listener.address });
}

let closeListener = async () => {};
let publish = (_events: CometEvent[]) => {};

port.on("message", (m: ToRpcThread) => {
  switch (m.kind) {
    case "listen":
      settings = m.settings;
      void listen();
      return;
    case "answers":
      for (const a of m.list) {
        const resolve = waiting.get(a.n);
        waiting.delete(a.n);
        resolve?.(a);
      }
      return;
    case "events":
      publish(m.list);
      return;
    case "close":
      void closeListener().then(() => post({ kind: "closed" }));
  }
});
