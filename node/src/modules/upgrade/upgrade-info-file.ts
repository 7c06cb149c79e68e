import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { writeFileAtomic } from "@chaind/core/atomic-file";
import type { Plan } from "@chaind/proto/sdk/upgrade/v1beta1/upgrade_pb";
import { ZERO_TIME_JSON } from "../../app/zero-timestamps.js";

export const UPGRADE_INFO_FILE = "upgrade-info.json";

/** The plan as the halting binary hands it to a supervisor: cosmovisor's upgrade-info.json shape. */
export function upgradeInfoJson(plan: Plan, height: bigint): string {
  return JSON.stringify({
    name: plan.name,
    time: ZERO_TIME_JSON,
    height: Number(height),
    info: plan.info,
  });
}

/**
 * Writes `<data>/upgrade-info.json` (mode 0600) through a temporary file, fsync and rename, so a watcher never
 * reads half of it.
 */
export function writeUpgradeInfo(dataDir: string, plan: Plan, height: bigint): string {
  const path = join(dataDir, UPGRADE_INFO_FILE);
  mkdirSync(dirname(path), { recursive: true });
  writeFileAtomic(path, upgradeInfoJson(plan, height), { mode: 0o600, durable: true });
  return path;
}
