import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "@chaind/core/logger";
import { stageUpgradeArtifact } from "../artifacts/upgrade-binary.js";
import type { VisorConfig } from "../config/visor-config.js";
import type { NodeApi } from "../daemon/node-api.js";
import type { UpgradePlan } from "../daemon/upgrade-info.js";
import type { VisorLayout } from "../home/visor-layout.js";
import type { VisorMetrics } from "../reporting/visor-metrics.js";
import type { PrefetchOutcome } from "./prefetch-outcome.js";
import type { StatusFile } from "./visor-status.js";

/** Not joined by a separator: plan "a|b" with info "c" is another plan than "a" with info "b|c". */
const keyOf = (plan: Pick<UpgradePlan, "name" | "info">) => JSON.stringify([plan.name, plan.info]);

/** What visor's look-ahead before a halt (the pre-fetch, the readiness check) works with. */
export interface LookAheadContext {
  config: VisorConfig;
  layout: VisorLayout;
  api: NodeApi;
  status: StatusFile;
  metrics: VisorMetrics | null;
  logger: Logger;
}

/**
 * While the daemon runs, fetches and verifies the artifact of the plan the node's API says is scheduled, into
 * prefetch/<plan>, so the halt does not wait for a download. The plan is only a hint: nothing is installed or
 * switched from it; the halt installs the artifact only if upgrade-info.json names the same one. A plan that is
 * cancelled leaves no pre-fetched folder behind; one replaced under the same name is set aside. Failures are
 * logged and retried when the plan changes: pre-fetching can never make an upgrade fail.
 */
export class Prefetcher {
  private busy = false;
  /** The plan (name and info) last staged or failed, so each is fetched once. */
  private handled = "";
  private skipped = "";
  /** What became of the plan last handled (`handled`): under way, staged, or failed and why. */
  private outcome: PrefetchOutcome = { state: "pending" };

  constructor(private readonly ctx: LookAheadContext) {}

  async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    const { config, layout, api, status, logger } = this.ctx;
    try {
      const plan = await api.currentPlan().catch(() => undefined);
      if (plan === undefined) return;
      this.removeStale(plan?.name);
      // A cancelled or replaced plan's pre-fetch state says nothing of the next upgrade.
      const shown = status.current.prefetch;
      if (shown && shown.plan !== plan?.name) {
        status.update({ prefetch: null });
        this.handled = "";
      }
      if (!plan?.info || !config.allowDownloadBinaries) return;
      const key = keyOf(plan);
      if (this.handled === key) return;
      this.handled = key;
      this.outcome = { state: "downloading" };
      status.update({ prefetch: { plan: plan.name, state: "downloading" } });
      try {
        const done = await stageUpgradeArtifact(plan, layout, config, { logger });
        this.outcome = { state: "ready" };
        status.update({ prefetch: { plan: plan.name, state: "ready" } });
        if (done.state === "downloaded") {
          this.ctx.metrics?.prefetched.inc();
          logger.info("pre-fetched and verified", { plan: plan.name, height: plan.height, via: api.via });
        }
      } catch (e) {
        this.outcome = { state: "failed", error: (e as Error).message };
        status.update({ prefetch: { plan: plan.name, state: "failed", error: (e as Error).message } });
        logger.warn("pre-fetch failed; the upgrade will download at the halt", {
          plan: plan.name,
          err: (e as Error).message,
        });
      }
    } catch (e) {
      // A plan name no folder can hold, an unwritable prefetch folder: the halt will say so, if it comes.
      if (this.skipped !== (e as Error).message)
        logger.warn("pre-fetch skipped", { err: (e as Error).message });
      this.skipped = (e as Error).message;
    } finally {
      this.busy = false;
    }
  }

  /** What became of the pre-fetch of `plan` (this name and this info); `pending` until it starts. */
  outcomeOf(plan: Pick<UpgradePlan, "name" | "info">): PrefetchOutcome {
    return this.handled === keyOf(plan) ? this.outcome : { state: "pending" };
  }

  /** Pre-fetched folders of plans no longer scheduled (set-aside folders are kept for the operator). */
  private removeStale(scheduled: string | undefined): void {
    const { layout, logger } = this.ctx;
    if (!existsSync(layout.prefetchDir)) return;
    const keep = scheduled ? layout.planDirName(scheduled) : null;
    for (const name of readdirSync(layout.prefetchDir)) {
      if (name === keep || name.startsWith(".") || name.includes(".replaced-")) continue;
      rmSync(join(layout.prefetchDir, name), { recursive: true, force: true });
      logger.info("removed the pre-fetched binary of a plan no longer scheduled", { folder: name });
    }
  }
}
