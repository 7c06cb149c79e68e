import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { type RawData, type WebSocket, WebSocketServer } from "ws";
import type { CometEvent } from "./comet-events.js";
import { EventQuery, EventQueryError } from "./event-query.js";
import { errorAnswer, JsonRpcError, type RpcId, requestId } from "./json-rpc-error.js";
import type { WebSocketSettings } from "./rpc-thread-messages.js";

/** CometBFT's cap on a subscription's query text. */
const MAX_QUERY_LENGTH = 512;

export interface WebSocketRpcDeps {
  /** Runs one JSON-RPC request on the node's thread; `gone` aborts when its client leaves. */
  call(request: unknown, gone: AbortSignal): Promise<string>;
  /** Told when the first client subscribes and when the last subscription ends. */
  subscribed(any: boolean): void;
  logger: { error(msg: string, ctx?: Record<string, unknown>): void };
}

interface Subscription {
  query: EventQuery;
  /** The query as the client wrote it, repeated in each event. */
  text: string;
  /** The subscribe request's id: each event answers it. */
  id: RpcId;
  /** Events waiting for room in the connection's write buffer (CometBFT's per-subscription buffer). */
  backlog: string[];
}

/**
 * CometBFT's JSON-RPC over WebSocket at `/websocket`: every method, plus subscribe, unsubscribe and
 * unsubscribe_all over the node's events. Bounded as CometBFT: max_subscription_clients connections subscribed,
 * max_subscriptions_per_client each, a message at most max_body_bytes, and per connection a write buffer
 * (experimental_websocket_write_buffer_size answers not yet taken by the OS) with a buffer per subscription behind
 * it (experimental_subscription_buffer_size). A subscription whose buffer overflows is cancelled, or with
 * experimental_close_on_slow_client its whole connection dropped; nothing a client does (or fails to read) holds
 * up the node, which only hands each block's events over once.
 */
export class WebSocketRpc {
  private readonly server: WebSocketServer;
  private readonly clients = new Set<WebSocketClient>();
  private readonly pinger: NodeJS.Timeout;
  private subscribedClients = 0;

  constructor(
    readonly settings: WebSocketSettings & { maxMessageBytes: number },
    private readonly deps: WebSocketRpcDeps,
  ) {
    this.server = new WebSocketServer({ noServer: true, maxPayload: settings.maxMessageBytes });
    this.pinger = setInterval(() => {
      for (const c of this.clients) c.ping();
    }, settings.pingPeriodMs);
    this.pinger.unref();
  }

  /** Takes over an HTTP upgrade request for `/websocket`. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.server.handleUpgrade(req, socket, head, (ws) => {
      const client = new WebSocketClient(ws, this, this.deps);
      this.clients.add(client);
      ws.once("close", () => {
        this.clients.delete(client);
        client.closed();
      });
    });
  }

  /** Hands a block's events to every matching subscription. */
  publish(events: readonly CometEvent[]): void {
    for (const c of this.clients) c.publish(events);
  }

  /** Connections with at least one subscription: CometBFT's count of subscription clients. */
  get clientsSubscribed(): number {
    return this.subscribedClients;
  }

  /** A client's subscriptions went from none to some (+1) or back (-1). */
  clientSubscribed(delta: 1 | -1): void {
    const before = this.subscribedClients;
    this.subscribedClients += delta;
    if ((before === 0) !== (this.subscribedClients === 0)) this.deps.subscribed(this.subscribedClients > 0);
  }

  close(): void {
    clearInterval(this.pinger);
    for (const c of this.clients) c.terminate();
    this.server.close();
  }
}

class WebSocketClient {
  private readonly subscriptions = new Map<string, Subscription>();
  private readonly left = new AbortController();
  /** Answers handed to the socket that the OS has not taken yet. */
  private unsent = 0;
  /** Calls running on the node's thread. */
  private running = 0;
  private alive = true;
  private paused = false;

  constructor(
    private readonly ws: WebSocket,
    private readonly rpc: WebSocketRpc,
    private readonly deps: WebSocketRpcDeps,
  ) {
    ws.on("message", (data, isBinary) => this.received(data, isBinary));
    ws.on("pong", () => {
      this.alive = true;
    });
    // Errors (a message over the read limit, a broken frame) close the connection; ws answers with the close code.
    ws.on("error", () => {});
  }

  private get writeBufferSize(): number {
    return this.rpc.settings.writeBufferSize;
  }

  ping(): void {
    if (!this.alive) {
      this.terminate();
      return;
    }
    this.alive = false;
    if (this.ws.readyState === this.ws.OPEN) this.ws.ping();
  }

  terminate(): void {
    this.ws.terminate();
  }

  closed(): void {
    this.left.abort();
    if (this.subscriptions.size > 0) {
      this.subscriptions.clear();
      this.rpc.clientSubscribed(-1);
    }
  }

  private write(text: string): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    this.unsent++;
    this.ws.send(text, () => {
      this.unsent--;
      this.drain();
    });
    this.throttle();
  }

  /** CometBFT's TryWriteRPCResponse: written only if the write buffer has room. */
  private tryWrite(text: string): void {
    if (this.unsent < this.writeBufferSize) this.write(text);
  }

  /** Stops reading requests while the write buffer is full or as many calls run: a client must read its answers. */
  private throttle(): void {
    const full = this.unsent >= this.writeBufferSize || this.running >= this.writeBufferSize;
    if (full && !this.paused) this.ws.pause();
    else if (!full && this.paused) this.ws.resume();
    this.paused = full;
  }

  /** Moves waiting events into the write buffer as it empties, oldest first per subscription. */
  private drain(): void {
    let moved = true;
    while (moved && this.unsent < this.writeBufferSize) {
      moved = false;
      for (const sub of this.subscriptions.values()) {
        const next = sub.backlog.shift();
        if (next === undefined) continue;
        this.write(next);
        moved = true;
        if (this.unsent >= this.writeBufferSize) break;
      }
    }
    this.throttle();
  }

  publish(events: readonly CometEvent[]): void {
    for (const e of events)
      for (const [key, sub] of this.subscriptions) {
        if (!sub.query.matches(e.events)) continue;
        const text = `{"jsonrpc":"2.0","id":${JSON.stringify(sub.id)},"result":{"query":${JSON.stringify(sub.text)},"data":${e.data},"events":${JSON.stringify(e.events)}}}`;
        if (sub.backlog.length === 0 && this.unsent < this.writeBufferSize) this.write(text);
        else if (sub.backlog.length < this.rpc.settings.subscriptionBufferSize) sub.backlog.push(text);
        else if (this.rpc.settings.closeOnSlowClient) {
          this.cancel(key, sub, "slow client");
          this.terminate();
          return;
        } else this.cancel(key, sub, "internal subscription event buffer is out of capacity");
      }
  }

  private cancel(key: string, sub: Subscription, reason: string): void {
    this.remove(key);
    const e = JsonRpcError.server(`subscription was canceled (reason: ${reason})`);
    this.tryWrite(JSON.stringify(errorAnswer(sub.id, e)));
  }

  private remove(key: string): void {
    this.subscriptions.delete(key);
    if (this.subscriptions.size === 0) this.rpc.clientSubscribed(-1);
  }

  private received(data: RawData, isBinary: boolean): void {
    this.alive = true;
    let request: unknown;
    try {
      if (isBinary) throw new Error("a binary message; send JSON text");
      request = JSON.parse(data.toString());
      if (request === null || typeof request !== "object" || Array.isArray(request))
        throw new Error("expected one JSON-RPC request object (a batch is not served over WebSocket)");
    } catch (e) {
      const why = `error unmarshaling request: ${(e as Error).message}`;
      this.write(JSON.stringify(errorAnswer(null, JsonRpcError.parseError(why))));
      return;
    }
    const r = request as { id?: unknown; method?: unknown; params?: unknown };
    // As CometBFT: a request without an id is a notification, and gets no answer.
    if (r.id === undefined || r.id === null) return;
    const id = requestId(r);
    try {
      switch (r.method) {
        case "subscribe":
          this.subscribe(id, queryParam(r.params));
          break;
        case "unsubscribe":
          this.unsubscribe(queryParam(r.params));
          break;
        case "unsubscribe_all":
          if (this.subscriptions.size === 0) throw JsonRpcError.internal("subscription not found");
          this.subscriptions.clear();
          this.rpc.clientSubscribed(-1);
          break;
        default:
          this.forward(request);
          return;
      }
      this.write(JSON.stringify({ jsonrpc: "2.0", id, result: {} }));
    } catch (e) {
      const err = e instanceof JsonRpcError ? e : JsonRpcError.internal((e as Error).message);
      this.write(JSON.stringify(errorAnswer(id, err)));
    }
  }

  private forward(request: unknown): void {
    this.running++;
    this.throttle();
    void this.deps.call(request, this.left.signal).then((text) => {
      this.running--;
      this.write(text);
      this.throttle();
    });
  }

  private subscribe(id: RpcId, text: string): void {
    const { maxSubscriptionClients, maxSubscriptionsPerClient } = this.rpc.settings;
    // CometBFT's checks, in its order and with its texts.
    if (this.rpc.clientsSubscribed >= maxSubscriptionClients)
      throw JsonRpcError.internal(`max_subscription_clients ${maxSubscriptionClients} reached`);
    if (this.subscriptions.size >= maxSubscriptionsPerClient)
      throw JsonRpcError.internal(`max_subscriptions_per_client ${maxSubscriptionsPerClient} reached`);
    if (text.length > MAX_QUERY_LENGTH) throw JsonRpcError.internal("maximum query length exceeded");
    const query = parsed(text);
    if (this.subscriptions.has(query.canonical)) throw JsonRpcError.internal("already subscribed");
    this.subscriptions.set(query.canonical, { query, text, id, backlog: [] });
    if (this.subscriptions.size === 1) this.rpc.clientSubscribed(1);
  }

  private unsubscribe(text: string): void {
    const query = parsed(text);
    if (!this.subscriptions.has(query.canonical)) throw JsonRpcError.internal("subscription not found");
    this.remove(query.canonical);
  }
}

function parsed(text: string): EventQuery {
  try {
    return EventQuery.parse(text);
  } catch (e) {
    if (e instanceof EventQueryError) throw JsonRpcError.internal(`failed to parse query: ${e.message}`);
    throw e;
  }
}

/** The `query` parameter, named or first in a list. */
function queryParam(params: unknown): string {
  const q = Array.isArray(params) ? params[0] : (params as { query?: unknown } | null | undefined)?.query;
  if (typeof q !== "string")
    throw JsonRpcError.internal("error converting json params to arguments: query must be a string");
  return q;
}
