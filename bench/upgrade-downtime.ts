import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { useFreeListenerPorts } from "@chaind/harness/free-listener-ports";
import { LocalTestnet } from "@chaind/harness/local-testnet";
import { ReleaseServer } from "@chaind/harness/release-server";
import { x as extractTar } from "tar";
import type { BenchOptions } from "./bench-options.js";
import { type BenchSection, figure } from "./bench-result.js";
import { ChaindNode } from "./chaind-node.js";
import { type BuiltRelease, buildFixtureRelease } from "./fixture-releases.js";
import { stopVisorAndSweep } from "./leftover-processes.js";
import { median } from "./median-ratio.js";
import { scratchDir } from "./scratch-dir.js";

const BLOCK_TIME_MS = 300;

const variantName = (prefetch: boolean) => (prefetch ? "pre-fetched" : "downloaded at the halt");

interface DowntimeRun {
  downtimeMs: number;
  /** v1's last commit -> v1 exited (making the plan height's block, halting in it, exiting). */
  haltMs: number;
  /** v1 exited -> v2 spawned: visor's own work (download unless pre-fetched, backup, switch, pre-upgrade). */
  visorMs: number;
  /** v2 spawned -> v2's first commit. */
  startMs: number;
  /** `chaind start` of the v2 binary on the same home: spawn to its first committed block. */
  floorMs: number;
}

/**
 * One governance upgrade v1 -> v2 under the real visor, the v2 archive on a loopback release server; the
 * downtime is read off the log as the lines arrive: commit of height H-1 (v1's last) to commit of H (v2's first).
 */
async function oneUpgrade(
  v1: BuiltRelease,
  v2: BuiltRelease,
  prefetch: boolean,
  notes: string[],
): Promise<DowntimeRun> {
  const dir = scratchDir("downtime");
  const commits = new Map<number, number>();
  const lines: { at: number; line: string }[] = [];
  let net: LocalTestnet | null = null;
  // The release binaries' own cache folder (code caches, native libraries): the machine has never run v2, as
  // on a real upgrade, instead of sharing what earlier runs (or other benchmarks) left in the temporary folder.
  const machineCache = { XDG_CACHE_HOME: join(dir.path, "cache") };
  try {
    await extractTar({ file: v1.archive, cwd: dir.path });
    net = await LocalTestnet.create({
      dir: join(dir.path, "net"),
      genesisBinary: join(dir.path, "bin", "chaind"),
      blockTime: `${BLOCK_TIME_MS}ms`,
      votingPeriod: "5s",
      visorEnv: {
        ...machineCache,
        VISOR_PREFETCH: String(prefetch),
        DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM: "true",
      },
      echo: (line) => {
        lines.push({ at: performance.now(), line });
        const m = line.match(/committed block .*height=(\d+)/);
        if (m && !commits.has(Number(m[1]))) commits.set(Number(m[1]), performance.now());
      },
    });
    await net.start();
    // Far enough ahead that the proposal passes well before the halt on a busy machine (the CLI calls are slow).
    const height = (await net.height()) + 60;
    await net.proposeUpgrade({ name: "v2", height, info: v2.planInfo });
    if (prefetch) await net.waitForLine(/pre-fetched and verified/, 60_000, true);
    await net.waitForLine(/UPGRADE "v2" NEEDED/, 120_000, true);
    await net.waitForHeight(height, 120_000);
    const last = commits.get(height - 1);
    const first = commits.get(height);
    if (last === undefined || first === undefined)
      throw new Error(`commit lines of heights ${height - 1} and ${height} not seen`);
    const halted = lines.findIndex((l) => /UPGRADE "v2" NEEDED/.test(l.line));
    const after = (re: RegExp) => lines.find((l, i) => i > halted && re.test(l.line))?.at ?? Number.NaN;
    const exited = after(/daemon exited/);
    const spawned = after(/starting daemon/);
    if (!notes.some((n) => n.startsWith(`Visor's steps, ${variantName(prefetch)}`)))
      notes.push(
        `Visor's steps, ${variantName(prefetch)} (ms after v1 exited): ${lines
          .filter((l) => l.at > exited && l.at <= spawned && /\bINF\b/.test(l.line))
          .map(
            (l) =>
              `+${Math.round(l.at - exited)} ${l.line.replace(/^.*?INF /, "").replace(/ module=visor.*$/, "")}`,
          )
          .join("; ")}.`,
      );
    await stopVisorAndSweep(net, dir.path, notes);
    net = null;
    // The home's ports were picked free when it was made; another process may hold one by now.
    const home = join(dir.path, "net", "node");
    await useFreeListenerPorts(home);
    // The floor: the upgraded binary started directly on the same home.
    const node = await ChaindNode.start(home, {
      binary: join(home, "cosmovisor", "upgrades", "v2", "bin", "chaind"),
      env: machineCache,
    });
    await node.stop();
    if (notes.length === 0) notes.push(`Plan height ${height}; block time ${BLOCK_TIME_MS} ms.`);
    return {
      downtimeMs: first - last,
      haltMs: exited - last,
      visorMs: spawned - exited,
      startMs: first - spawned,
      floorMs: node.firstBlockMs,
    };
  } catch (e) {
    const tail = net ? `; last lines:\n${net.lines.slice(-15).join("\n")}` : "";
    throw new Error(`${(e as Error).message}${tail}`);
  } finally {
    await stopVisorAndSweep(net, dir.path, notes);
    dir.remove();
  }
}

/** Where the downtime goes, read off the same log lines (no ratios: the parts add up to the downtime). */
function breakdown(variant: string, runs: DowntimeRun[]) {
  return [
    figure(
      `  ${variant}: v1 last commit -> v1 exited`,
      "ms",
      runs.map((r) => r.haltMs),
    ),
    figure(
      `  ${variant}: v1 exited -> v2 spawned (visor)`,
      "ms",
      runs.map((r) => r.visorMs),
    ),
    figure(
      `  ${variant}: v2 spawned -> v2 first commit`,
      "ms",
      runs.map((r) => r.startMs),
    ),
  ];
}

/**
 * Issue 8.5: upgrade downtime under visor with the binary pre-fetched and without, against the time the new
 * binary's `chaind start` takes to commit its first block on the same home.
 */
export async function upgradeDowntime(opts: BenchOptions): Promise<BenchSection> {
  const dir = scratchDir("releases");
  let server: ReleaseServer | null = null;
  try {
    const served = join(dir.path, "served");
    mkdirSync(served);
    server = await ReleaseServer.start({ dir: served });
    const v1 = await buildFixtureRelease("v1", served, server.url);
    const v2 = await buildFixtureRelease("v2", served, server.url);
    const notes: string[] = [];
    const withPrefetch: DowntimeRun[] = [];
    const withoutPrefetch: DowntimeRun[] = [];
    for (let i = 0; i < opts.runs; i++) {
      withPrefetch.push(await oneUpgrade(v1, v2, true, notes));
      withoutPrefetch.push(await oneUpgrade(v1, v2, false, notes));
    }
    const floor = figure(
      "chaind start to first block (v2, same home)",
      "ms",
      [...withPrefetch, ...withoutPrefetch].map((r) => r.floorMs),
    );
    const prefetched = median(withPrefetch.map((r) => r.downtimeMs));
    const restartWork = floor.median - BLOCK_TIME_MS;
    notes.push(
      `The floor includes one timeout_commit (a started node waits it out before its first block); the downtime includes none: the old binary proposes the block it halts in as soon as the block before commits, and the new one executes that saved block at once. Against what is left of the floor without its timeout_commit (${Math.round(restartWork)} ms: process start, store open, first block), the pre-fetched downtime is ${(prefetched / restartWork).toFixed(2)}x.`,
      "Ratios are downtime / floor: 1.0 would mean the upgrade costs no more than a plain restart.",
    );
    return {
      id: "downtime",
      title: "Upgrade downtime",
      params: { runsPerVariant: opts.runs, blockTimeMs: BLOCK_TIME_MS },
      figures: [
        floor,
        figure(
          "downtime, binary pre-fetched",
          "ms",
          withPrefetch.map((r) => r.downtimeMs),
          floor,
        ),
        figure(
          "downtime, binary downloaded at the halt",
          "ms",
          withoutPrefetch.map((r) => r.downtimeMs),
          floor,
        ),
        ...breakdown(variantName(true), withPrefetch),
        ...breakdown(variantName(false), withoutPrefetch),
      ],
      notes,
    };
  } finally {
    await server?.close();
    dir.remove();
  }
}
