import { downloadProgress } from "../artifacts/download-progress.js";
import { stageUpgradeArtifact } from "../artifacts/upgrade-binary.js";
import type { VisorConfig } from "../config/visor-config.js";
import { NodeApi } from "../daemon/node-api.js";
import { VisorError } from "../errors/visor-error.js";
import { VisorLayout } from "../home/visor-layout.js";
import { visorLogger } from "../reporting/visor-logger.js";
import { checkReadiness } from "../upgrade/upgrade-readiness.js";
import { out } from "./stdout-line.js";

/**
 * `prepare-upgrade`: fetches the artifact of the plan the node's API names now. Like a pre-fetch, it is staged in
 * prefetch/<plan> and installed only at the halt, if upgrade-info.json names the same artifact (cosmovisor
 * installs into upgrades/<plan>): a plan learned over the network never decides which binary runs.
 */
export async function prepareUpgradeCommand(config: VisorConfig): Promise<void> {
  const logger = visorLogger(config);
  const api = NodeApi.forHome(config, { logger });
  const plan = await api.currentPlan().finally(() => api.close());
  if (!plan) {
    out("No active upgrade plan found");
    return;
  }
  const layout = new VisorLayout(config);
  const got = await stageUpgradeArtifact(plan, layout, config, {
    logger,
    onProgress: downloadProgress(process.stderr, { logger, quiet: config.disableLogs }),
  });
  const at = `upgrade ${plan.name} at height ${plan.height}`;
  out(
    got.path === layout.binaryIn(layout.upgradeDir(plan.name))
      ? `${at}: binary ready at ${got.path}`
      : `${at}: artifact verified and staged at ${got.path}; installed at the halt if upgrade-info.json names it`,
  );
  // The rest of what the halt needs (the data backup's room, above all): found out now, not at the halt.
  const { problems } = await checkReadiness(plan, { config, layout, logger });
  for (const p of problems) logger.error(`${at} will fail at the halt: ${p}`);
  if (problems.length)
    throw new VisorError(
      "BINARY_MISSING",
      `${at} is not ready: ${problems.length === 1 ? problems[0] : `${problems.length} problems (above)`}`,
    );
}
