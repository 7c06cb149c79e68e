import { existsSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { Logger } from "@chaind/core/logger";
import { execa } from "execa";
import type { VisorConfig } from "../config/visor-config.js";
import type { UpgradePlan } from "../daemon/upgrade-info.js";
import { VisorError } from "../errors/visor-error.js";
import { type CrashPoint, crashPoint } from "../host/crash-point.js";

/**
 * `<new binary> pre-upgrade`, cosmovisor's protocol: 0 done, 1 not supported (go on), 30 failed (stop), 31
 * retry, up to DAEMON_PREUPGRADE_MAX_RETRIES times; any other status stops the upgrade.
 */
export async function runPreUpgrade(
  binary: string,
  config: VisorConfig,
  deps: { logger: Logger },
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const r = await whileRunning(
      "pre-upgrade",
      execa(binary, ["pre-upgrade", "--home", config.home], {
        reject: false,
        all: true,
        env: { DAEMON_HOME: config.home },
      }),
    );
    const code = r.exitCode ?? -1;
    if (code === 0) {
      deps.logger.info("pre-upgrade done", { binary });
      return;
    }
    if (code === 1) {
      deps.logger.info("pre-upgrade not supported by the binary; going on", { binary });
      return;
    }
    if (code === 31 && attempt < config.preUpgradeMaxRetries) {
      deps.logger.warn("pre-upgrade asked for a retry", {
        attempt: attempt + 1,
        of: config.preUpgradeMaxRetries,
      });
      continue;
    }
    const why =
      code === 31
        ? `still asking for a retry after ${config.preUpgradeMaxRetries} retries`
        : `exit status ${code}`;
    throw new VisorError(
      "PRE_UPGRADE",
      `pre-upgrade of ${binary} failed (${why}): ${(r.all ?? "").trim().split("\n").pop() ?? ""}`,
    );
  }
}

/** COSMOVISOR_CUSTOM_PREUPGRADE: `<script> <plan name> <height>` from DAEMON_HOME; any failure stops the upgrade. */
export async function runCustomPreUpgrade(
  plan: UpgradePlan,
  config: VisorConfig,
  deps: { logger: Logger },
): Promise<void> {
  if (!config.customPreUpgrade) return;
  const script = isAbsolute(config.customPreUpgrade)
    ? config.customPreUpgrade
    : join(config.home, "cosmovisor", config.customPreUpgrade);
  if (!existsSync(script))
    throw new VisorError("PRE_UPGRADE", `custom pre-upgrade script ${script} does not exist`);
  const r = await whileRunning(
    "custom-pre-upgrade",
    execa(script, [plan.name, String(plan.height)], { cwd: config.home, reject: false, all: true }),
  );
  if (r.exitCode !== 0)
    throw new VisorError(
      "PRE_UPGRADE",
      `custom pre-upgrade ${script} failed with status ${r.exitCode}: ${(r.all ?? "").trim()}`,
    );
  deps.logger.info("custom pre-upgrade done", { script });
}

/** The crash point of a step that runs a child: visor dies while the child still runs. */
function whileRunning<T>(point: CrashPoint, child: Promise<T>): Promise<T> {
  crashPoint(point);
  return child;
}
