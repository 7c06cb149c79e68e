import type { Worker } from "node:worker_threads";
import type { Logger } from "@chaind/core/logger";
import { spawnThread } from "@chaind/core/thread-script";
import { ConcurrencyGate, type ConcurrencyGateOptions } from "../../app/concurrency-gate.js";
import { defaultNodeConfig } from "../../config/node-config.js";
import type { CommittedBlock } from "../../consensus/block-producer.js";
import { cometEvents } from "./comet-events.js";
import { errorAnswer, JsonRpcError, JsonRpcErrorCode, type RpcId, requestId } from "./json-rpc-error.js";
import type {
  FromRpcThread,
  RpcAnswer,
  RpcThreadSettings,
  ToRpcThread,
  WebSocketSettings,
} from "./rpc-thread-messages.js";
import { RPC_THREAD_SCRIPT } from "./rpc-thread-script.js";

export type RpcParams = Record<string, unknown>;

/** A result already serialized to JSON, spliced into the answer as it is: a large document kept as text. */
export class JsonText {
  constructor(readonly text: string) {}
}

/** What a method knows of the call it runs. */
export interface RpcCall {
  /**
   * Aborted once the call's client is gone (it closed the connection, or the write timeout closed it): a method
   * doing long work checks it between steps and stops, throwing the signal's reason.
   */
  signal: AbortSignal;
  /** The largest answer the server sends (max_response_bytes): a method building a long list stops at it. */
  maxResultBytes: number;
}

export interface RpcMethod {
  /** Parameter names in order, so positional arrays map onto them. */
  params: readonly string[];
  /**
   * Its answer can be large (a page of txs, a whole block, the mempool's txs): such calls run a few at a time,
   * a few more wait, and the rest are refused (LARGE_ANSWER_CONCURRENCY).
   */
  large?: boolean;
  /** Left out of the list `GET /` answers: a name kept only to refuse it with a reason. */
  unlisted?: boolean;
  run(params: RpcParams, call: RpcCall): Promise<unknown>;
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
  /** How many calls of `large` methods run at once and wait; default LARGE_ANSWER_CONCURRENCY. */
  largeAnswers?: ConcurrencyGateOptions;
  /** Subscription bounds at `/websocket`; config.toml's defaults (CometBFT's) for those not given. */
  websocket?: Partial<WebSocketSettings>;
}

/** Where committed blocks come from, for WebSocket subscriptions: the embedded engine's block producer. */
export interface CommitSource {
  onCommit(fn: (b: CommittedBlock) => void): () => void;
}

const RPC_DEFAULTS = defaultNodeConfig("").rpc;

/** CometBFT's default `rpc.max_open_connections` (config.toml's default). */
const DEFAULT_RPC_MAX_OPEN_CONNECTIONS = RPC_DEFAULTS.maxOpenConnections;

/** CometBFT pings a WebSocket client every 27 s and drops one that has not answered within 30 s. */
const WEBSOCKET_PING_PERIOD_MS = 27_000;

/** CometBFT's RPC write timeout (its server's default; the node raises it above timeout_broadcast_tx_commit). */
export const DEFAULT_RPC_WRITE_TIMEOUT_MS = 10_000;

/** CometBFT 1.x's default `max_request_batch_size` (config.toml's default). */
export const DEFAULT_RPC_MAX_BATCH_SIZE = RPC_DEFAULTS.maxRequestBatchSize;

/** The default cap on one answer (config.toml's `max_response_bytes`). */
export const DEFAULT_RPC_MAX_RESPONSE_BYTES = RPC_DEFAULTS.maxResponseBytes;

/**
 * Calls of methods with large answers (tx_search, block, unconfirmed_txs …) that run at once, and how many more
 * may wait; the next is refused with "too many large requests in flight". Each builds up to max_response_bytes of
 * answer on the node's thread: two at a time keep that memory and that thread's time bounded, and a short line
 * absorbs a burst. CometBFT has no such limit; its calls run on as many goroutines as clients.
 */
const LARGE_ANSWER_CONCURRENCY: ConcurrencyGateOptions = { running: 2, waiting: 32 };

/** The reason a call's signal aborts with: its client left, and no one will read its answer. */
const CLIENT_GONE = JsonRpcError.internal("the client left before its answer was ready");

/**
 * CometBFT-style JSON-RPC 2.0 over HTTP: POST to the root (a single call or a batch) and the URI form
 * `GET /<method>?name=value`. Every failure becomes a JSON-RPC error; nothing a client sends can crash it.
 * HTTP is served by a thread of its own (rpc-http-thread.ts); the calls run here, on the node's thread.
 */
export class JsonRpcServer {
  private constructor(
    private readonly thread: Worker,
    /** Where it listens (`http://127.0.0.1:26657`). */
    readonly address: string,
    private readonly closed: Promise<void>,
    private readonly stopEvents: () => void,
  ) {}

  static async start(
    opts: JsonRpcServerOptions,
    methods: ReadonlyMap<string, RpcMethod>,
    deps: { logger: Logger; thread?: Worker; commits?: CommitSource },
  ): Promise<JsonRpcServer> {
    const { logger } = deps;
    const ws = opts.websocket ?? {};
    const settings: RpcThreadSettings = {
      host: opts.host,
      port: opts.port,
      maxBodyBytes: opts.maxBodyBytes,
      readTimeoutMs: opts.readTimeoutMs,
      writeTimeoutMs: opts.writeTimeoutMs ?? DEFAULT_RPC_WRITE_TIMEOUT_MS,
      maxOpenConnections: opts.maxOpenConnections ?? DEFAULT_RPC_MAX_OPEN_CONNECTIONS,
      maxBatchSize: opts.maxBatchSize ?? DEFAULT_RPC_MAX_BATCH_SIZE,
      maxResponseBytes: opts.maxResponseBytes ?? DEFAULT_RPC_MAX_RESPONSE_BYTES,
      methodNames: [...methods]
        .filter(([, m]) => !m.unlisted)
        .map(([name]) => name)
        .sort(),
      websocket: {
        maxSubscriptionClients: ws.maxSubscriptionClients ?? RPC_DEFAULTS.maxSubscriptionClients,
        maxSubscriptionsPerClient: ws.maxSubscriptionsPerClient ?? RPC_DEFAULTS.maxSubscriptionsPerClient,
        subscriptionBufferSize: ws.subscriptionBufferSize ?? RPC_DEFAULTS.subscriptionBufferSize,
        writeBufferSize: ws.writeBufferSize ?? RPC_DEFAULTS.webSocketWriteBufferSize,
        closeOnSlowClient: ws.closeOnSlowClient ?? RPC_DEFAULTS.closeOnSlowClient,
        pingPeriodMs: ws.pingPeriodMs ?? WEBSOCKET_PING_PERIOD_MS,
      },
    };
    const thread = deps.thread ?? spawnRpcThread();
    const runner: CallRunner = {
      methods,
      logger,
      maxResultBytes: settings.maxResponseBytes,
      largeAnswers: new ConcurrencyGate(
        opts.largeAnswers ?? LARGE_ANSWER_CONCURRENCY,
        ({ running, waiting }) =>
          JsonRpcError.internal(
            `too many large requests in flight (${running} running, ${waiting} waiting); try again shortly`,
          ),
      ),
    };
    // Each call in progress, by number, so the thread can say its client is gone.
    const calls = new Map<number, AbortController>();
    const begun = (n: number) => {
      const c = new AbortController();
      calls.set(n, c);
      return c.signal;
    };
    // The answers of one turn of the event loop go over in one message: each message wakes the thread, and on a
    // virtual machine a wake-up can cost more than the call did.
    let queued: RpcAnswer[] = [];
    const answer = (a: RpcAnswer) => {
      if (queued.length === 0)
        setImmediate(() => {
          thread.postMessage({ kind: "answers", list: queued } satisfies ToRpcThread);
          queued = [];
        });
      queued.push(a);
    };
    let listening: (address: string) => void;
    let failed: (e: Error) => void;
    const started = new Promise<string>((resolve, reject) => {
      listening = resolve;
      failed = reject;
    });
    let closing: () => void;
    const closed = new Promise<void>((resolve) => {
      closing = resolve;
    });
    // Block events cost the producer nothing until a WebSocket client subscribes; then each commit's events are
    // built once and handed over in one message, and the thread matches them to the subscriptions.
    let subscribed = false;
    const stopEvents =
      deps.commits?.onCommit((b) => {
        if (subscribed) thread.postMessage({ kind: "events", list: cometEvents(b) } satisfies ToRpcThread);
      }) ?? (() => {});
    thread.on("message", (m: FromRpcThread) => {
      switch (m.kind) {
        case "subscribed":
          subscribed = m.any;
          return;
        case "request":
          void answerRequest(runner, m.request, begun(m.n)).then((text) => {
            calls.delete(m.n);
            answer({ n: m.n, text, status: 200 });
          });
          return;
        case "uri":
          void answerUri(runner, m.name, m.params, begun(m.n)).then((a) => {
            calls.delete(m.n);
            answer({ n: m.n, ...a });
          });
          return;
        case "gone":
          calls.get(m.n)?.abort(CLIENT_GONE);
          return;
        case "log":
          logger.error(m.msg, m.ctx);
          return;
        case "listening":
          listening(m.address);
          return;
        case "listen-failed":
          failed(new Error(m.message));
          return;
        case "closed":
          closing();
      }
    });
    // A thread that dies (a bug in it, or out of memory) takes the RPC with it, never the node.
    thread.on("error", (e) => {
      logger.error("rpc thread failed; the RPC no longer answers", { err: e.message });
      failed(e);
      closing();
    });
    thread.postMessage({ kind: "listen", settings } satisfies ToRpcThread);
    thread.on("exit", (code) => {
      failed(new Error(`the rpc thread exited (code ${code}) before it listened`));
      closing();
    });
    try {
      const address = await started;
      // From here the node's own work keeps the process alive; a node that ends must not wait for its RPC.
      thread.unref();
      return new JsonRpcServer(thread, address, closed, stopEvents);
    } catch (e) {
      stopEvents();
      await thread.terminate();
      throw e;
    }
  }

  /** Stops listening, closes every connection and ends the thread. */
  async close(): Promise<void> {
    // Held again while it closes: a node stopping has little else left to keep the process alive meanwhile.
    this.thread.ref();
    this.stopEvents();
    this.thread.postMessage({ kind: "close" } satisfies ToRpcThread);
    await this.closed;
    await this.thread.terminate();
  }
}

/**
 * Starts the RPC's HTTP thread, which boots (a V8 isolate, its modules) while the node opens its store; it
 * listens once JsonRpcServer.start gives it its settings, and a caller that does not get that far terminates it.
 */
export function spawnRpcThread(): Worker {
  return spawnThread(RPC_THREAD_SCRIPT);
}

/** A successful answer as JSON text. */
function resultText(id: RpcId, result: unknown): string {
  if (!(result instanceof JsonText)) return JSON.stringify({ jsonrpc: "2.0", id, result });
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result.text}}`;
}

/** What every call needs: the methods, the logger, and the limits on large answers. */
interface CallRunner {
  methods: ReadonlyMap<string, RpcMethod>;
  logger: Logger;
  maxResultBytes: number;
  largeAnswers: ConcurrencyGate;
}

async function call(
  runner: CallRunner,
  name: unknown,
  params: unknown,
  signal: AbortSignal,
): Promise<unknown> {
  const { methods, logger } = runner;
  const method = typeof name === "string" ? methods.get(name) : undefined;
  if (!method) throw JsonRpcError.methodNotFound(`unknown method ${JSON.stringify(name)}`);
  let named: RpcParams;
  if (params === undefined || params === null) named = {};
  else if (Array.isArray(params)) named = Object.fromEntries(method.params.map((p, i) => [p, params[i]]));
  else if (typeof params === "object") named = params as RpcParams;
  else throw JsonRpcError.invalidParams("params must be an object or an array");
  const run = () => method.run(named, { signal, maxResultBytes: runner.maxResultBytes });
  try {
    return await (method.large ? runner.largeAnswers.run(run, signal) : run());
  } catch (e) {
    if (signal.aborted && e === signal.reason) {
      logger.debug("rpc call stopped: its client is gone", { method: name as string });
      throw e;
    }
    if (e instanceof JsonRpcError) throw e;
    const msg = e instanceof Error ? e.message : String(e);
    logger.debug("rpc call failed", { method: name as string, err: msg });
    throw JsonRpcError.internal(msg);
  }
}

/** One JSON-RPC request's answer as JSON text; a failure of any kind is an error answer. */
async function answerRequest(runner: CallRunner, msg: unknown, signal: AbortSignal): Promise<string> {
  const m = msg as { jsonrpc?: unknown; id?: RpcId; method?: unknown; params?: unknown } | null;
  const id = requestId(m);
  if (!m || typeof m !== "object" || m.jsonrpc !== "2.0")
    return JSON.stringify(
      errorAnswer(id, JsonRpcError.invalidRequest('expected a JSON-RPC 2.0 object ("jsonrpc": "2.0")')),
    );
  try {
    return resultText(id, await call(runner, m.method, m.params, signal));
  } catch (e) {
    return JSON.stringify(errorAnswer(id, asRpcError(e, runner.logger)));
  }
}

/** A URI-form call's answer: its JSON text and HTTP status (404 unknown method, 500 failure, else 400). */
async function answerUri(
  runner: CallRunner,
  name: string,
  params: RpcParams,
  signal: AbortSignal,
): Promise<{ text: string; status: number }> {
  try {
    return { text: resultText(-1, await call(runner, name, params, signal)), status: 200 };
  } catch (e) {
    const err = asRpcError(e, runner.logger);
    return { text: JSON.stringify(errorAnswer(-1, err)), status: uriStatus(err) };
  }
}

function uriStatus(e: JsonRpcError): number {
  if (e.code === JsonRpcErrorCode.METHOD_NOT_FOUND) return 404;
  return e.code === JsonRpcErrorCode.INTERNAL_ERROR ? 500 : 400;
}

/** A JSON-RPC error as thrown, or an internal one for anything else (a result JSON cannot hold, say). */
function asRpcError(e: unknown, logger: Logger): JsonRpcError {
  if (e instanceof JsonRpcError) return e;
  logger.error("rpc request failed", { err: e instanceof Error ? e.message : String(e) });
  return JsonRpcError.internal("unexpected failure");
}
