import type { IncomingMessage, ServerResponse } from "node:http";
import { fromBinary, type JsonValue, type Message, type Registry } from "@bufbuild/protobuf";
import { HttpListener } from "@chaind/core/http-listener";
import type { Logger } from "@chaind/core/logger";
import type { QueryMessageResult, QueryResult } from "../../app/app.js";
import { namespacedRegistry } from "../../app/namespaced-registry.js";
import { type ChainError, toChainError } from "../../errors/chain-error.js";
import { GrpcCode } from "../../errors/grpc-code.js";
import {
  asHeightError,
  BLOCK_HEIGHT_HEADERS,
  type HeightBounds,
  queryHeight,
} from "../grpc/block-height-header.js";
import { readLimitedBody } from "../limited-body.js";
import type { NodeMetrics } from "../metrics/node-metrics.js";
import { GatewayJsonWriter } from "./gateway-json-writer.js";
import { httpStatusOf } from "./http-status.js";
import { requestMessage } from "./request-message.js";
import { parseRequestTarget, type RequestTarget } from "./request-target.js";
import type { RestRoute } from "./rest-routes.js";
import { type BoundRoute, RouteTable } from "./route-table.js";

/** What the gateways ask of the node: the query router at a height, and the heights it can answer. */
export interface QueryBackend {
  /**
   * The request as protobuf bytes (gRPC) or as a message (REST, which then encodes and decodes nothing); the
   * node's backend answers in the same form, and either gateway reads both.
   */
  query(
    path: string,
    request: Uint8Array | Message,
    height: number,
  ): Promise<QueryResult | QueryMessageResult>;
  readonly heights: HeightBounds;
  readonly registry: Registry;
}

/** Serves extra paths next to the routes (Swagger); answers false when a path is not its own. */
export type HttpMount = (req: IncomingMessage, res: ServerResponse, pathname: string) => boolean;

export interface RestGatewayOptions {
  host: string;
  port: number;
  maxOpenConnections: number;
  /** Time a client has to send its whole request; 0 = no limit. */
  readTimeoutMs: number;
  /** Time the gateway has to answer; 0 = no limit. */
  writeTimeoutMs: number;
  maxBodyBytes: number;
  /** Cross-origin requests from any origin, preflight included (development only). */
  cors: boolean;
}

/** A gRPC-status error the gateway raises itself (routing, body), with grpc-gateway's message. */
class GatewayError extends Error {
  constructor(
    readonly grpcCode: GrpcCode,
    message: string,
    readonly httpStatus = httpStatusOf(grpcCode),
  ) {
    super(message);
  }
}

const HEIGHT_RESPONSE_HEADERS = [...BLOCK_HEIGHT_HEADERS, "grpc-metadata-x-cosmos-block-height"];

/**
 * The REST gateway: each annotated RPC at its `/sdk/...` path and the same path under `/cosmos/...`,
 * answered in process through the query router with protojson as Cosmos gateways print it.
 */
export class RestGateway {
  private constructor(private readonly listener: HttpListener) {}

  static async start(
    opts: RestGatewayOptions,
    routes: readonly RestRoute[],
    deps: { backend: QueryBackend; logger: Logger; metrics: NodeMetrics | null; mounts?: HttpMount[] },
  ): Promise<RestGateway> {
    const handler = new RequestHandler(opts, new RouteTable(routes), deps);
    const listener = await HttpListener.start(
      {
        host: opts.host,
        port: opts.port,
        name: "REST",
        readTimeoutMs: opts.readTimeoutMs,
        writeTimeoutMs: opts.writeTimeoutMs,
        onWriteTimeout: (res) => {
          if (!res.headersSent)
            sendError(res, new GatewayError(GrpcCode.DEADLINE_EXCEEDED, "request timed out while answering"));
          else res.destroy();
        },
        maxConnections: opts.maxOpenConnections,
      },
      (req, res) => handler.handle(req, res),
      deps,
    );
    return new RestGateway(listener);
  }

  /** Where it listens (`http://127.0.0.1:1317`). */
  get address(): string {
    return this.listener.address;
  }

  close(): Promise<void> {
    return this.listener.close();
  }
}

class RequestHandler {
  private readonly jsonRegistry: Registry;
  private readonly json: GatewayJsonWriter;
  private readonly mounts: readonly HttpMount[];

  constructor(
    private readonly opts: RestGatewayOptions,
    private readonly routes: RouteTable,
    private readonly deps: {
      backend: QueryBackend;
      logger: Logger;
      metrics: NodeMetrics | null;
      mounts?: HttpMount[];
    },
  ) {
    this.jsonRegistry = namespacedRegistry(deps.backend.registry);
    this.json = new GatewayJsonWriter(this.jsonRegistry);
    this.mounts = deps.mounts ?? [];
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const target = req.url ?? "/";
      const url = parseRequestTarget(target);
      if (!url)
        throw new GatewayError(GrpcCode.INVALID_ARGUMENT, `invalid request target ${JSON.stringify(target)}`);
      if (this.opts.cors && this.cors(req, res)) return;
      for (const mount of this.mounts) if (mount(req, res, url.pathname)) return;
      await this.route(req, res, url);
    } catch (e) {
      if (e instanceof GatewayError) {
        sendError(res, e);
        return;
      }
      const err = toChainError(e);
      if (err.grpcCode === GrpcCode.INTERNAL || err.grpcCode === GrpcCode.UNKNOWN)
        this.deps.logger.error("REST request failed", { path: req.url, err: err.message });
      sendError(res, err);
    }
  }

  /** Adds CORS headers; answers a preflight itself (true). */
  private cors(req: IncomingMessage, res: ServerResponse): boolean {
    res.setHeader("access-control-allow-origin", req.headers.origin ?? "*");
    res.setHeader("vary", "Origin");
    res.setHeader("access-control-expose-headers", HEIGHT_RESPONSE_HEADERS.join(", "));
    if (req.method !== "OPTIONS" || !req.headers["access-control-request-method"]) return false;
    res.setHeader("access-control-allow-methods", "GET, POST, PUT, DELETE, PATCH, OPTIONS");
    res.setHeader(
      "access-control-allow-headers",
      req.headers["access-control-request-headers"] ?? `content-type, ${BLOCK_HEIGHT_HEADERS.join(", ")}`,
    );
    res.setHeader("access-control-max-age", "600");
    res.writeHead(204).end();
    return true;
  }

  private async route(req: IncomingMessage, res: ServerResponse, url: RequestTarget): Promise<void> {
    const found = this.routes.match(req.method ?? "", url.pathname);
    if (found.kind === "found") {
      await this.answer(req, res, url, found.bound, found.values);
      return;
    }
    // Drain what the client sent so the connection can be reused.
    req.resume();
    if (found.kind === "wrong-method")
      throw new GatewayError(GrpcCode.UNIMPLEMENTED, "Method Not Allowed", 405);
    throw new GatewayError(GrpcCode.UNIMPLEMENTED, "Not Implemented");
  }

  private async answer(
    req: IncomingMessage,
    res: ServerResponse,
    url: RequestTarget,
    b: BoundRoute,
    pathValues: ReadonlyMap<string, string>,
  ): Promise<void> {
    const { route } = b;
    const started = performance.now();
    let code = GrpcCode.OK;
    try {
      const body = route.body ? await readJsonBody(req, this.opts.maxBodyBytes) : undefined;
      if (!route.body) req.resume();
      const message = requestMessage(
        route.rpc.input,
        { path: pathValues, query: url.query, bodyField: route.body, body },
        this.jsonRegistry,
      );
      const bounds = this.deps.backend.heights;
      const given = heightHeader(req);
      const height = queryHeight(given?.value, bounds, given?.name);
      let answer: QueryResult | QueryMessageResult;
      try {
        answer = await this.deps.backend.query(b.grpcPath, message, height);
      } catch (e) {
        throw asHeightError(e, height, bounds);
      }
      const json =
        "message" in answer
          ? this.json.write(answer.output, answer.message)
          : this.json.write(route.rpc.output, fromBinary(route.rpc.output, answer.value));
      sendAnswer(res, json, answer.height);
    } catch (e) {
      code = e instanceof GatewayError ? e.grpcCode : toChainError(e).grpcCode;
      throw e;
    } finally {
      this.deps.metrics?.observeQuery("rest", b.label, code, (performance.now() - started) / 1000);
    }
  }
}

function heightHeader(req: IncomingMessage): { name: string; value: string } | undefined {
  for (const name of BLOCK_HEIGHT_HEADERS) {
    const v = req.headers[name];
    if (v !== undefined) return { name, value: Array.isArray(v) ? v[0] : v };
  }
  return undefined;
}

/** A JSON body of at most `max` bytes (413 past it); empty is undefined. */
async function readJsonBody(req: IncomingMessage, max: number): Promise<JsonValue | undefined> {
  const text = await readLimitedBody(
    req,
    max,
    () => new GatewayError(GrpcCode.RESOURCE_EXHAUSTED, `request body exceeds ${max} bytes`, 413),
  );
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as JsonValue;
  } catch (e) {
    throw new GatewayError(GrpcCode.INVALID_ARGUMENT, `request body is not JSON: ${(e as Error).message}`);
  }
}

/** A query's answer, with the height it was read at in each header clients look for. */
function sendAnswer(res: ServerResponse, json: string, height: number): void {
  // The write timeout may have answered already.
  if (res.headersSent) return;
  const h = String(height);
  // Headers as one flat list and the body as text: Node sends head and body in one write of one string.
  res.writeHead(200, [
    HEIGHT_RESPONSE_HEADERS[0],
    h,
    HEIGHT_RESPONSE_HEADERS[1],
    h,
    HEIGHT_RESPONSE_HEADERS[2],
    h,
    "content-type",
    "application/json",
    "content-length",
    String(Buffer.byteLength(json)),
  ]);
  res.end(json);
}

function send(res: ServerResponse, status: number, body: unknown): void {
  // The write timeout may have answered already.
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

/** grpc-gateway's error shape: `{"code": <gRPC code>, "message", "details": []}`. */
function sendError(res: ServerResponse, e: GatewayError | ChainError): void {
  const status = e instanceof GatewayError ? e.httpStatus : httpStatusOf(e.grpcCode);
  send(res, status, { code: e.grpcCode, message: e.message, details: [] });
}
