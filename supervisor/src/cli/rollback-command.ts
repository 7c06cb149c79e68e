import type { VisorConfig } from "../config/visor-config.js";
import { VisorError } from "../errors/visor-error.js";
import { VisorHomeLock } from "../home/visor-home-lock.js";
import { VisorLayout } from "../home/visor-layout.js";
import { UpgradeNotifier } from "../reporting/upgrade-notifier.js";
import { visorLogger } from "../reporting/visor-logger.js";
import { daemonMayRun } from "../run/orphaned-daemon.js";
import { rollbackUpgrade } from "../upgrade/upgrade-rollback.js";
import { StatusFile } from "../upgrade/visor-status.js";
import { out } from "./stdout-line.js";

/**
 * `rollback`: what visor does by itself after VISOR_ROLLBACK_AFTER_FAILURES failures, by hand. Only an upgrade
 * whose new binary has committed no block above the upgrade height (still on trial), and only while no daemon
 * runs on the home.
 */
export async function rollbackCommand(config: VisorConfig): Promise<void> {
  const layout = new VisorLayout(config);
  // Held throughout: a visor started meanwhile must not run a daemon on data being restored.
  const lock = await VisorHomeLock.take(layout, "stop it first, then run visor rollback");
  try {
    await rollBack(config, layout);
  } finally {
    await lock.release();
  }
}

async function rollBack(config: VisorConfig, layout: VisorLayout): Promise<void> {
  const status = new StatusFile(layout.statusFile);
  const pid = daemonMayRun(status.previous);
  if (pid !== null)
    throw new VisorError(
      "ROLLBACK",
      `the daemon (pid ${pid}) still runs on ${config.home}: stop visor first, then run visor rollback`,
    );
  const trial = status.current.trial;
  if (!trial) {
    const last = status.current.last_upgrade;
    throw new VisorError(
      "ROLLBACK",
      last?.result === "ok"
        ? `nothing to roll back: upgrade ${last.plan} has committed a block above height ${last.height}; restoring its backup now would drop those blocks`
        : last?.result === "rolled_back"
          ? `nothing to roll back: upgrade ${last.plan} was already rolled back`
          : "nothing to roll back: visor has not switched to a new binary that is still waiting for its first block",
    );
  }
  const logger = visorLogger(config);
  const notifier = new UpgradeNotifier(
    { command: config.notifyCommand, timeoutMs: config.notifyTimeoutMs },
    { logger },
  );
  try {
    out(
      await rollbackUpgrade(trial, "rolled back by hand (visor rollback)", {
        config,
        layout,
        status,
        notifier,
        metrics: null,
        logger,
      }),
    );
  } finally {
    await notifier.drain();
  }
}
