import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LocalNetwork } from "@chaind/harness/local-network";
import { CHAIND_CLI } from "@chaind/harness/local-testnet";
import { REFERENCE_BINARIES, referenceBinary } from "@chaind/harness/reference-binaries";
import { ReleaseServer } from "@chaind/harness/release-server";
import { x as extractTar } from "tar";
import { type BenchAccount, benchAccount } from "./bench-accounts.js";
import { BENCH_CHAIN_ID } from "./bench-home.js";
import type { BenchOptions } from "./bench-options.js";
import { type BenchSection, type BenchSkipped, figure } from "./bench-result.js";
import { type BuiltRelease, buildFixtureRelease } from "./fixture-releases.js";
import { killLeftoverProcesses } from "./leftover-processes.js";
import { fundSendersInNetworkGenesis } from "./network-senders.js";
import { QuorumCommits } from "./quorum-commits.js";
import { sendOverRpc } from "./rpc-sends.js";
import { scratchDir } from "./scratch-dir.js";
import { SENDERS, type TxRun, warmAndTimed } from "./signed-sends.js";

const VALIDATORS = 4;
/** timeout_commit of the throughput runs: section 11's, so the ceiling is comparable to its CometBFT figure. */
const SENDS_BLOCK_TIME_MS = 100;
/** timeout_commit of the upgrade runs: section 5's. */
const UPGRADE_BLOCK_TIME_MS = 300;
/** Long enough for a proposal and four votes, each a CLI process, on two busy cores. */
const VOTING_PERIOD = "10s";

/** The repository's chaind as the executable visor installs (sections 4 and 11 run the same code). */
function chaindLauncher(dir: string): string {
  const path = join(dir, "launcher", "chaind");
  mkdirSync(join(dir, "launcher"), { recursive: true });
  writeFileSync(path, `#!/bin/sh\nexec "${process.execPath}" "${CHAIND_CLI}" "$@"\n`);
  chmodSync(path, 0o755);
  return path;
}

/** Kills what a run left in its folder (a daemon outliving its visor) and says so in `notes`. */
function killLeftovers(dir: string, notes: string[]): void {
  const left = killLeftoverProcesses(dir);
  if (left.length > 0) notes.push(`Still running after the network stopped, killed: ${left.join("; ")}.`);
}

/**
 * `validators` validators made by `chaind testnet --validators`, each under its own visor on CometBFT, the
 * senders funded in their shared genesis; the signed sends go to node 0's RPC (CometBFT gossips them to the
 * others) and are timed until committed.
 */
async function sendsRun(
  validators: number,
  sends: { warm: Uint8Array[][]; timed: Uint8Array[][] },
  senders: BenchAccount[],
  cometbft: string,
  notes: string[],
): Promise<TxRun> {
  const dir = scratchDir(`network-sends-${validators}`);
  let net: LocalNetwork | null = null;
  try {
    net = await LocalNetwork.create({
      dir: join(dir.path, "net"),
      validators,
      genesisBinary: chaindLauncher(dir.path),
      cometbft,
      chainId: BENCH_CHAIN_ID,
      blockTime: `${SENDS_BLOCK_TIME_MS}ms`,
    });
    fundSendersInNetworkGenesis(join(dir.path, "net"), validators, senders);
    await net.start();
    await net.waitForHeight(2);
    return await sendOverRpc(net.nodes[0].rpcUrl.replace(/^tcp:/, "http:"), sends);
  } finally {
    await net?.stop();
    killLeftovers(dir.path, notes);
    dir.remove();
  }
}

interface OutageRun {
  restartMs: number;
  upgradeMs: number;
  /** The restart's gap in parts: its last block -> all four stopped -> all four started -> the next block. */
  stoppingMs: number;
  startingMs: number;
  firstBlockMs: number;
}

/**
 * One network of four validators on the v1 release, each under its own visor with pre-fetch on: a plain
 * restart of all four (stop all, start all) and a governance upgrade to v2, the restart first in even runs and
 * after the upgrade in odd ones. Each outage is the longest wait between consecutive blocks committed by a
 * quorum of the validators around it.
 */
async function outageRun(
  i: number,
  v1: BuiltRelease,
  v2: BuiltRelease,
  cometbft: string,
  notes: string[],
): Promise<OutageRun> {
  const dir = scratchDir("network-upgrade");
  const commits = new QuorumCommits(VALIDATORS);
  let net: LocalNetwork | null = null;
  try {
    await extractTar({ file: v1.archive, cwd: dir.path });
    const network = await LocalNetwork.create({
      dir: join(dir.path, "net"),
      validators: VALIDATORS,
      genesisBinary: join(dir.path, "bin", "chaind"),
      cometbft,
      blockTime: `${UPGRADE_BLOCK_TIME_MS}ms`,
      votingPeriod: VOTING_PERIOD,
      visorEnv: {
        // The release binaries' own cache folder: the machine has never run v2, as on a real upgrade.
        XDG_CACHE_HOME: join(dir.path, "cache"),
        VISOR_PREFETCH: "true",
        DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM: "true",
      },
      echo: (node, line) => commits.observe(node, line),
    });
    net = network;
    await network.start();
    await network.waitForHeight(3);
    const tip = async () => Math.max(...(await Promise.all(network.nodes.map((n) => n.height()))));

    const restart = async () => {
      const last = await tip();
      await network.stop();
      const stopped = performance.now();
      // Started: every node's REST listens (chaind up, CometBFT spawned).
      await network.start();
      const started = performance.now();
      // Past the window the gap is read in.
      await network.waitForHeight(last + 5);
      return { ...commits.longestGap(last - 3, last + 5), stopped, started };
    };
    const upgrade = async () => {
      const height = await network.heightIn(30);
      for (const n of network.nodes) n.mark();
      await network.proposeUpgrade({ name: "v2", height, info: v2.planInfo });
      await Promise.all(network.nodes.map((n) => n.waitForLine(/pre-fetched and verified/, 90_000)));
      await Promise.all(
        network.nodes.map((n) =>
          n.waitForLine(new RegExp(`applying upgrade "v2" at height: ${height}`), 150_000),
        ),
      );
      await network.waitForHeight(height + 5);
      return { ...commits.longestGap(height - 3, height + 5), height };
    };

    const restartFirst = i % 2 === 0;
    const r1 = restartFirst ? await restart() : null;
    const u = await upgrade();
    const r = r1 ?? (await restart());
    notes.push(
      `Run ${i + 1}: restart ${restartFirst ? "before" : "after"} the upgrade, longest gap between blocks ${r.before} and ${r.after}; upgrade at plan height ${u.height}, longest gap between blocks ${u.before} and ${u.after}.`,
    );
    return {
      restartMs: r.ms,
      upgradeMs: u.ms,
      stoppingMs: r.stopped - r.beforeAt,
      startingMs: r.started - r.stopped,
      firstBlockMs: r.afterAt - r.started,
    };
  } catch (e) {
    const tail = net ? `; node0's last lines:\n${net.nodes[0].lines.slice(-15).join("\n")}` : "";
    throw new Error(`${(e as Error).message}${tail}`);
  } finally {
    await net?.stop();
    killLeftovers(dir.path, notes);
    dir.remove();
  }
}

/**
 * Issue 31: a network of four validators on the real CometBFT, each under its own visor. Committed signed sends
 * per second against a single validator (the ceiling), the same pre-signed sends, runs interleaved; and the
 * network's downtime through a v1 -> v2 governance upgrade against a plain restart of all four (the floor).
 */
export async function networkBench(opts: BenchOptions): Promise<BenchSection | BenchSkipped> {
  const binary = referenceBinary("cometbft");
  if ("missing" in binary) return { skipped: binary.missing };
  const notes: string[] = [];

  const single: TxRun[] = [];
  const network: TxRun[] = [];
  const perSender = Math.ceil(opts.txs / SENDERS);
  for (let i = 0; i < opts.runs; i++) {
    const senders = Array.from({ length: SENDERS }, (_, j) => benchAccount(`bench-network-${i}-${j}`));
    const sends = await warmAndTimed(senders, perSender);
    // Which goes first alternates, so a change in the machine's load between the two falls on both.
    for (const validators of i % 2 === 0 ? [1, VALIDATORS] : [VALIDATORS, 1]) {
      const r = await sendsRun(validators, sends, senders, binary.path, notes);
      (validators === 1 ? single : network).push(r);
    }
  }

  const releases = scratchDir("network-releases");
  let server: ReleaseServer | null = null;
  const outages: OutageRun[] = [];
  try {
    const served = join(releases.path, "served");
    mkdirSync(served);
    server = await ReleaseServer.start({ dir: served });
    const v1 = await buildFixtureRelease("v1", served, server.url);
    const v2 = await buildFixtureRelease("v2", served, server.url);
    for (let i = 0; i < opts.runs; i++) outages.push(await outageRun(i, v1, v2, binary.path, notes));
  } finally {
    await server?.close();
    releases.remove();
  }

  const ceiling = figure(
    "1 validator: sends committed/s",
    "tx/s",
    single.map((r) => r.committedPerSec),
  );
  const restart = figure(
    "restart of all 4 (stop all, start all): longest gap between blocks",
    "ms",
    outages.map((r) => r.restartMs),
  );
  return {
    id: "network",
    title: "A network of four validators",
    params: {
      cometbft: REFERENCE_BINARIES.cometbft.version,
      validators: VALIDATORS,
      senders: SENDERS,
      sendsPerRun: perSender * SENDERS,
      sendsTimeoutCommitMs: SENDS_BLOCK_TIME_MS,
      upgradeTimeoutCommitMs: UPGRADE_BLOCK_TIME_MS,
      runs: opts.runs,
      blocksPerRun1: single[0]?.blocks ?? 0,
      blocksPerRun4: network[0]?.blocks ?? 0,
    },
    figures: [
      ceiling,
      figure(
        "4 validators: sends committed/s",
        "tx/s",
        network.map((r) => r.committedPerSec),
        ceiling,
      ),
      restart,
      figure(
        "v1 -> v2 upgrade, 4 visors, pre-fetched: longest gap between blocks",
        "ms",
        outages.map((r) => r.upgradeMs),
        restart,
      ),
      figure(
        "  restart: last block -> all 4 stopped",
        "ms",
        outages.map((r) => r.stoppingMs),
      ),
      figure(
        "  restart: all 4 stopped -> all 4 started (REST listening)",
        "ms",
        outages.map((r) => r.startingMs),
      ),
      figure(
        "  restart: all 4 started -> next block",
        "ms",
        outages.map((r) => r.firstBlockMs),
      ),
    ],
    notes: [
      `Sends: networks made by \`chaind testnet --validators N\` (N = 1, the ceiling, and ${VALIDATORS}), each validator under its own visor on CometBFT, timeout_commit ${SENDS_BLOCK_TIME_MS} ms; the 16 senders funded in the shared genesis before the first start; the same pre-signed sends (as many again untimed first) to node 0's RPC, which gossips them; which network goes first alternates.`,
      `Downtime: ${VALIDATORS} validators on the v1 fixture release, timeout_commit ${UPGRADE_BLOCK_TIME_MS} ms, visor's defaults (a data backup before the switch) with pre-fetch on. A block counts as committed by the network once ${Math.floor((2 * VALIDATORS) / 3) + 1} of the ${VALIDATORS} validators logged CometBFT's "finalizing commit of block" for it (consensus only: the block the nodes halt in is committed before the halt, and its replay to v2 after the switch is not counted); the figure is the longest wait between two such blocks around the restart or the halt. All nodes share the machine's 2 cores: the restarts and the switches of the four happen at once on them.`,
      ...notes,
    ],
  };
}
