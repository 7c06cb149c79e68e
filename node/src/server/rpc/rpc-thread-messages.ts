import type { CometEvent } from "./comet-events.js";

/** What the RPC thread listens with: every limit resolved, so it loads none of the node's config code. */
export interface RpcThreadSettings {
  host: string;
  port: number;
  maxBodyBytes: number;
  readTimeoutMs: number;
  writeTimeoutMs: number;
  maxOpenConnections: number;
  maxBatchSize: number;
  maxResponseBytes: number;
  /** For `GET /`, which lists them. */
  methodNames: string[];
  /** WebSocket subscriptions at `/websocket`, with CometBFT's bounds. */
  websocket: WebSocketSettings;
}

/** config.toml [rpc]'s subscription bounds (CometBFT's keys); a message is at most max_body_bytes, as CometBFT. */
export interface WebSocketSettings {
  maxSubscriptionClients: number;
  maxSubscriptionsPerClient: number;
  subscriptionBufferSize: number;
  writeBufferSize: number;
  closeOnSlowClient: boolean;
  /** How often the server pings; a client silent since the last ping is dropped (CometBFT: 27 s of 30 s). */
  pingPeriodMs: number;
}

/** From the RPC thread to the node. `n` numbers a call until its answer comes back. */
export type FromRpcThread =
  | { kind: "listening"; address: string }
  | { kind: "listen-failed"; message: string }
  | { kind: "log"; level: "error"; msg: string; ctx: Record<string, unknown> }
  /** One JSON-RPC request of a POST (alone or in a batch), as the client sent it. */
  | { kind: "request"; n: number; request: unknown }
  /** A URI-form call: `GET /<name>?<params>`. */
  | { kind: "uri"; n: number; name: string; params: Record<string, unknown> }
  /** Call `n`'s client is gone (it closed the connection, or the write timeout did): its work can stop. */
  | { kind: "gone"; n: number }
  /** Whether any WebSocket client subscribes: the node sends block events only while one does. */
  | { kind: "subscribed"; any: boolean }
  | { kind: "closed" };

/** A call's answer as JSON text; `status` is the HTTP status of a URI-form call's answer. */
export interface RpcAnswer {
  n: number;
  text: string;
  status: number;
}

/** From the node to the RPC thread. */
export type ToRpcThread =
  /** The first message: the thread boots before the node has opened its store, and listens once told how. */
  | { kind: "listen"; settings: RpcThreadSettings }
  | { kind: "answers"; list: RpcAnswer[] }
  /** A committed block's events, for the subscriptions that match them. */
  | { kind: "events"; list: CometEvent[] }
  | { kind: "close" };
