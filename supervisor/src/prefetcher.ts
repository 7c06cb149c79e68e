import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../../node/src/logging/logger.js";
import type { NodeApi } from "./node-api.js";
import { ensureUpgradeBinary, PREFETCH_MARKER } from "./upgrade-binary.js";
import type { VisorConfig } from "./visor-config.js";
import type { VisorLayout } from "./visor-layout.js";
import type { VisorMetrics } from "./visor-metrics.js";
import type { StatusFile } from "./visor-status.js";

/**
 * While the daemon runs, fetches and verifies the binary of the scheduled plan, so the halt does not wait for
 * a download. A plan that is cancelled or replaced leaves no pre-fetched folder behind. Failures are logged and
 * retried later: pre-fetching can never make an upgrade fail.
 */
export class Prefetcher {
  private busy = false;
  private failedFor = "";

  constructor(
    private readonly ctx: {
      config: VisorConfig;
      layout: VisorLayout;
      api: NodeApi;
      status: StatusFile;
      metrics: VisorMetrics | null;
      logger: Logger;
    },
  ) {}

  async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    const { config, layout, api, status, logger } = this.ctx;
    try {
      const plan = await api.currentPlan().catch(() => undefined);
      if (plan === undefined) return;
      this.removeStale(plan?.name);
      if (!plan?.info || !config.allowDownloadBinaries) return;
      if (existsSync(layout.binaryIn(layout.upgradeDir(plan.name)))) {
        if (status.current.prefetch?.plan !== plan.name)
          status.update({ prefetch: { plan: plan.name, state: "ready" } });
        return;
      }
      const key = `${plan.name}|${plan.info}`;
      if (this.failedFor === key) return;
      status.update({ prefetch: { plan: plan.name, state: "downloading" } });
      logger.info("pre-fetching the binary of the scheduled upgrade", {
        plan: plan.name,
        height: plan.height,
      });
      try {
        await ensureUpgradeBinary(plan, layout, config, { logger }, { prefetch: true });
        status.update({ prefetch: { plan: plan.name, state: "ready" } });
        this.ctx.metrics?.prefetched.inc();
        logger.info("pre-fetched and verified", { plan: plan.name });
      } catch (e) {
        this.failedFor = key;
        status.update({ prefetch: { plan: plan.name, state: "failed", error: (e as Error).message } });
        logger.warn("pre-fetch failed; the upgrade will download at the halt", {
          plan: plan.name,
          err: (e as Error).message,
        });
      }
    } finally {
      this.busy = false;
    }
  }

  /** Folders pre-fetched for a plan that is no longer scheduled, and that `current` does not run. */
  private removeStale(scheduled: string | undefined): void {
    const { layout, logger } = this.ctx;
    if (!existsSync(layout.upgradesDir)) return;
    const keep = scheduled ? layout.planDirName(scheduled) : null;
    const current = layout.currentDir();
    for (const name of readdirSync(layout.upgradesDir)) {
      const dir = join(layout.upgradesDir, name);
      if (name === keep || dir === current || !existsSync(join(dir, PREFETCH_MARKER))) continue;
      rmSync(dir, { recursive: true, force: true });
      logger.info("removed the pre-fetched binary of a plan no longer scheduled", { folder: name });
    }
  }
}
