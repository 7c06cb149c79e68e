import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Plan } from "@chaind/proto/sdk/upgrade/v1beta1/upgrade_pb";

export const UPGRADE_INFO_FILE = "upgrade-info.json";

/** The plan as the halting binary hands it to a supervisor: cosmovisor's upgrade-info.json shape. */
export function upgradeInfoJson(plan: Plan, height: bigint): string {
  return JSON.stringify({
    name: plan.name,
    time: "0001-01-01T00:00:00Z",
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
  const tmp = `${path}.tmp-${process.pid}`;
  const fd = openSync(tmp, "w", 0o600);
  try {
    writeSync(fd, upgradeInfoJson(plan, height));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  return path;
}
