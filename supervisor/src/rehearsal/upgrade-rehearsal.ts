import { existsSync, lstatSync, mkdirSync, readdirSync, rmSync, statfsSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "@chaind/core/logger";
import { stageUpgradeArtifact } from "../artifacts/upgrade-binary.js";
import { nodeListenAddresses } from "../config/node-listen-addresses.js";
import type { VisorConfig } from "../config/visor-config.js";
import { genesisChainId } from "../daemon/genesis-chain-id.js";
import { NodeApi } from "../daemon/node-api.js";
import { RestNodeQuery } from "../daemon/node-query-rest.js";
import type { UpgradePlan } from "../daemon/upgrade-info.js";
import { VisorError } from "../errors/visor-error.js";
import { VisorLayout } from "../home/visor-layout.js";
import { lackOfSpace } from "../host/disk-space.js";
import { ProcessLock } from "../host/process-lock.js";
import type { RehearsalReport, RehearsalStep } from "../reporting/rehearsal-report.js";
import { VisorRunner } from "../run/visor-runner.js";
import { samePlanName } from "../upgrade/upgrader.js";
import { copyLiveHome } from "./home-copy.js";
import { isolateCopyConfig } from "./isolated-copy-config.js";
import { RehearsalLog } from "./rehearsal-log.js";
import { ResourcePeaks } from "./resource-peaks.js";
import { testnetOperator } from "./testnet-operator.js";

export interface RehearsalOptions {
  /** The plan to rehearse; the one the chain schedules when absent. */
  plan?: string;
  /** Blocks the new binary must commit, the upgrade block among them, for the rehearsal to pass. */
  blocks: number;
  /** From the copy's first start to its last block: past this, the rehearsal fails (a handler that hangs). */
  timeoutMs: number;
  /** Keep the copy for a look (it is removed otherwise, whatever happens). */
  keepCopy: boolean;
}

/** Room a rehearsal wants beyond what it copies: a share of the application's database (migrations write). */
const HEADROOM_SHARE = 0.25;
const HEADROOM_MIN = 256 * 1024 * 1024;
/** CometBFT's limit on a chain id. */
const MAX_CHAIN_ID = 50;
const APPLYING = /applying upgrade "([^"]+)" at height/;

function treeBytes(dir: string): number {
  if (!existsSync(dir)) return 0;
  let n = 0;
  for (const name of readdirSync(dir)) {
    const st = lstatSync(join(dir, name));
    n += st.isDirectory() ? treeBytes(join(dir, name)) : st.isFile() ? st.size : 0;
  }
  return n;
}

/** The plan to rehearse: the chain's scheduled one, or one named whose binary add-upgrade installed. */
async function planToRehearse(
  live: VisorConfig,
  layout: VisorLayout,
  named: string | undefined,
  logger: Logger,
) {
  const api = NodeApi.forHome(live, { logger });
  let scheduled: UpgradePlan | null;
  let height: number;
  try {
    [scheduled, height] = await Promise.all([api.currentPlan(), api.height()]);
  } catch (e) {
    throw new VisorError(
      "REHEARSAL",
      `cannot ask the node for its plan and height (a rehearsal copies a running node): ${(e as Error).message}`,
    );
  } finally {
    api.close();
  }
  if (scheduled && (named === undefined || samePlanName(named, scheduled.name, live)))
    return { plan: scheduled, height };
  if (named !== undefined && existsSync(layout.binaryIn(layout.upgradeDir(named))))
    return { plan: { name: named, height: 0, info: "" }, height };
  throw new VisorError(
    "REHEARSAL",
    named === undefined
      ? "no upgrade is scheduled on the chain: name a plan whose binary visor add-upgrade installed"
      : `the chain schedules ${scheduled ? `"${scheduled.name}"` : "no upgrade"}, and ${layout.upgradeDir(named)} holds no binary for "${named}"`,
  );
}

/**
 * `visor rehearse`: the upgrade the chain schedules, run a day early on a private copy of the live home while
 * the node goes on signing. The copy (see copyLiveHome) is made a one-validator testnet by the running binary's
 * `in-place-testnet`, with the plan due at its next block; a visor of its own runs it to the halt and upgrades it
 * exactly as the real halt will (backup, the binary pre-fetched into the live home and verified, the switch,
 * pre-upgrade), then the new binary runs the handler and must commit `blocks` blocks. Every step is timed. The
 * copy is removed after, and the live home gains only the verified artifact, in prefetch/<plan>, which its own
 * halt then installs. Throws (REHEARSAL) when it cannot rehearse; a rehearsal that ran answers its report, failed
 * or not.
 */
export async function rehearseUpgrade(
  live: VisorConfig,
  opts: RehearsalOptions,
  deps: { logger: Logger },
): Promise<RehearsalReport> {
  const layout = new VisorLayout(live);
  const root = join(layout.root, "rehearsal");
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const lock = await ProcessLock.tryTake(join(root, "lock"));
  if (!lock) throw new VisorError("REHEARSAL", `another rehearsal runs on ${live.home}`);
  // Held from the start, so a stop never leaves a copy behind: the copy's visor stops its daemon, the copy is
  // removed, and the rehearsal ends without a verdict.
  const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGQUIT"];
  const interrupted: { by: NodeJS.Signals | null } = { by: null };
  const note = (sig: NodeJS.Signals) => {
    interrupted.by ??= sig;
  };
  for (const sig of signals) process.on(sig, note);
  try {
    const r = await timedToTheEnd(
      performance.now(),
      rehearseLocked(live, layout, root, opts, interrupted, deps),
    );
    if (interrupted.by)
      throw new VisorError(
        "REHEARSAL",
        `rehearsal of "${r.plan.name}" stopped by ${interrupted.by}; its copy is removed`,
      );
    return r;
  } finally {
    for (const sig of signals) process.off(sig, note);
    await lock.release();
  }
}

async function rehearseLocked(
  live: VisorConfig,
  layout: VisorLayout,
  root: string,
  opts: RehearsalOptions,
  interrupted: { by: NodeJS.Signals | null },
  deps: { logger: Logger },
): Promise<RehearsalReport> {
  const startedAt = new Date();
  const t0 = performance.now();
  const appDb = treeBytes(join(layout.dataDir, "application.db"));
  const headroom = Math.max(HEADROOM_MIN, Math.floor(appDb * HEADROOM_SHARE));
  const short = lackOfSpace(root, headroom);
  if (short) throw new VisorError("REHEARSAL", `not enough free space for a rehearsal: ${short}`);
  const { plan, height: liveHeight } = await planToRehearse(live, layout, opts.plan, deps.logger);
  if (layout.currentPlan() && samePlanName(layout.currentPlan()?.name ?? "", plan.name, live))
    throw new VisorError("REHEARSAL", `the node already runs "${plan.name}"`);
  const dest = join(root, layout.planDirName(plan.name));
  rmSync(dest, { recursive: true, force: true });

  const steps: RehearsalStep[] = [];
  const at: RunState["at"] = {};
  const log = new RehearsalLog(join(root, `${layout.planDirName(plan.name)}.log`), (line) => {
    const m = APPLYING.exec(line);
    if (m && samePlanName(m[1], plan.name, live)) at.applying ??= performance.now();
  });
  const peaks = new ResourcePeaks(dest);
  const report = (failure: RehearsalReport["failure"], extra: Partial<RehearsalReport> = {}) => {
    peaks.sample();
    return {
      plan: { name: plan.name, height: plan.height },
      result: failure ? "failed" : "ok",
      failure,
      copied_at_height: liveHeight,
      steps,
      module_versions: { before: null, after: null },
      blocks_after_upgrade: 0,
      peak_memory_bytes: peaks.memoryBytes,
      peak_disk_bytes: peaks.diskBytes,
      started_at: startedAt.toISOString(),
      total_ms: Math.round(performance.now() - t0),
      ...extra,
    } satisfies RehearsalReport;
  };
  const fail = (step: RehearsalStep["step"], reason: string) => ({ step, reason, log: log.lastLines });
  try {
    // The artifact goes where the real halt looks for it: what the rehearsal verifies, the upgrade installs.
    if (plan.info) {
      let mark = performance.now();
      const timed = (step: "download" | "verify") => {
        steps.push({ step, ms: Math.round(performance.now() - mark) });
        mark = performance.now();
      };
      try {
        const got = await stageUpgradeArtifact(plan, layout, live, {
          logger: log.logger(),
          onStaged: (s) => timed(s === "downloaded" ? "download" : "verify"),
        });
        if (got.state === "ready")
          steps.push({ step: "download", ms: null, note: "fetched and verified before, by the pre-fetch" });
      } catch (e) {
        const code = (e as VisorError).code;
        const step = code === "CHECKSUM" || code === "SIGNATURE" || steps.length > 0 ? "verify" : "download";
        return report(fail(step, (e as Error).message));
      }
    } else steps.push({ step: "download", ms: null, note: `the binary add-upgrade installed is used` });

    const mark = performance.now();
    const copy = copyLiveHome(layout, dest, plan.name, Math.max(0, statfsFree(root) - headroom));
    await isolateCopyConfig(dest);
    steps.push({
      step: "copy",
      ms: Math.round(performance.now() - mark),
      note: `${mib(copy.linkedBytes)} linked, ${mib(copy.copiedBytes)} copied`,
    });
    if (interrupted.by) return report(fail("copy", `stopped by ${interrupted.by}`));
    return await runCopy(live, dest, plan, opts, { log, peaks, steps, at, report, fail, interrupted });
  } finally {
    peaks.stop();
    await log.close();
    if (!opts.keepCopy) rmSync(dest, { recursive: true, force: true });
  }
}

/** The report with its total time counted to the end: the copy stopped and removed. */
async function timedToTheEnd(t0: number, rehearsal: Promise<RehearsalReport>): Promise<RehearsalReport> {
  const r = await rehearsal;
  return { ...r, total_ms: Math.round(performance.now() - t0) };
}

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;

function statfsFree(dir: string): number {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
}

interface RunState {
  log: RehearsalLog;
  peaks: ResourcePeaks;
  steps: RehearsalStep[];
  /** When the new binary began the plan's handler (from its log). */
  at: { applying?: number };
  report: (failure: RehearsalReport["failure"], extra?: Partial<RehearsalReport>) => RehearsalReport;
  fail: (step: RehearsalStep["step"], reason: string) => NonNullable<RehearsalReport["failure"]>;
  interrupted: { by: NodeJS.Signals | null };
}

/** When each moment of the copy's run came (performance.now()), as far as it got. */
interface Moments {
  began: number;
  /** The copy's visor: the halt seen, `current` switched, the new binary started. */
  detected?: number;
  switched?: number;
  restarted?: number;
  /** Heights the new binary committed: the upgrade block, the one after it. */
  upgradeBlock?: number;
  firstBlock?: number;
}

const RUNNER_EVENTS = { detected: "detected", switched: "switched", restarted: "restarted" } as const;

/** The copy under a visor of its own, from its conversion to `blocks` blocks of the new binary. */
async function runCopy(
  live: VisorConfig,
  home: string,
  plan: UpgradePlan,
  opts: RehearsalOptions,
  s: RunState,
): Promise<RehearsalReport> {
  const listen = nodeListenAddresses(home);
  const config: VisorConfig = {
    ...live,
    home,
    dataBackupDir: home,
    grpcAddress: listen.grpc,
    restAddress: listen.rest,
    rpcAddress: listen.rpc,
    // The operator's script may act outside the home (it runs at the real halt only); so would the copy's
    // notifications and metrics.
    customPreUpgrade: "",
    notifyCommand: "",
    metricsAddress: "",
    restartDelayMs: 0,
    restartAfterUpgrade: true,
    rollbackAfterFailures: 0,
    prefetch: false,
  };
  const rest = new RestNodeQuery(listen.rest);
  const genesis = join(home, "config", "genesis.json");
  const chainId = `rehearsal-${genesisChainId(genesis)}`.slice(0, MAX_CHAIN_ID);
  const convert = [
    "in-place-testnet",
    chainId,
    testnetOperator(genesis),
    "--trigger-testnet-upgrade",
    plan.name,
  ];
  const when: Moments = { began: performance.now() };
  let upgradeHeight = 0;
  const runner = new VisorRunner(
    config,
    new VisorLayout(config),
    [...convert, "--skip-confirmation", "--home", home],
    {
      logger: s.log.logger(),
      metrics: null,
      daemonOutput: s.log,
      restartArgs: ["start", "--home", home],
      onEvent: (e) => {
        const moment = RUNNER_EVENTS[e.event as keyof typeof RUNNER_EVENTS];
        if (moment) when[moment] ??= performance.now();
        if (e.event === "detected") upgradeHeight = e.height;
      },
    },
  );
  let exited: { code: number } | { error: Error } | null = null;
  const running = runner.run().then(
    (code) => {
      exited = { code };
    },
    (error: Error) => {
      exited = { error };
    },
  );
  let failure: RehearsalReport["failure"] = null;
  let blocks = 0;
  const versions: RehearsalReport["module_versions"] = { before: null, after: null };
  for (;;) {
    await new Promise((r) => setTimeout(r, 250));
    s.peaks.sample();
    const reached = stepReached(when, s.at);
    if (s.interrupted.by) {
      failure = s.fail(reached, `stopped by ${s.interrupted.by}`);
      break;
    }
    const short = lackOfSpace(home, 0);
    if (short) {
      failure = s.fail(reached, `stopped so the live node's disk does not fill: ${short}`);
      break;
    }
    const end = exited as { code: number } | { error: Error } | null;
    if (end) {
      failure = s.fail(
        reached,
        "error" in end
          ? end.error.message
          : `${when.restarted ? `the new binary exited with status ${end.code} before committing ${opts.blocks} blocks` : `the running binary exited with status ${end.code} before the upgrade height`}${lastDaemonError(s.log.lastLines)}`,
      );
      break;
    }
    if (performance.now() - when.began > opts.timeoutMs) {
      failure = s.fail(
        reached,
        `the new binary made no ${opts.blocks} blocks within ${Math.round(opts.timeoutMs / 1000)} s`,
      );
      break;
    }
    if (!when.restarted) continue;
    const height = await rest.height().catch(() => 0);
    if (height >= upgradeHeight) when.upgradeBlock ??= performance.now();
    if (height > upgradeHeight) when.firstBlock ??= performance.now();
    blocks = Math.max(0, height - upgradeHeight + 1);
    if (blocks >= opts.blocks) {
      // The state at the halt, as the new binary reads it back, and the state its handler left.
      versions.before = await rest.moduleVersions(upgradeHeight - 1).catch(() => null);
      versions.after = await rest.moduleVersions().catch(() => null);
      break;
    }
  }
  runner.stop("SIGTERM");
  await running;
  const span = (from: number | undefined, to: number | undefined) =>
    from !== undefined && to !== undefined ? Math.round(to - from) : null;
  s.steps.push(
    { step: "run_to_halt", ms: span(when.began, when.detected), note: "conversion, then the old binary" },
    { step: "switch", ms: span(when.detected, when.switched), note: "backup, install, switch of current" },
    { step: "pre_upgrade", ms: span(when.switched, when.restarted) },
    { step: "start_new_binary", ms: span(when.restarted, s.at.applying) },
    {
      step: "handler",
      ms: span(s.at.applying, when.upgradeBlock),
      note: "until the upgrade block is committed",
    },
    { step: "first_block", ms: span(when.upgradeBlock, when.firstBlock), note: "the next block after it" },
  );
  return s.report(failure, { module_versions: versions, blocks_after_upgrade: blocks });
}

/** The daemon's last error line (not one of the copy's visor), to say why it exited. */
function lastDaemonError(lines: string[]): string {
  const line = lines.findLast((l) => !/^(ERR|WRN|INF) \[/.test(l) && /\b(ERR|Error:|panic)/.test(l));
  return line ? `: ${line.replace(/^.*?\b(ERR|Error:|panic:?)\s*/, "")}` : "";
}

/** The step a failure happened in: the first the copy had not finished. */
function stepReached(when: Moments, at: RunState["at"]): RehearsalStep["step"] {
  if (!when.detected) return "run_to_halt";
  if (!when.switched) return "switch";
  if (!when.restarted) return "pre_upgrade";
  if (!at.applying) return "start_new_binary";
  if (!when.upgradeBlock) return "handler";
  return "first_block";
}
