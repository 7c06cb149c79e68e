import type { IncomingMessage, ServerResponse } from "node:http";
import { HttpListener } from "@chaind/core/http-listener";
import type { Logger } from "@chaind/core/logger";
import { defaultNodeConfig } from "../../config/node-config.js";
import { readLimitedBody } from "../limited-body.js";
import { JsonRpcError, JsonRpcErrorCode } from "./json-rpc-error.js";

export type RpcParams = Record<string, unknown>;

/** A result already serialized to JSON, spliced into the answer as it is: a large document kept as text. */
export class JsonText {
  constructor(readonly text: string) {}
}

export interface RpcMethod {
  /** Parameter names in order, so positional arrays map onto them. */
  params: readonly string[];
  run(params: RpcParams): Promise<unknown>;
}

export interface JsonRpcServerOptions {
  host: string;
  port: number;
  maxBodyBytes: number;
  /** Time a client has to send its whole request (headers included); 0 = no limit. */
  readTimeoutMs: number;
  /** Connections served at once; more are dropped on accept. CometBFT's `max_open_connections` default: 900. */
  maxOpenConnections?: number;
  /**
   * Time the server has to hand over a whole answer; past it the connection is closed, so a client that never
   * reads cannot hold it (and its buffers) forever. CometBFT: 10 s, raised above timeout_broadcast_tx_commit.
   */
  writeTimeoutMs?: number;
  /** Requests one batch may hold (CometBFT 1.x's `max_request_batch_size`); 0: any number. Default 10. */
  maxBatchSize?: number;
  /** The largest answer sent, single or batch; a larger one is replaced by an error. Default 64 MiB. */
  maxResponseBytes?: number;
}

const RPC_DEFAULTS = defaultNodeConfig("").rpc;

/** CometBFT's default `rpc.max_open_connections` (config.toml's default). */
const DEFAULT_RPC_MAX_OPEN_CONNECTIONS = RPC_DEFAULTS.maxOpenConnections;

/** CometBFT's RPC write timeout (its server's default; the node raises it above timeout_broadcast_tx_commit). */
export const DEFAULT_RPC_WRITE_TIMEOUT_MS = 10_000;

/** CometBFT 1.x's default `max_request_batch_size` (config.toml's default). */
export const DEFAULT_RPC_MAX_BATCH_SIZE = RPC_DEFAULTS.maxRequestBatchSize;

/** The default cap on one answer (config.toml's `max_response_bytes`). */
export const DEFAULT_RPC_MAX_RESPONSE_BYTES = RPC_DEFAULTS.maxResponseBytes;

type RpcId = string | number | null;

/**
 * CometBFT-style JSON-RPC 2.0 over HTTP: POST to the root (a single call or a batch) and the URI form
 * `GET /<method>?name=value`. Every failure becomes a JSON-RPC error; nothing a client sends can crash it.
 */
export class JsonRpcServer {
  private constructor(private readonly listener: HttpListener) {}

  static async start(
    opts: JsonRpcServerOptions,
    methods: ReadonlyMap<string, RpcMethod>,
    deps: { logger: Logger },
  ): Promise<JsonRpcServer> {
    const listener = await HttpListener.start(
      {
        host: opts.host,
        port: opts.port,
        name: "rpc",
        readTimeoutMs: opts.readTimeoutMs,
        writeTimeoutMs: opts.writeTimeoutMs ?? DEFAULT_RPC_WRITE_TIMEOUT_MS,
        maxConnections: opts.maxOpenConnections ?? DEFAULT_RPC_MAX_OPEN_CONNECTIONS,
      },
      (req, res) => handle(req, res, opts, methods, deps.logger),
      deps,
    );
    return new JsonRpcServer(listener);
  }

  /** Where it listens (`http://127.0.0.1:26657`). */
  get address(): string {
    return this.listener.address;
  }

  close(): Promise<void> {
    return this.listener.close();
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  sendText(res, status, JSON.stringify(body));
}

function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** A successful answer as JSON text. */
function resultText(id: RpcId, result: unknown): string {
  if (!(result instanceof JsonText)) return JSON.stringify({ jsonrpc: "2.0", id, result });
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result.text}}`;
}

/** One answer's JSON text, or the error that replaces it when it is larger than `max`. */
function capped(text: string, id: RpcId, max: number): { text: string; replaced: boolean } {
  const size = Buffer.byteLength(text);
  if (size <= max) return { text, replaced: false };
  return {
    text: JSON.stringify(
      errorBody(
        id,
        JsonRpcError.internal(
          `the answer of ${size} bytes exceeds max_response_bytes (${max}); ask for less at a time`,
        ),
      ),
    ),
    replaced: true,
  };
}

function errorBody(id: RpcId, e: JsonRpcError) {
  return { jsonrpc: "2.0", id, error: { code: e.code, message: e.message, data: e.data } };
}

async function call(
  methods: ReadonlyMap<string, RpcMethod>,
  name: unknown,
  params: unknown,
  logger: Logger,
): Promise<unknown> {
  const method = typeof name === "string" ? methods.get(name) : undefined;
  if (!method) throw JsonRpcError.methodNotFound(`unknown method ${JSON.stringify(name)}`);
  let named: RpcParams;
  if (params === undefined || params === null) named = {};
  else if (Array.isArray(params)) named = Object.fromEntries(method.params.map((p, i) => [p, params[i]]));
  else if (typeof params === "object") named = params as RpcParams;
  else throw JsonRpcError.invalidParams("params must be an object or an array");
  try {
    return await method.run(named);
  } catch (e) {
    if (e instanceof JsonRpcError) throw e;
    const msg = e instanceof Error ? e.message : String(e);
    logger.debug("rpc call failed", { method: name as string, err: msg });
    throw JsonRpcError.internal(msg);
  }
}

/**
 * Runs a batch one request after another, as CometBFT does, and joins the answers as they come, so it never
 * holds more than `max` bytes of them: past that it stops and answers one error instead.
 */
async function batch(
  methods: ReadonlyMap<string, RpcMethod>,
  requests: readonly unknown[],
  max: number,
  logger: Logger,
  gone: () => boolean,
): Promise<string> {
  const parts: string[] = [];
  let size = 2;
  for (const [i, request] of requests.entries()) {
    // The client left or the write timeout closed the answer: the rest would be made for no one.
    if (gone()) return "";
    const text = await one(methods, request, logger);
    size += Buffer.byteLength(text) + (i > 0 ? 1 : 0);
    if (size > max) {
      const why = `the answers to this batch exceed max_response_bytes (${max}) at request ${i + 1} of ${requests.length}; send fewer requests at a time`;
      return JSON.stringify(errorBody(null, JsonRpcError.internal(why)));
    }
    parts.push(text);
  }
  return `[${parts.join(",")}]`;
}

/** One request's answer as JSON text. */
async function one(methods: ReadonlyMap<string, RpcMethod>, msg: unknown, logger: Logger): Promise<string> {
  const m = msg as { jsonrpc?: unknown; id?: RpcId; method?: unknown; params?: unknown } | null;
  const id = idOf(m);
  if (!m || typeof m !== "object" || m.jsonrpc !== "2.0")
    return JSON.stringify(
      errorBody(id, JsonRpcError.invalidRequest('expected a JSON-RPC 2.0 object ("jsonrpc": "2.0")')),
    );
  try {
    return resultText(id, await call(methods, m.method, m.params, logger));
  } catch (e) {
    return JSON.stringify(errorBody(id, e as JsonRpcError));
  }
}

/** The id a request names; null when it names none or an id of the wrong type. */
function idOf(msg: unknown): RpcId {
  const id = (msg as { id?: unknown } | null)?.id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

/** The HTTP status of a URI-form call's error: 404 for an unknown method, 500 for a failure, else 400. */
function uriStatus(e: JsonRpcError): number {
  if (e.code === JsonRpcErrorCode.METHOD_NOT_FOUND) return 404;
  return e.code === JsonRpcErrorCode.INTERNAL_ERROR ? 500 : 400;
}

/** URI-form values: `"text"` is a string, `0xABCD` hex bytes (kept as a string for the method to decode). */
function uriParams(search: URLSearchParams): RpcParams {
  const out: RpcParams = {};
  for (const [k, raw] of search) {
    out[k] = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
  }
  return out;
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  opts: JsonRpcServerOptions,
  methods: ReadonlyMap<string, RpcMethod>,
  logger: Logger,
): Promise<void> {
  const maxResponse = opts.maxResponseBytes ?? DEFAULT_RPC_MAX_RESPONSE_BYTES;
  const maxBatch = opts.maxBatchSize ?? DEFAULT_RPC_MAX_BATCH_SIZE;
  try {
    if (req.method === "GET") {
      const url = new URL(req.url ?? "/", "http://rpc");
      const name = url.pathname.slice(1);
      if (!name) {
        send(res, 200, { jsonrpc: "2.0", id: -1, result: { methods: [...methods.keys()].sort() } });
        return;
      }
      try {
        const result = await call(methods, name, uriParams(url.searchParams), logger);
        const { text, replaced } = capped(resultText(-1, result), -1, maxResponse);
        sendText(res, replaced ? 500 : 200, text);
      } catch (e) {
        const err = e as JsonRpcError;
        send(res, uriStatus(err), errorBody(-1, err));
      }
      return;
    }
    if (req.method !== "POST") {
      send(res, 405, errorBody(null, JsonRpcError.invalidRequest("use POST or GET")));
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(
        await readLimitedBody(req, opts.maxBodyBytes, () =>
          JsonRpcError.invalidRequest(`request body exceeds ${opts.maxBodyBytes} bytes`),
        ),
      );
    } catch (e) {
      if (e instanceof JsonRpcError) {
        send(res, 413, errorBody(null, e));
        return;
      }
      send(res, 200, errorBody(null, JsonRpcError.parseError((e as Error).message)));
      return;
    }
    if (Array.isArray(body)) {
      if (body.length === 0) {
        send(res, 200, errorBody(null, JsonRpcError.invalidRequest("empty batch")));
        return;
      }
      if (maxBatch > 0 && body.length > maxBatch) {
        const why = `batch request exceeds maximum (${maxBatch}) allowed number of requests`;
        send(res, 200, errorBody(null, JsonRpcError.invalidRequest(why)));
        return;
      }
      const answers = await batch(methods, body, maxResponse, logger, () => res.destroyed);
      if (!res.destroyed) sendText(res, 200, answers);
      return;
    }
    sendText(res, 200, capped(await one(methods, body, logger), idOf(body), maxResponse).text);
  } catch (e) {
    logger.error("rpc request failed", { err: e instanceof Error ? e.message : String(e) });
    if (!res.headersSent) send(res, 500, errorBody(null, JsonRpcError.internal("unexpected failure")));
    else res.destroy();
  }
}
