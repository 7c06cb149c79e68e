import { existsSync, mkdirSync, rmSync, statfsSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "@chaind/core/logger";
import { stageUpgradeArtifact } from "../artifacts/upgrade-binary.js";
import type { VisorConfig } from "../config/visor-config.js";
import { NodeApi } from "../daemon/node-api.js";
import type { UpgradePlan } from "../daemon/upgrade-info.js";
import { samePlanName } from "../daemon/upgrade-info.js";
import { VisorError } from "../errors/visor-error.js";
import { VisorLayout } from "../home/visor-layout.js";
import { folderBytes, lackOfSpace } from "../host/disk-space.js";
import { ProcessLock } from "../host/process-lock.js";
import type { RehearsalReport, RehearsalStep } from "../reporting/rehearsal-report.js";
import { type RunState, runCopy } from "./copy-run.js";
import { copyLiveHome } from "./home-copy.js";
import { isolateCopyConfig } from "./isolated-copy-config.js";
import { RehearsalLog } from "./rehearsal-log.js";
import { ResourcePeaks } from "./resource-peaks.js";

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
const APPLYING = /applying upgrade "([^"]+)" at height/;

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
    const t0 = performance.now();
    // What the upgrade does wrong is in the report; anything thrown kept the rehearsal from running.
    const r = await rehearseLocked(live, layout, root, opts, interrupted, deps).catch((e: Error) => {
      throw e instanceof VisorError && e.code === "REHEARSAL"
        ? e
        : new VisorError("REHEARSAL", `cannot rehearse: ${e.message}`);
    });
    r.total_ms = Math.round(performance.now() - t0);
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
  const appDb = folderBytes(join(layout.dataDir, "application.db"));
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
      // Counted by rehearseUpgrade, once the copy is gone.
      total_ms: 0,
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
          steps.push({
            step: "download",
            ms: null,
            note: "fetched and verified before (a pre-fetch or an earlier rehearsal)",
          });
      } catch (e) {
        const code = (e as VisorError).code;
        const step = code === "CHECKSUM" || code === "SIGNATURE" || steps.length > 0 ? "verify" : "download";
        return report(fail(step, (e as Error).message));
      }
    } else steps.push({ step: "download", ms: null, note: "the binary add-upgrade installed is used" });

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

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;

function statfsFree(dir: string): number {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
}
