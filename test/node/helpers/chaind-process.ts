import { join } from "node:path";
import { listenOnPickedPorts } from "@chaind/harness/free-listener-ports";
import { LineCollector } from "@chaind/harness/line-collector";
import { execa, type ResultPromise } from "execa";

export const CHAIND_BIN = join(import.meta.dirname, "../../../node/bin/chaind.js");

/** The `chaind` of a test chain version (fixtures/testchain/<v>), as `npm run build` compiles it. */
export function testchainBin(v: "v1" | "v2" | "v3"): string {
  return join(import.meta.dirname, "../../../dist/fixtures/testchain", v, "main.js");
}

/** Runs a chaind command (of `bin`, the standard app by default) to completion. */
export function chaind(
  args: string[],
  opts: { input?: string; env?: Record<string, string>; bin?: string } = {},
) {
  return execa("node", [opts.bin ?? CHAIND_BIN, ...args], {
    reject: false,
    input: opts.input,
    env: opts.env,
  });
}

/** A running `chaind start` whose log lines are collected as they come. */
export class NodeProcess {
  readonly proc: ResultPromise;
  private readonly out: LineCollector;

  /** `launcher`: a command that runs node, with its arguments (`["prlimit", "--nofile=400:400"]`). */
  constructor(
    home: string,
    extra: string[] = [],
    env?: Record<string, string>,
    bin = CHAIND_BIN,
    launcher: string[] = [],
  ) {
    const [command, ...args] = [...launcher, "node", bin, "start", "--home", home, ...extra];
    this.proc = execa(command, args, {
      env,
      reject: false,
      all: true,
      buffer: false,
    });
    this.out = new LineCollector(this.proc.all!);
  }

  get lines(): string[] {
    return this.out.lines;
  }

  /** Resolves with the first line (already seen or coming) that matches. */
  waitFor(re: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> {
    return this.out.waitFor(re, timeoutMs);
  }

  /** height -> app hash, from the "committed block" lines. */
  committed(): Map<number, string> {
    const out = new Map<number, string>();
    for (const l of this.lines) {
      const m = l.match(/committed block .*height=(\d+) .*app_hash=([0-9A-F]+)/);
      if (m) out.set(Number(m[1]), m[2]);
    }
    return out;
  }

  /** The longest time between two consecutive committed blocks from height `from` on, by the log's timestamps. */
  longestCommitGapMs(from: number): number {
    let last: number | undefined;
    let longest = 0;
    for (const l of this.lines) {
      const m = l.match(/^(\S+) .*committed block .*height=(\d+) /);
      if (!m || Number(m[2]) < from) continue;
      const t = Date.parse(m[1]);
      if (last !== undefined) longest = Math.max(longest, t - last);
      last = t;
    }
    return longest;
  }
}

/** A key `chaind testnet` made: its name, address and mnemonic. */
export interface TestnetKey {
  name: string;
  address: string;
  mnemonic: string;
}

/**
 * `chaind testnet --home home ...args`, its listeners moved to picked ports, `beforeStart` given the home (to
 * edit its config), and its node started until it has committed block 2. Stop it with `stopNode`.
 */
export async function startTestnet(
  home: string,
  args: string[],
  opts: { beforeStart?: (home: string) => void } = {},
): Promise<{ node: NodeProcess; rpc: string; keys: TestnetKey[] }> {
  const made = await chaind(["testnet", "--home", home, ...args]);
  if (made.exitCode !== 0) throw new Error(`chaind testnet failed: ${made.stderr}`);
  listenOnPickedPorts(home);
  opts.beforeStart?.(home);
  const node = new NodeProcess(home);
  const rpc = (await node.waitFor(/\brpc listening address=(\S+)/))[1];
  await node.waitFor(/committed block .*height=2 /);
  return { node, rpc, keys: JSON.parse(made.stdout).keys };
}

/** SIGTERM, then waits for the node to exit. */
export async function stopNode(node: NodeProcess | undefined): Promise<void> {
  if (!node) return;
  node.proc.kill("SIGTERM");
  await node.proc;
}

/**
 * The arguments of `chaind tx bank send alice <to> 1stake` on a `chaind testnet` home, waiting for the commit: a
 * send whose signer signs with the home's test keyring.
 */
export function aliceSendArgs(home: string, rpc: string, to: string): string[] {
  return [
    "tx",
    "bank",
    "send",
    "alice",
    to,
    "1stake",
    "--home",
    home,
    "--node",
    rpc,
    "--gas-prices",
    "0.0001stake",
    "--wait",
  ];
}
