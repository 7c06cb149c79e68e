import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { parse, stringify } from "smol-toml";
import { freePortRange, useCometbftEngine } from "./free-listener-ports.js";
import { CHAIND_CLI, LocalTestnet, type ProposalOptions, type VisorExit } from "./local-testnet.js";

export interface LocalNetworkOptions {
  /** Folder of the network: homes are `<dir>/node<i>`. */
  dir: string;
  /** How many validators. */
  validators: number;
  /** Self-delegation of each validator (base units), one for all or one per validator. */
  stakes?: bigint[];
  /** The executable each visor installs as the genesis binary. */
  genesisBinary: string;
  /** The real `cometbft` every node runs. */
  cometbft: string;
  chainId?: string;
  /** Block time (CometBFT's timeout_commit) and governance periods, as Go durations. */
  blockTime?: string;
  votingPeriod?: string;
  /** Extra environment for every node's supervisor (DAEMON_* and VISOR_* settings). */
  visorEnv?: Record<string, string>;
  /** Nodes (by name, e.g. "node3") supervised by a stock cosmovisor binary instead of visor. */
  cosmovisor?: Record<string, string>;
  /** Every line of every node, with its name (a demo prints them). */
  echo?: (node: string, line: string) => void;
  /** app.toml `state-sync` of every validator (default: no snapshots), to serve nodes that state-sync. */
  snapshots?: { interval: number; keepRecent?: number };
}

/** What a node that state-syncs trusts, as config.toml `[statesync]` takes it. */
export interface StateSyncTrust {
  /** Two or more RPC servers its light client asks (a primary and witnesses). */
  rpcServers: LocalTestnet[];
  trustHeight: number;
  /** The block hash at trustHeight, hex. */
  trustHash: string;
}

export interface FullNodeOptions {
  /** The validators it dials (default: all), as persistent peers. */
  peers?: LocalTestnet[];
  /** Restore from the peers' snapshots (CometBFT state sync) instead of replaying every block. */
  stateSync?: StateSyncTrust;
}

interface NetworkDescription {
  chain_id: string;
  nodes: { name: string; home: string; node_id: string; listen: { p2p: string; rpc: string; api: string } }[];
  keys: { name: string; address: string; mnemonic: string }[];
}

/** What each node of the network listens on: six ports from here, the next node six ports on. */
const PORTS_PER_NODE = 6;

/** How many of a downed node's last lines a report shows. */
const LINES_OF_A_DOWNED_NODE = 40;

/**
 * A network of validators on CometBFT, each under its own visor (or stock cosmovisor), on loopback, for
 * integration tests of upgrades across many nodes and for demos: `chaind testnet --validators N` makes the
 * homes, each node is a LocalTestnet (start, stop, logs, CLI, REST), and the network adds what only a network
 * has: votes from every validator, full nodes that join later, and comparing blocks across nodes.
 *
 *     const net = await LocalNetwork.create({ dir, validators: 4, genesisBinary, cometbft });
 *     await net.start();
 *     await net.proposeUpgrade({ name: "v2", height: 40, info });
 *     await net.waitForHeight(45);
 *     expect(new Set(await net.blockHashes(41)).size).toBe(1);
 *     await net.stop();
 */
export class LocalNetwork {
  /** Validators first (node0 ... node<N-1>), then full nodes in the order they were added. */
  readonly nodes: LocalTestnet[] = [];
  readonly names: string[] = [];

  private constructor(
    readonly opts: LocalNetworkOptions,
    readonly chainId: string,
  ) {}

  static async create(opts: LocalNetworkOptions): Promise<LocalNetwork> {
    const chainId = opts.chainId ?? "localnet-1";
    const net = new LocalNetwork(opts, chainId);
    mkdirSync(opts.dir, { recursive: true });
    if (!existsSync(join(opts.dir, "node0", "config", "genesis.json"))) {
      const r = await execa(
        "node",
        [
          CHAIND_CLI,
          "testnet",
          "--validators",
          String(opts.validators),
          "--output-dir",
          opts.dir,
          "--chain-id",
          chainId,
          "--starting-port",
          String(await freePortRange(opts.validators * PORTS_PER_NODE)),
          "--block-time",
          opts.blockTime ?? "300ms",
          "--voting-period",
          opts.votingPeriod ?? "6s",
          "--deposit-period",
          opts.votingPeriod ?? "6s",
          "--min-deposit",
          "1000stake",
          ...(opts.stakes ? ["--stake", opts.stakes.join(",")] : []),
        ],
        { reject: false },
      );
      if (r.exitCode !== 0) throw new Error(`chaind testnet --validators failed: ${r.stderr}`);
      writeFileSync(join(opts.dir, "network.json"), r.stdout);
    }
    for (let i = 0; i < opts.validators; i++) {
      const home = join(opts.dir, `node${i}`);
      const { snapshots } = opts;
      if (snapshots)
        editToml(join(home, "config", "app.toml"), (doc) => {
          doc["state-sync"] = {
            ...(doc["state-sync"] as Record<string, unknown>),
            "snapshot-interval": snapshots.interval,
            ...(snapshots.keepRecent !== undefined ? { "snapshot-keep-recent": snapshots.keepRecent } : {}),
          };
        });
      await net.attach(`node${i}`);
    }
    return net;
  }

  private async attach(name: string): Promise<LocalTestnet> {
    const node = await LocalTestnet.create({
      dir: this.opts.dir,
      home: join(this.opts.dir, name),
      chainId: this.chainId,
      genesisBinary: this.opts.genesisBinary,
      cometbft: this.opts.cometbft,
      cosmovisor: this.opts.cosmovisor?.[name],
      visorEnv: this.opts.visorEnv,
      echo: this.opts.echo ? (line) => this.opts.echo!(name, line) : undefined,
      context: () => this.report(),
      // Said when it happens, whatever the test does next, once the output it was writing has come in.
      onUnexpectedExit: (exit) => {
        setTimeout(() => console.error(`LocalNetwork: ${this.downed(name, exit)}`), 1000).unref();
      },
    });
    this.nodes.push(node);
    this.names.push(name);
    return node;
  }

  node(name: string): LocalTestnet {
    const i = this.names.indexOf(name);
    if (i < 0) throw new Error(`no node ${name} in this network`);
    return this.nodes[i];
  }

  get validators(): LocalTestnet[] {
    return this.nodes.slice(0, this.opts.validators);
  }

  /** Starts the nodes (default: all) together: validators need each other to make a block. */
  async start(nodes: LocalTestnet[] = this.nodes): Promise<void> {
    await Promise.all(nodes.map((n) => n.start()));
  }

  async stop(nodes: LocalTestnet[] = this.nodes): Promise<void> {
    await Promise.all(nodes.map((n) => n.stop()));
  }

  /**
   * Adds a full node as an operator would: `chaind init`, the network's genesis, the validators as persistent
   * peers, CometBFT as the engine, and with `stateSync` config.toml's `[statesync]`; under its own supervisor
   * with the genesis binary. Not started.
   */
  async addFullNode(name = `node${this.nodes.length}`, opts: FullNodeOptions = {}): Promise<LocalTestnet> {
    const home = join(this.opts.dir, name);
    const r = await execa("node", [CHAIND_CLI, "init", name, "--chain-id", this.chainId, "--home", home], {
      reject: false,
    });
    if (r.exitCode !== 0) throw new Error(`chaind init ${name} failed: ${r.stderr}`);
    copyFileSync(
      join(this.opts.dir, "node0", "config", "genesis.json"),
      join(home, "config", "genesis.json"),
    );
    await useCometbftEngine(home, this.opts.blockTime ?? "300ms");
    this.setPeers(home, opts.peers ?? this.validators);
    const trust = opts.stateSync;
    if (trust)
      editToml(join(home, "config", "config.toml"), (doc) => {
        doc.statesync = {
          ...(doc.statesync as Record<string, unknown>),
          enable: true,
          rpc_servers: trust.rpcServers.map((n) => n.rpcHttpUrl).join(","),
          trust_height: trust.trustHeight,
          trust_hash: trust.trustHash,
          // CometBFT's least: it waits this long for snapshots before choosing one.
          discovery_time: "5s",
        };
      });
    editToml(join(home, "config", "app.toml"), (doc) => {
      (doc.api as Record<string, unknown>).enable = true;
    });
    return this.attach(name);
  }

  /**
   * Sets the validators a node (a home, or a node of this network) dials, as `chaind testnet` described them;
   * only those: peer exchange is off, so the node learns no others. Takes effect at its next start.
   */
  setPeers(node: string | LocalTestnet, peers: LocalTestnet[]): void {
    const home = typeof node === "string" ? node : node.home;
    const byName = new Map(this.description.nodes.map((n) => [n.name, n]));
    editToml(join(home, "config", "config.toml"), (doc) => {
      doc.p2p = {
        ...(doc.p2p as Record<string, unknown>),
        persistent_peers: peers
          .map((p) => {
            const n = byName.get(this.names[this.nodes.indexOf(p)]);
            if (!n) throw new Error(`${p.home} is not a validator of this network`);
            return `${n.node_id}@${n.listen.p2p.replace("tcp://", "")}`;
          })
          .join(","),
        pex: false,
        addr_book_strict: false,
        allow_duplicate_ip: true,
      };
    });
  }

  /** What a node that state-syncs may trust: a block `back` blocks below `node`'s tip, by its hash. */
  async trustPoint(node: LocalTestnet, back = 10): Promise<{ trustHeight: number; trustHash: string }> {
    const trustHeight = Math.max(1, (await node.height()) - back);
    return { trustHeight, trustHash: (await this.header(node, trustHeight)).hash };
  }

  /** What `chaind testnet` printed: each validator's home, node id, listeners and keys. */
  get description(): NetworkDescription {
    return JSON.parse(readFileSync(join(this.opts.dir, "network.json"), "utf8")) as NetworkDescription;
  }

  /** Waits until every node given (default: all) has reached the height. */
  async waitForHeight(
    height: number,
    nodes: LocalTestnet[] = this.nodes,
    timeoutMs = 120_000,
  ): Promise<void> {
    await Promise.all(nodes.map((n) => n.waitForHeight(height, timeoutMs)));
  }

  /**
   * A software-upgrade proposal submitted through node0, voted YES by every validator given (default: all)
   * through its own node; resolves once it has passed.
   */
  async proposeUpgrade(p: ProposalOptions, voters: LocalTestnet[] = this.validators): Promise<string> {
    const id = await this.nodes[0].submitUpgrade(p);
    await Promise.all(voters.map((v) => v.vote(id)));
    await this.nodes[0].waitForProposal(id);
    return id;
  }

  /**
   * A height the chain reaches about `seconds` from now, from the median interval of its last blocks (a restart
   * among them does not count): a plan height that leaves time for the votes on a loaded machine, without
   * waiting long on an idle one.
   */
  async heightIn(seconds: number): Promise<number> {
    const node = this.validators[0];
    // Block 1 carries the genesis time, however long ago: intervals are read from block 2 on.
    await node.waitForHeight(8);
    const tip = await node.height();
    const from = Math.max(2, tip - 10);
    const url = `${node.rpcHttpUrl}/blockchain?minHeight=${from}&maxHeight=${tip}`;
    type Metas = { result: { block_metas: { header: { time: string } }[] } };
    const metas = ((await (await fetch(url, { signal: AbortSignal.timeout(10_000) })).json()) as Metas).result
      .block_metas;
    const times = metas.map((m) => Date.parse(m.header.time)).sort((a, b) => a - b);
    const gaps = times
      .slice(1)
      .map((t, i) => t - times[i])
      .sort((a, b) => a - b);
    const perBlock = gaps[Math.floor(gaps.length / 2)] / 1000;
    return tip + Math.max(10, Math.ceil(seconds / Math.max(perBlock, 0.05)));
  }

  /** Each node's block hash at a height (the hash covers the app hash of the block before). */
  async blockHashes(height: number, nodes: LocalTestnet[] = this.nodes): Promise<string[]> {
    return Promise.all(nodes.map(async (n) => (await this.header(n, height)).hash));
  }

  /** Each node's app hash after executing block `height` (the header of the next block holds it). */
  async appHashes(height: number, nodes: LocalTestnet[] = this.nodes): Promise<string[]> {
    return Promise.all(nodes.map(async (n) => (await this.header(n, height + 1)).appHash));
  }

  /**
   * Each node's state, for a failure message: running (and when it last printed), stopped by the caller, or down
   * (its supervisor ended by itself: how, when, and the node's last lines).
   */
  report(): string {
    const now = Date.now();
    const ago = (d: Date) => `${((now - d.getTime()) / 1000).toFixed(1)} s ago`;
    const out = [`the network at ${new Date(now).toISOString()}:`];
    this.nodes.forEach((node, i) => {
      const name = this.names[i];
      const exit = node.exit;
      if (node.running) {
        const last = node.lastOutputAt;
        const line = node.lines.at(-1)?.slice(0, 200) ?? "";
        out.push(`  ${name}: running, last output ${last ? `${ago(last)}: ${line}` : "none"}`);
      } else if (!exit) out.push(`  ${name}: not started`);
      else if (!exit.unexpected) out.push(`  ${name}: stopped by the caller ${ago(exit.at)}`);
      else out.push(`  ${this.downed(name, exit)}`);
    });
    return out.join("\n");
  }

  /** A node whose supervisor ended by itself: how, when, and its last lines. */
  private downed(name: string, exit: VisorExit): string {
    const how = exit.signal ? `killed by ${exit.signal}` : `exited with status ${exit.code}`;
    const lines = this.node(name).lines.slice(-LINES_OF_A_DOWNED_NODE);
    return [
      `${name}: DOWN: its supervisor ${how} at ${exit.at.toISOString()} without being asked to stop; its last lines:`,
      ...lines.map((l) => `    | ${l}`),
    ].join("\n");
  }

  private async header(node: LocalTestnet, height: number): Promise<{ hash: string; appHash: string }> {
    const url = `${node.rpcHttpUrl}/block?height=${height}`;
    const name = this.names[this.nodes.indexOf(node)];
    let body: { result?: { block_id: { hash: string }; block: { header: { app_hash: string } } } };
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
      body = (await res.json()) as typeof body;
    } catch (e) {
      const cause = (e as Error & { cause?: Error }).cause?.message ?? (e as Error).message;
      throw new Error(`${name}'s RPC did not answer ${url}: ${cause}\n${this.report()}`, { cause: e });
    }
    if (!body.result) throw new Error(`no block ${height} at ${name}'s ${url}: ${JSON.stringify(body)}`);
    return { hash: body.result.block_id.hash, appHash: body.result.block.header.app_hash };
  }
}

function readToml(path: string): Record<string, unknown> {
  return parse(readFileSync(path, "utf8")) as Record<string, unknown>;
}

function editToml(path: string, apply: (doc: Record<string, unknown>) => void): void {
  const doc = readToml(path);
  apply(doc);
  writeFileSync(path, stringify(doc));
}
