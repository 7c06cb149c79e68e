import { CHAIND_CLI } from "@chaind/harness/local-testnet";
import { BenchProcess } from "./bench-process.js";

/** `chaind start` on a home as a child process, with the listener addresses it logged. */
export class ChaindNode {
  private constructor(
    readonly process: BenchProcess,
    readonly restUrl: string,
    readonly grpcAddress: string,
    /** The CometBFT RPC, http://host:port. */
    readonly rpcUrl: string,
    /** ms from spawn to the first "committed block" line. */
    readonly firstBlockMs: number,
  ) {}

  static async start(
    home: string,
    opts: { binary?: string; env?: Record<string, string> } = {},
  ): Promise<ChaindNode> {
    const p = opts.binary
      ? new BenchProcess(opts.binary, ["start", "--home", home], { env: opts.env })
      : new BenchProcess("node", [CHAIND_CLI, "start", "--home", home]);
    // A node that exits during start-up fails the wait at once instead of at the timeout.
    const exited = p.proc.then((r) => {
      throw new Error(
        `chaind exited with ${r.exitCode ?? r.signal}; last lines:\n${p.lines.slice(-10).join("\n")}`,
      );
    });
    exited.catch(() => {});
    try {
      const api = await Promise.race([p.waitFor(/\bapi listening address=(\S+)/, 300_000), exited]);
      const grpc = await p.waitFor(/\bgrpc listening address=(\S+)/, 1000);
      const rpc = await p.waitFor(/\brpc listening address=(\S+)/, 1000);
      const first = await Promise.race([p.waitFor(/committed block/, 300_000), exited]);
      return new ChaindNode(p, api.match[1], grpc.match[1], rpcUrlOf(rpc.match[1]), first.at - p.startedAt);
    } catch (e) {
      await p.stop();
      throw new Error(`chaind did not start: ${(e as Error).message}`);
    }
  }

  /** The latest committed height, from the node's log. */
  get height(): number {
    for (let i = this.process.lines.length - 1; i >= 0; i--) {
      const m = this.process.lines[i].match(/committed block .*height=(\d+)/);
      if (m) return Number(m[1]);
    }
    return 0;
  }

  stop(): Promise<number> {
    return this.process.stop();
  }
}

/** The RPC's logged address (tcp://host:port, or host:port) as an http URL. */
function rpcUrlOf(address: string): string {
  return `http://${address.replace(/^\w+:\/\//, "")}`;
}
