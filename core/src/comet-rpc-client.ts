import { readLimitedResponse } from "./limited-response.js";

/** A failed call to a node: unreachable, a JSON-RPC error, or a query the node answered with a non-zero code. */
export class NodeCallError extends Error {
  constructor(
    message: string,
    readonly code = 0,
    readonly codespace = "",
  ) {
    super(message);
    this.name = "NodeCallError";
  }
}

export interface BroadcastResult {
  code: number;
  codespace: string;
  log: string;
  hash: string;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** `tcp://host:port` (CometBFT's form, client.toml's default) or an http(s) URL, as an http URL. */
function nodeHttpUrl(node: string): string {
  if (/^https?:\/\//.test(node)) return node.replace(/\/$/, "");
  if (/^tcp:\/\//.test(node)) return `http://${node.slice("tcp://".length)}`;
  return `http://${node}`;
}

export interface NodeRpcClientOptions {
  /** How long one call may take. */
  timeoutMs?: number;
  /** The largest answer read; a larger one fails the call. The default fits the node's own `max_response_bytes`. */
  maxAnswerBytes?: number;
}

/** The CLI's view of a node: JSON-RPC over HTTP as CometBFT serves it. */
export class NodeRpcClient {
  private id = 0;
  readonly url: string;
  private readonly timeoutMs: number;
  private readonly maxAnswerBytes: number;

  constructor(node: string, opts: NodeRpcClientOptions = {}) {
    this.url = nodeHttpUrl(node);
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.maxAnswerBytes = opts.maxAnswerBytes ?? 64 * 1024 * 1024;
  }

  async call<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    let res: Response;
    try {
      res = await fetch(this.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: ++this.id, method, params }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (e) {
      const cause = (e as { cause?: { code?: string } }).cause?.code ?? (e as Error).message;
      throw new NodeCallError(
        `cannot reach node at ${this.url} (${cause}); is it running, and is --node right?`,
      );
    }
    let text: string;
    try {
      text = (await readLimitedResponse(res, this.maxAnswerBytes)).toString("utf8");
    } catch (e) {
      throw new NodeCallError(`node at ${this.url}: ${(e as Error).message}`);
    }
    const body = parseJson(text) as { result?: T; error?: { message: string; data?: string } } | null;
    if (!body || typeof body !== "object")
      throw new NodeCallError(`node at ${this.url} answered HTTP ${res.status} with no JSON`);
    if (body.error)
      throw new NodeCallError(
        `${method}: ${body.error.message}${body.error.data ? `: ${body.error.data}` : ""}`,
      );
    return body.result as T;
  }

  /** Runs a query through `abci_query`; a non-zero answer becomes a NodeCallError with the node's log. */
  async query(path: string, data: Uint8Array, height = 0): Promise<{ value: Uint8Array; height: number }> {
    const r = await this.call<{
      response: { code: number; log: string; codespace: string; value: string | null; height: string };
    }>("abci_query", { path, data: Buffer.from(data).toString("hex"), height: String(height), prove: false });
    const resp = r.response;
    if (resp.code !== 0) throw new NodeCallError(resp.log, resp.code, resp.codespace);
    return { value: new Uint8Array(Buffer.from(resp.value ?? "", "base64")), height: Number(resp.height) };
  }

  async broadcastSync(tx: Uint8Array): Promise<BroadcastResult> {
    return this.call<BroadcastResult>("broadcast_tx_sync", { tx: Buffer.from(tx).toString("base64") });
  }

  async broadcastAsync(tx: Uint8Array): Promise<BroadcastResult> {
    return this.call<BroadcastResult>("broadcast_tx_async", { tx: Buffer.from(tx).toString("base64") });
  }

  async status(): Promise<{ node_info: { network: string }; sync_info: { latest_block_height: string } }> {
    return this.call("status");
  }

  /** Polls for a committed tx until it appears or the timeout passes. */
  async waitForTx(
    hashHex: string,
    timeoutMs: number,
  ): Promise<{
    height: string;
    tx_result: {
      code: number;
      log: string;
      codespace: string;
      data?: string | null;
      info?: string;
      gas_wanted?: string;
      gas_used?: string;
      events?: { type: string; attributes: { key: string; value: string }[] }[];
    };
  }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        return await this.call("tx", { hash: Buffer.from(hashHex, "hex").toString("base64") });
      } catch (e) {
        if (!(e instanceof NodeCallError) || !/not found/.test(e.message) || Date.now() > deadline) throw e;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}
