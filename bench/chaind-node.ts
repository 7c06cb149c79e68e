import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CHAIND_CLI } from "@chaind/harness/local-testnet";
import { parse } from "smol-toml";
import { BenchProcess } from "./bench-process.js";

/** A block committed, in the embedded engine's log line or CometBFT's. */
const COMMITTED = /committed (?:block|state)\b.*height=(\d+)/;

/**
 * `chaind start` on a home as a child process, with the listener addresses it logged. With `cometbft`, CometBFT
 * makes the blocks (the home must be set up for it) and serves the RPC at config.toml's `[rpc] laddr`.
 */
export class ChaindNode {
  private constructor(
    readonly process: BenchProcess,
    readonly restUrl: string,
    readonly grpcAddress: string,
    /** The CometBFT RPC, http://host:port. */
    readonly rpcUrl: string,
    /** ms from spawn to the first committed block's log line (the embedded engine's or CometBFT's). */
    readonly firstBlockMs: number,
  ) {}

  static async start(
    home: string,
    opts: { binary?: string; env?: Record<string, string>; cometbft?: string } = {},
  ): Promise<ChaindNode> {
    const args = ["start", "--home", home];
    if (opts.cometbft) args.push("--consensus-engine", "cometbft", "--cometbft", opts.cometbft);
    const p = opts.binary
      ? new BenchProcess(opts.binary, args, { env: opts.env })
      : new BenchProcess("node", [CHAIND_CLI, ...args]);
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
      const rpc = opts.cometbft
        ? cometbftRpcAddress(home)
        : (await p.waitFor(/\brpc listening address=(\S+)/, 1000)).match[1];
      const first = await Promise.race([p.waitFor(COMMITTED, 300_000), exited]);
      return new ChaindNode(p, api.match[1], grpc.match[1], rpcUrlOf(rpc), first.at - p.startedAt);
    } catch (e) {
      await p.stop();
      throw new Error(`chaind did not start: ${(e as Error).message}`);
    }
  }

  /** The latest committed height, from the node's log. */
  get height(): number {
    for (let i = this.process.lines.length - 1; i >= 0; i--) {
      const m = this.process.lines[i].match(COMMITTED);
      if (m) return Number(m[1]);
    }
    return 0;
  }

  stop(): Promise<number> {
    return this.process.stop();
  }
}

/** CometBFT's RPC address, from the home's config.toml: CometBFT serves it, chaind logs no line for it. */
function cometbftRpcAddress(home: string): string {
  const config = parse(readFileSync(join(home, "config", "config.toml"), "utf8")) as {
    rpc: { laddr: string };
  };
  return config.rpc.laddr;
}

/** The RPC's logged address (tcp://host:port, or host:port) as an http URL. */
function rpcUrlOf(address: string): string {
  return `http://${address.replace(/^\w+:\/\//, "")}`;
}
