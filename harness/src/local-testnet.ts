import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { execa, type ResultPromise } from "execa";
import { nodeListenAddresses } from "visor/node-listen-addresses";
import { useCometbftEngine, useFreeListenerPorts } from "./free-listener-ports.js";
import { LineCollector } from "./line-collector.js";

const require = createRequire(import.meta.url);
/** A workspace's CLI entry, wherever npm linked the workspace. */
const cliOf = (pkg: string, name: string) =>
  join(dirname(require.resolve(`${pkg}/package.json`)), "bin", `${name}.js`);
/** The repository's own CLIs, used to drive the chain (any version's CLI speaks to any version's node). */
export const CHAIND_CLI = cliOf("chaind", "chaind");
export const VISOR_CLI = cliOf("visor", "visor");

/** What the harness' txs pay: enough for the testnet home's minimum gas price at the default gas limit. */
const TX_FEES = ["--fees", "2000stake"];

export interface LocalTestnetOptions {
  /** Folder of this testnet: the node home is `<dir>/node`, unless `home` names one. */
  dir: string;
  /** A home made elsewhere (a network's node, by LocalNetwork) to run instead of making one in `dir`. */
  home?: string;
  /** The executable `visor init` installs as the genesis binary (a release's bin/chaind, or a wrapper). */
  genesisBinary: string;
  chainId?: string;
  /** Block time and governance periods as Go durations. */
  blockTime?: string;
  votingPeriod?: string;
  /** Extra environment for visor (DAEMON_* and VISOR_* settings). */
  visorEnv?: Record<string, string>;
  /** Where visor's and the node's output goes besides the collected lines (e.g. process.stdout for a demo). */
  echo?: (line: string) => void;
  /** Listeners on OS-picked loopback ports (default), or on the Cosmos default ports (1317, 9090, 26657). */
  freePorts?: boolean;
  /**
   * visor in a process group of its own, so a terminal's Ctrl-C reaches only the caller, which passes it on with
   * `relaySignals()`: visor and the node then get one stop request, not the terminal's and the caller's.
   */
  ownProcessGroup?: boolean;
  /**
   * The real `cometbft` to make the blocks (config.toml's consensus_engine = "cometbft", chaind running it beside
   * itself through CHAIND_COMETBFT); without it, chaind's embedded engine.
   */
  cometbft?: string;
  /** A stock `cosmovisor` binary to supervise the node instead of visor (same environment and folder layout). */
  cosmovisor?: string;
  /**
   * What a wait that timed out adds to its error (a network's state: which nodes are down, with their last lines),
   * so that a failure can be diagnosed from the test's output alone.
   */
  context?: () => string;
  /** Called when visor ends without being asked to (not through stop(), kill() or exited()). */
  onUnexpectedExit?: (exit: VisorExit) => void;
}

/** How a run of visor ended. */
export interface VisorExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  at: Date;
  /** False when the harness asked for it (stop, kill) or waited for it (exited). */
  unexpected: boolean;
}

/** The proposal id in the events of a `--wait -o json` submission. */
function proposalIdOf(submitted: {
  events: { type: string; attributes: { key: string; value: string }[] }[];
}) {
  const event = submitted.events.find((e) => e.type === "submit_proposal");
  const id = event?.attributes.find((a) => a.key === "proposal_id")?.value;
  if (!id) throw new Error(`no proposal id in the submission's events: ${JSON.stringify(submitted.events)}`);
  return id;
}

export interface ProposalOptions {
  name: string;
  height: number;
  info: string;
}

/**
 * A single-validator chain run by visor, for integration tests of upgrades and for demos: create the home,
 * start visor, submit and vote proposals through the real CLI, wait for heights or log lines, query REST, and
 * stop everything without leftovers.
 */
export class LocalTestnet {
  private visor: ResultPromise | null = null;
  private out: LineCollector | null = null;
  private readonly collected: string[] = [];
  private seen = 0;
  private ending = false;
  private lastExit: VisorExit | null = null;
  private lastLineAt: Date | null = null;
  /** Listener name (rpc, api, grpc, telemetry) -> address, from the node's start-up lines. */
  readonly listeners = new Map<string, string>();

  private constructor(
    readonly opts: LocalTestnetOptions,
    readonly home: string,
    readonly chainId: string,
  ) {}

  /**
   * Makes the node home (`chaind testnet`) with listeners on free ports unless it exists, and installs the genesis
   * binary unless it is installed.
   */
  static async create(opts: LocalTestnetOptions): Promise<LocalTestnet> {
    const home = opts.home ?? join(opts.dir, "node");
    const chainId = opts.chainId ?? "localnet-1";
    mkdirSync(opts.dir, { recursive: true });
    const net = new LocalTestnet(opts, home, chainId);
    if (!existsSync(join(home, "config", "genesis.json"))) {
      await net.run(CHAIND_CLI, [
        "testnet",
        "--home",
        home,
        "--chain-id",
        chainId,
        "--block-time",
        opts.blockTime ?? "300ms",
        "--voting-period",
        opts.votingPeriod ?? "3s",
        "--deposit-period",
        opts.votingPeriod ?? "3s",
        "--min-deposit",
        "1000stake",
      ]);
      if (opts.cometbft) await useCometbftEngine(home, opts.blockTime ?? "300ms");
      else if (opts.freePorts !== false) await useFreeListenerPorts(home);
    }
    if (!existsSync(join(home, "cosmovisor", "genesis")))
      await net.run(net.supervisor, ["init", opts.genesisBinary]);
    return net;
  }

  get visorEnv(): Record<string, string> {
    return {
      DAEMON_HOME: this.home,
      DAEMON_NAME: "chaind",
      DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
      DAEMON_RESTART_AFTER_UPGRADE: "true",
      DAEMON_POLL_INTERVAL: "100ms",
      // A halting node is already on its way out: let it finish instead of killing it.
      DAEMON_SHUTDOWN_GRACE: "10s",
      COSMOVISOR_COLOR_LOGS: "false",
      ...(this.opts.cometbft ? { CHAIND_COMETBFT: this.opts.cometbft } : {}),
      ...this.opts.visorEnv,
    };
  }

  /** visor's CLI, or the stock cosmovisor the options name. */
  private get supervisor(): string {
    return this.opts.cosmovisor ?? VISOR_CLI;
  }

  /** A CLI of ours (a .js file, run by node) or a stock binary. */
  private command(bin: string, args: string[]): [string, string[]] {
    return bin.endsWith(".js") ? ["node", [bin, ...args]] : [bin, args];
  }

  private async run(bin: string, args: string[]): Promise<string> {
    const [file, argv] = this.command(bin, args);
    const r = await execa(file, argv, { env: this.visorEnv, reject: false });
    if (r.exitCode !== 0)
      throw new Error(`${bin} ${args.join(" ")} failed (${r.exitCode}): ${r.stderr || r.stdout}`);
    return r.stdout;
  }

  /** Starts `visor run start`; resolves once the node's RPC listens (its address is read from the log). */
  async start(extraArgs: string[] = []): Promise<void> {
    if (this.visor) throw new Error("testnet already started");
    const [file, argv] = this.command(this.supervisor, ["run", "start", "--home", this.home, ...extraArgs]);
    const proc = execa(file, argv, {
      env: this.visorEnv,
      reject: false,
      // stop() gives visor time to stop its daemon (DAEMON_SHUTDOWN_GRACE) before its own SIGKILL; execa's
      // default would SIGKILL visor after 5 s and orphan the daemon.
      forceKillAfterDelay: false,
      detached: this.opts.ownProcessGroup ?? this.opts.cosmovisor !== undefined,
      all: true,
      buffer: false,
    });
    this.visor = proc;
    this.ending = false;
    this.lastExit = null;
    // The exit itself, not the end of its output, which a process it left behind may hold open.
    proc.once("exit", (code, signal) => {
      const exit = { code, signal, at: new Date(), unexpected: !this.ending };
      this.lastExit = exit;
      if (exit.unexpected) this.opts.onUnexpectedExit?.(exit);
    });
    // One collector per run of visor; lines of earlier runs stay readable in `lines`.
    const out = new LineCollector(proc.all!, (line) => {
      this.collected.push(line);
      this.lastLineAt = new Date();
      this.opts.echo?.(line);
      const listener = line.match(/\b(\w+) listening address=(\S+)/);
      if (listener) this.listeners.set(listener[1], listener[2]);
    });
    const from = this.collected.length;
    for (const line of this.collected) out.lines.push(line);
    this.out = out;
    await out.waitFor(/\bapi listening address=/, 60_000, from);
  }

  /** Every line visor and the node printed, across restarts. */
  get lines(): string[] {
    return this.collected;
  }

  /** Whether visor runs: started, and neither stopped nor ended by itself since. */
  get running(): boolean {
    return this.visor !== null && this.lastExit === null;
  }

  /** How visor's last run ended; null while it runs or before its first start. */
  get exit(): VisorExit | null {
    return this.lastExit;
  }

  /** When visor or the node last printed a line. */
  get lastOutputAt(): Date | null {
    return this.lastLineAt;
  }

  /** A timed-out wait's error, with what `context` says about the rest of the network. */
  private explained(e: unknown): Error {
    const err = e instanceof Error ? e : new Error(String(e));
    const context = this.opts.context?.();
    if (context) err.message += `\n${context}`;
    return err;
  }

  /** The node's RPC: as it announced it, or (a testnet started by another process) from its config.toml. */
  get rpcUrl(): string {
    return this.listeners.get("rpc") ?? nodeListenAddresses(this.home).rpc;
  }

  /** The RPC as an http:// URL (CometBFT's config names it tcp://), for fetch. */
  get rpcHttpUrl(): string {
    const url = this.rpcUrl;
    return /^[a-z]+:\/\//.test(url) ? url.replace(/^tcp:/, "http:") : `http://${url}`;
  }

  get restUrl(): string {
    return this.listeners.get("api") ?? "";
  }

  /** The next line (from the last `mark()` on, or from the start when `fromStart`) matching `re`. */
  waitForLine(re: RegExp, timeoutMs = 30_000, fromStart = false): Promise<RegExpMatchArray> {
    if (!this.out) return Promise.reject(new Error("testnet not started"));
    return this.out.waitFor(re, timeoutMs, fromStart ? 0 : this.seen).catch((e: unknown) => {
      throw this.explained(e);
    });
  }

  /** Forgets lines seen so far, so waitForLine looks only at what comes next. */
  mark(): void {
    this.seen = this.lines.length;
  }

  /** Runs the chaind CLI against this node; answers stdout, throws with stderr on failure. */
  async cli(args: string[]): Promise<string> {
    const r = await execa("node", [CHAIND_CLI, ...args, "--home", this.home, "--node", this.rpcUrl], {
      reject: false,
    });
    if (r.exitCode !== 0) throw new Error(`chaind ${args.join(" ")}: ${r.stderr.trim()}`);
    return r.stdout;
  }

  /**
   * The node's latest height: from its RPC's `status` (a request, where `chaind status` would cost a process
   * start each time, and waitForHeight asks five times a second), or, when the RPC does not answer (a stopped
   * node), from `chaind status`, which reads the home.
   */
  async height(): Promise<number> {
    try {
      const res = await fetch(`${this.rpcHttpUrl}/status`, { signal: AbortSignal.timeout(10_000) });
      const body = (await res.json()) as { result?: { sync_info?: { latest_block_height?: string } } };
      const height = body.result?.sync_info?.latest_block_height;
      if (res.ok && height !== undefined) return Number(height);
    } catch {
      // Not answering: the home says.
    }
    // Without --node: a stopped node's home answers from its block store.
    const r = await execa("node", [CHAIND_CLI, "status", "--home", this.home], { reject: false });
    if (r.exitCode !== 0) throw new Error(`chaind status --home ${this.home}: ${r.stderr.trim()}`);
    return Number(JSON.parse(r.stdout).sync_info.latest_block_height);
  }

  async waitForHeight(height: number, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while ((await this.height().catch(() => 0)) < height) {
      if (Date.now() > deadline)
        throw this.explained(new Error(`height ${height} not reached in ${timeoutMs} ms`));
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** Submits a software-upgrade proposal, votes YES with the validator and waits until it has passed. */
  async proposeUpgrade(p: ProposalOptions): Promise<string> {
    const id = await this.submitUpgrade(p);
    await this.vote(id);
    await this.waitForProposal(id);
    return id;
  }

  /** Submits a software-upgrade proposal from this home's validator key; answers the proposal id. */
  async submitUpgrade(p: ProposalOptions): Promise<string> {
    const submitted = JSON.parse(
      await this.cli([
        "tx",
        "upgrade",
        "software-upgrade",
        p.name,
        "--title",
        `Upgrade to ${p.name}`,
        "--summary",
        "harness",
        "--deposit",
        "1000stake",
        "--upgrade-height",
        String(p.height),
        "--upgrade-info",
        p.info,
        "--no-checksum-required",
        "--from",
        "validator",
        ...TX_FEES,
        "--wait",
        "-o",
        "json",
      ]),
    );
    return proposalIdOf(submitted);
  }

  async proposeCancel(): Promise<string> {
    const submitted = JSON.parse(
      await this.cli([
        "tx",
        "upgrade",
        "cancel-software-upgrade",
        "--title",
        "Cancel",
        "--summary",
        "harness",
        "--deposit",
        "1000stake",
        "--from",
        "validator",
        ...TX_FEES,
        "--wait",
        "-o",
        "json",
      ]),
    );
    const id = proposalIdOf(submitted);
    await this.vote(id);
    await this.waitForProposal(id);
    return id;
  }

  /** Votes YES on a proposal with this home's validator key, through this node. */
  async vote(id: string): Promise<void> {
    await this.cli(["tx", "gov", "vote", id, "yes", "--from", "validator", ...TX_FEES, "--wait"]);
  }

  /** Waits until a proposal has passed; throws when it ends otherwise. */
  async waitForProposal(id: string, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      // REST where it listens: a request, not a CLI process every 300 ms.
      type Proposal = { status: string; failed_reason: string };
      const p = this.restUrl
        ? (await this.rest<{ proposal: Proposal }>(`/sdk/gov/v1/proposals/${id}`)).body.proposal
        : (JSON.parse(await this.cli(["query", "gov", "proposal", id, "-o", "json"])).proposal as Proposal);
      if (p.status === "PROPOSAL_STATUS_PASSED") return;
      if (p.status !== "PROPOSAL_STATUS_VOTING_PERIOD")
        throw new Error(`proposal ${id} ended ${p.status}: ${p.failed_reason}`);
      if (Date.now() > deadline) throw new Error(`proposal ${id} still voting after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 300));
    }
  }

  /** GET on the node's REST gateway, optionally at a height (x-sdk-block-height). */
  async rest<T = unknown>(
    path: string,
    opts: { height?: number } = {},
  ): Promise<{ status: number; body: T }> {
    if (!this.restUrl) throw new Error("the REST gateway is not listening (api.enable)");
    const res = await fetch(`${this.restUrl}${path}`, {
      headers: opts.height ? { "x-sdk-block-height": String(opts.height) } : {},
    });
    return { status: res.status, body: (await res.json()) as T };
  }

  /**
   * For a script a terminal runs, with visor in its own process group (`ownProcessGroup`): passes each SIGINT on
   * to visor, and SIGTERM or SIGHUP as SIGTERM, once, so the first stops the node gently and one sent again later
   * kills it. Once visor has stopped, the script ends as the first signal ends a program (a shell sees 130 for
   * Ctrl-C).
   */
  relaySignals(onStopping: () => void): void {
    const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
    let stopping = false;
    const relay = async (sig: NodeJS.Signals) => {
      this.ending = true;
      this.visor?.kill(sig === "SIGINT" ? "SIGINT" : "SIGTERM");
      if (stopping) return;
      stopping = true;
      onStopping();
      // However long visor takes (it finishes an upgrade under way before it stops): leaving first would orphan it.
      const proc = this.visor;
      if (proc) await Promise.resolve(proc).catch(() => undefined);
      this.visor = null;
      for (const s of signals) process.off(s, relay);
      process.kill(process.pid, sig);
    };
    for (const s of signals) process.on(s, relay);
  }

  /** Waits for visor to exit by itself (e.g. after a refused upgrade); answers its exit code. */
  async exited(timeoutMs = 60_000): Promise<number> {
    if (!this.visor) throw new Error("testnet not started");
    const proc = this.visor;
    this.ending = true;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`visor still running after ${timeoutMs} ms`)), timeoutMs);
    });
    const r = await Promise.race([proc, late]).finally(() => clearTimeout(timer));
    this.visor = null;
    return r.exitCode ?? -1;
  }

  /** Stops visor (which stops the node) and waits for both. */
  async stop(): Promise<void> {
    const proc = this.visor;
    if (!proc) return;
    this.visor = null;
    this.ending = true;
    // Stock cosmovisor is stopped as systemd stops its unit, the whole group at once: after an upgrade, v1.5
    // ends on SIGTERM without passing it to the new daemon (its first launch's handler still holds the signal).
    const group = this.opts.cosmovisor !== undefined && proc.pid !== undefined;
    const kill = (sig: NodeJS.Signals) => {
      if (!group) return proc.kill(sig);
      try {
        process.kill(-proc.pid!, sig);
      } catch {
        // The group has ended.
      }
    };
    kill("SIGTERM");
    const timer = setTimeout(() => kill("SIGKILL"), 20_000);
    await proc;
    clearTimeout(timer);
  }

  /**
   * SIGKILL to visor and every process under it (the node, its CometBFT) at once, as a power cut would leave
   * them; waits until visor has gone. `start()` runs it again.
   */
  async kill(): Promise<void> {
    const proc = this.visor;
    if (!proc?.pid) return;
    this.visor = null;
    this.ending = true;
    for (const pid of [proc.pid, ...descendants(proc.pid)]) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    await proc;
  }
}

/** Every process below `pid`, from /proc (Linux), children before grandchildren. */
function descendants(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The parent pid is the 4th field, after the command name in parentheses (which may hold spaces).
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
    } catch {
      // Ended while listed.
    }
  }
  const out: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of parents.get(queue.shift()!) ?? []) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}
