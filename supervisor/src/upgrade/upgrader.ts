import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { writeFileAtomic } from "@chaind/core/atomic-file";
import type { Logger } from "@chaind/core/logger";
import { readSource } from "../artifacts/artifact-source.js";
import { downloadProgress } from "../artifacts/download-progress.js";
import { ensureUpgradeBinary } from "../artifacts/upgrade-binary.js";
import type { VisorConfig } from "../config/visor-config.js";
import type { UpgradePlan } from "../daemon/upgrade-info.js";
import type { VisorLayout } from "../home/visor-layout.js";
import { crashPoint } from "../host/crash-point.js";
import type { UpgradeNotifier } from "../reporting/upgrade-notifier.js";
import type { VisorMetrics } from "../reporting/visor-metrics.js";
import { backupData } from "./data-backup.js";
import { runCustomPreUpgrade, runPreUpgrade } from "./pre-upgrade.js";
import type { StatusFile } from "./visor-status.js";

/** Set in an upgrade folder until its `pre-upgrade` has succeeded, so one cut short runs again. */
const PRE_UPGRADE_PENDING = ".pre-upgrade-pending";

/**
 * Runs `<current binary> pre-upgrade` if `current` was switched but its pre-upgrade never finished (visor was
 * killed while it ran). Cosmovisor would start the new binary without it; visor runs it first.
 */
export async function finishPreUpgrade(
  layout: VisorLayout,
  config: VisorConfig,
  deps: { logger: Logger; notifier: UpgradeNotifier },
): Promise<void> {
  const pending = join(layout.currentDir(), PRE_UPGRADE_PENDING);
  if (!existsSync(pending)) return;
  await runPreUpgrade(layout.currentBinary(), config, deps);
  rmSync(pending, { force: true });
  const plan = layout.currentPlan();
  if (plan) deps.notifier.notify("pre_upgrade_done", plan, { binary: layout.currentBinary() });
}

/**
 * One upgrade, in cosmovisor's order: restart delay, data backup, custom pre-upgrade, the binary (present,
 * pre-fetched or downloaded and verified), the marker, the atomic switch of `current`, then the new binary's
 * pre-upgrade. Each step is safe to repeat, so a visor killed anywhere finishes the upgrade on restart.
 */
export async function applyUpgrade(
  plan: UpgradePlan,
  ctx: {
    config: VisorConfig;
    layout: VisorLayout;
    status: StatusFile;
    metrics: VisorMetrics | null;
    notifier: UpgradeNotifier;
    logger: Logger;
  },
): Promise<void> {
  const { config, layout, status, logger, notifier } = ctx;
  const started = performance.now();
  logger.info("upgrade detected", { plan: plan.name, height: plan.height });
  notifier.notify("detected", plan, { info: plan.info });
  status.update({ pending_plan: plan });
  try {
    crashPoint("detected");
    if (config.restartDelayMs > 0) {
      logger.info("waiting before the upgrade (DAEMON_RESTART_DELAY)", { ms: config.restartDelayMs });
      await new Promise((r) => setTimeout(r, config.restartDelayMs));
    }
    const backup = config.unsafeSkipBackup
      ? null
      : backupData(layout.dataDir, config.dataBackupDir, { keep: config.backupKeep }, { logger }).dir;
    await runCustomPreUpgrade(plan, config, { logger });
    const dir = layout.upgradeDir(plan.name);
    const fetchedBefore = readSource(dir)?.fetched_at;
    const bin = await ensureUpgradeBinary(plan, layout, config, {
      logger,
      onProgress: downloadProgress(process.stderr, {
        logger,
        quiet: config.disableLogs,
        onBytes: (got) => ctx.metrics?.downloadedBytes.set(got),
      }),
    });
    const source = readSource(dir);
    // ensureUpgradeBinary returns only a binary it verified, or one the operator installed (no new record).
    if (source && source.fetched_at !== fetchedBefore) {
      notifier.notify("downloaded", plan, { url: source.artifact.shown, bytes_sha256: source.sha256 });
      notifier.notify("verified", plan, {
        checksum: source.artifact.checksum,
        binary_sha256: source.binary_sha256 ?? null,
        signed: config.trustedKeys.length > 0,
      });
    }
    // 0600, where cosmovisor leaves it 0644: Plan.info may carry credentials, and upgrades/ is open to all.
    writeFileAtomic(join(dir, "upgrade-info.json"), JSON.stringify(plan), { mode: 0o600 });
    writeFileSync(join(dir, PRE_UPGRADE_PENDING), "");
    crashPoint("marker");
    const previous = relative(layout.root, layout.currentDir());
    // Before the switch: from then on, the new binary's failures before its first block count towards a rollback.
    status.update({
      trial: layout.pointsAtCurrent(dir)
        ? null
        : {
            plan: plan.name,
            height: plan.height,
            previous,
            backup,
            failures: 0,
            last_exit: null,
            started_at: new Date().toISOString(),
          },
    });
    layout.switchTo(dir);
    logger.info("switched current binary", { plan: plan.name, binary: bin });
    notifier.notify("switched", plan, { binary: bin, previous, backup });
    await finishPreUpgrade(layout, config, { logger, notifier });
    const ms = Math.round(performance.now() - started);
    status.update({
      pending_plan: null,
      next_upgrade: null,
      current_upgrade: plan.name,
      last_upgrade: { plan: plan.name, height: plan.height, result: "ok", at: new Date().toISOString(), ms },
    });
    ctx.metrics?.upgrades.inc({ result: "ok" });
    ctx.metrics?.upgradeSeconds.set(ms / 1000);
    logger.info("upgrade complete", { plan: plan.name, ms });
  } catch (e) {
    const ms = Math.round(performance.now() - started);
    status.update({
      last_upgrade: {
        plan: plan.name,
        height: plan.height,
        result: "failed",
        error: (e as Error).message,
        at: new Date().toISOString(),
        ms,
      },
    });
    ctx.metrics?.upgrades.inc({ result: "failed" });
    notifier.notify("failed", plan, { step: "upgrade", error: (e as Error).message });
    throw e;
  }
}
