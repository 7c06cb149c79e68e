import { existsSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { writeFileAtomic } from "@chaind/core/atomic-file";
import type { Logger } from "@chaind/core/logger";
import { fileDigest } from "../artifacts/artifact-source.js";
import type { VisorConfig } from "../config/visor-config.js";
import { VisorError } from "../errors/visor-error.js";
import type { VisorLayout } from "../home/visor-layout.js";
import type { UpgradeNotifier } from "../reporting/upgrade-notifier.js";
import type { VisorMetrics } from "../reporting/visor-metrics.js";
import { restoreDataBackup } from "./data-backup.js";
import type { UpgradeTrial } from "./upgrade-trial.js";
import type { StatusFile } from "./visor-status.js";

/** In an upgrade folder whose binary was rolled back: that binary is not started again for the plan. */
const ROLLED_BACK_MARKER = ".visor-rolled-back.json";

interface RolledBackRecord {
  plan: string;
  height: number;
  reason: string;
  binary_sha256: string;
  at: string;
}

export interface RollbackContext {
  config: VisorConfig;
  layout: VisorLayout;
  status: StatusFile;
  notifier: UpgradeNotifier;
  metrics: VisorMetrics | null;
  logger: Logger;
}

/** A rollback cut short (visor killed between its steps) left its clone of the backup: finish it first. */
export function rollbackUnderWay(layout: VisorLayout): boolean {
  return existsSync(`${layout.dataDir}.rollback`);
}

/**
 * Undoes an upgrade whose new binary never committed a block: restores the data backup made for it, points
 * `current` back at the folder it pointed at before, marks the upgrade folder so that binary is not started
 * again for the plan, and records it in the status file. Safe to repeat after a crash. Answers a one-line
 * summary. The old binary is not started: it would only halt at the upgrade height again.
 */
export async function rollbackUpgrade(
  trial: UpgradeTrial,
  reason: string,
  ctx: RollbackContext,
): Promise<string> {
  const { layout, status, logger } = ctx;
  const plan = { name: trial.plan, height: trial.height };
  if (!trial.backup)
    throw new VisorError(
      "ROLLBACK",
      `cannot roll back upgrade ${trial.plan}: no data backup was made before it (UNSAFE_SKIP_BACKUP=true); the data may already be migrated, so the old binary must not run on it`,
    );
  if (!existsSync(trial.backup))
    throw new VisorError(
      "ROLLBACK",
      `cannot roll back upgrade ${trial.plan}: its data backup ${trial.backup} no longer exists`,
    );
  const previous = resolve(layout.root, trial.previous);
  if (!existsSync(layout.binaryIn(previous)))
    throw new VisorError(
      "ROLLBACK",
      `cannot roll back upgrade ${trial.plan}: the previous binary ${layout.binaryIn(previous)} no longer exists`,
    );
  const upgradeDir = layout.upgradeDir(trial.plan);
  const bin = layout.binaryIn(upgradeDir);
  if (existsSync(bin)) {
    const record: RolledBackRecord = {
      plan: trial.plan,
      height: trial.height,
      reason,
      binary_sha256: await fileDigest(bin),
      at: new Date().toISOString(),
    };
    writeFileAtomic(join(upgradeDir, ROLLED_BACK_MARKER), `${JSON.stringify(record, null, 2)}\n`);
  }
  const { failedData } = restoreDataBackup(trial.backup, layout.dataDir, {}, { logger });
  layout.switchTo(previous);
  const at = new Date().toISOString();
  status.update({
    trial: null,
    pending_plan: null,
    current_upgrade: layout.currentPlan()?.name ?? null,
    last_upgrade: { plan: trial.plan, height: trial.height, result: "rolled_back", error: reason, at, ms: 0 },
    last_rollback: {
      plan: trial.plan,
      height: trial.height,
      reason,
      backup: trial.backup,
      failed_data: failedData,
      current: relative(layout.root, previous),
      at,
    },
  });
  ctx.metrics?.upgrades.inc({ result: "rolled_back" });
  const summary = `upgrade ${trial.plan} rolled back: ${reason}; data restored from ${trial.backup}, current -> ${relative(layout.root, previous)}`;
  ctx.notifier.notify("rolled_back", plan, {
    reason,
    backup: trial.backup,
    failed_data: failedData,
    current: relative(layout.root, previous),
  });
  return summary;
}

/**
 * Why `plan` must not be applied again: its upgrade folder holds the very binary that was rolled back. A new
 * binary there (`visor add-upgrade <plan> <binary> --force`), or the marker removed, lets it run again.
 */
export async function rolledBackReason(layout: VisorLayout, plan: { name: string }): Promise<string | null> {
  let dir: string;
  try {
    dir = layout.upgradeDir(plan.name);
  } catch {
    // A name no folder can hold was never applied; the upgrade itself reports it (and records it).
    return null;
  }
  const marker = join(dir, ROLLED_BACK_MARKER);
  const bin = layout.binaryIn(dir);
  if (!existsSync(marker) || !existsSync(bin)) return null;
  let record: RolledBackRecord;
  try {
    record = JSON.parse(readFileSync(marker, "utf8")) as RolledBackRecord;
  } catch (e) {
    // Which binary was rolled back cannot be told: the one there may be it, so it is not run.
    return `upgrade ${plan.name} was rolled back, but its marker ${marker} cannot be read (${(e as Error).message}); not starting its binary: install a fixed binary with "visor add-upgrade ${plan.name} <binary> --force" and delete ${marker}, then run visor again`;
  }
  if (record.binary_sha256 !== (await fileDigest(bin))) return null;
  return `upgrade ${plan.name} was rolled back (${record.reason}); not starting that binary again, nor the old one, which would halt at height ${record.height} again: install a fixed binary with "visor add-upgrade ${plan.name} <binary> --force" (or, to try the same one again, delete ${marker}), then run visor again`;
}
