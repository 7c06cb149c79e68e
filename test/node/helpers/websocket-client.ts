import WebSocket from "ws";

// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC messages are checked field by field by the tests
type Json = any;

/** A JSON-RPC client over one WebSocket that keeps every message it receives, in order. */
export class JsonRpcSocket {
  readonly received: Json[] = [];
  private waiters: (() => void)[] = [];
  /** Settles with the close code once the server (or the client) closes the connection. */
  readonly closed: Promise<number>;

  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data) => {
      this.received.push(JSON.parse(data.toString()));
      for (const w of this.waiters.splice(0)) w();
    });
    this.closed = new Promise((resolve) => ws.on("close", (code) => resolve(code)));
    ws.on("error", () => {});
  }

  /** Connects to `<rpc>/websocket` (an http:// address is turned into ws://). */
  static async open(rpc: string): Promise<JsonRpcSocket> {
    const ws = new WebSocket(`${rpc.replace(/^http/, "ws")}/websocket`);
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    return new JsonRpcSocket(ws);
  }

  send(message: unknown): void {
    this.ws.send(typeof message === "string" ? message : JSON.stringify(message));
  }

  /** The first message (from `from` on) that `match` accepts; waits for it. */
  async next(match: (m: Json) => boolean, from = 0): Promise<Json> {
    for (;;) {
      const found = this.received.slice(from).find(match);
      if (found) return found;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** Sends a call and waits for the answer with its id. */
  async call(id: number | string, method: string, params: unknown = {}): Promise<Json> {
    this.send({ jsonrpc: "2.0", id, method, params });
    return this.next((m) => m.id === id && (m.result === undefined || m.result.query === undefined));
  }

  close(): void {
    this.ws.close();
  }
}
