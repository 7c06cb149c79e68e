import type { UpgradePlan } from "../daemon/upgrade-info.js";
import { samePlanName } from "../daemon/upgrade-info.js";
import { readBatch } from "./batch-feed.js";
import type { PrefetchOutcome } from "./prefetch-outcome.js";
import type { LookAheadContext, Prefetcher } from "./prefetcher.js";
import { checkReadiness } from "./upgrade-readiness.js";
import type { NextUpgrade } from "./visor-status.js";

/** A plan whose checks all passed is checked again this often (a release host may go, a disk fill up). */
const RECHECK_MS = 60_000;
/** The last check before the halt, this many blocks ahead of it: a problem found then is still an ERR line. */
const FINAL_CHECK_BLOCKS = 10;

type KnownPlan = UpgradePlan & { source: NextUpgrade["source"] };

/**
 * Checks the next upgrade (the node's scheduled plan, or the first batch entry) as soon as it is known, again
 * every RECHECK_MS and once more FINAL_CHECK_BLOCKS blocks before its height: whatever would make the halt fail
 * is logged as an ERR line now, and shown in visor-status.json (`next_upgrade`) and the metrics, with the
 * estimated time of the halt. It changes nothing: the halt decides as before.
 */
export class ReadinessMonitor {
  private busy = false;
  /** The plan (and its pre-fetch state) last checked, when, and whether its final check was made. */
  private key = "";
  private checkedAt = 0;
  private finalChecked = false;
  /** The problems last logged, so a plan's ERR lines are not repeated every minute (only at the final check). */
  private reported = "";
  private shownPlan: string | null = null;
  /** The first and latest heights seen, with when: the pace of blocks. */
  private first: { height: number; at: number } | null = null;
  private latest: { height: number; at: number } | null = null;

  constructor(
    private readonly ctx: LookAheadContext & {
      /** The pre-fetcher of the daemon that runs now, if any. */
      prefetcher: () => Prefetcher | null;
      /** Heights given to --unsafe-skip-upgrades: no upgrade happens there. */
      skipped: (height: number) => boolean;
    },
  ) {}

  async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      await this.check();
    } catch (e) {
      this.ctx.logger.warn("could not check the next upgrade", { err: (e as Error).message });
    } finally {
      this.busy = false;
    }
  }

  /** The node's plan or the first batch entry, whichever comes first; undefined when neither can be known now. */
  private async nextPlan(): Promise<KnownPlan | null | undefined> {
    const { api, layout, config } = this.ctx;
    const fromNode = await api.currentPlan().catch(() => undefined);
    let fromBatch: UpgradePlan | undefined;
    try {
      fromBatch = readBatch(layout.batchFile)[0];
    } catch {
      // The batch feed reports an unusable batch file.
    }
    const running = layout.currentPlan();
    const candidates: KnownPlan[] = [];
    if (fromNode) candidates.push({ ...fromNode, source: "node" });
    if (fromBatch) candidates.push({ ...fromBatch, source: "batch" });
    const next = candidates
      .filter((p) => !this.ctx.skipped(p.height))
      .filter((p) => !(running && samePlanName(running.name, p.name, config) && running.height >= p.height))
      .sort((a, b) => a.height - b.height)[0];
    if (next) return next;
    return fromNode === undefined ? undefined : null;
  }

  private observe(height: number | null): void {
    if (height === null) return;
    const now = Date.now();
    if (!this.first || height < this.first.height) this.first = { height, at: now };
    if (!this.latest || height > this.latest.height) this.latest = { height, at: now };
  }

  /** When the node should reach `target`, at the pace of the blocks seen so far (every tick looks). */
  estimatedAt(target: number): string | null {
    const { first, latest } = this;
    if (!first || !latest || latest.height <= first.height) return null;
    const msPerBlock = (latest.at - first.at) / (latest.height - first.height);
    return new Date(latest.at + Math.max(0, target - latest.height) * msPerBlock).toISOString();
  }

  private async check(): Promise<void> {
    const { status, logger, api } = this.ctx;
    const plan = await this.nextPlan();
    if (plan === undefined) return;
    if (plan === null) {
      if (status.current.next_upgrade) {
        logger.info("no upgrade is scheduled any more", { plan: status.current.next_upgrade.name });
        status.update({ next_upgrade: null });
      }
      this.show(null);
      this.key = "";
      this.reported = "";
      return;
    }
    const height = await api.height().catch(() => null);
    this.observe(height);
    const prefetch = this.prefetchOf(plan);
    const key = JSON.stringify([plan.source, plan.name, plan.height, plan.info, prefetch?.state ?? null]);
    const near = height !== null && plan.height - height <= FINAL_CHECK_BLOCKS;
    if (key !== this.key) {
      this.finalChecked = false;
      this.reported = "";
    }
    const final = near && !this.finalChecked;
    if (key === this.key && !final && Date.now() - this.checkedAt < RECHECK_MS) return;
    this.key = key;
    if (near) this.finalChecked = true;
    const found = await checkReadiness(plan, { ...this.ctx, prefetch });
    this.checkedAt = Date.now();
    const next: NextUpgrade = {
      name: plan.name,
      height: plan.height,
      source: plan.source,
      ready: found.problems.length === 0 && found.binary !== "prefetching",
      ...found,
      estimated_at: this.estimatedAt(plan.height),
      node_height: height,
      checked_at: new Date().toISOString(),
    };
    status.update({ next_upgrade: next });
    this.show(next);
    this.report(next, final);
  }

  /**
   * The pre-fetch of `plan`, when the pre-fetcher handles it (a node's plan naming an artifact, with downloads
   * and VISOR_PREFETCH on): `pending` until it has started on this very plan (name and info).
   */
  private prefetchOf(plan: KnownPlan): PrefetchOutcome | undefined {
    const { config, prefetcher } = this.ctx;
    if (plan.source !== "node" || !plan.info || !config.prefetch || !config.allowDownloadBinaries)
      return undefined;
    return prefetcher()?.outcomeOf(plan) ?? { state: "pending" };
  }

  private report(next: NextUpgrade, final: boolean): void {
    const { logger } = this.ctx;
    const problems = JSON.stringify(next.problems);
    // Under way, a pre-fetch is the check: its outcome is reported.
    if (next.binary === "prefetching" && next.problems.length === 0) return;
    if (problems === this.reported && !(final && !next.ready)) return;
    this.reported = problems;
    const ctx = { plan: next.name, height: next.height, source: next.source };
    if (next.ready)
      logger.info("next upgrade is ready", {
        ...ctx,
        binary: next.binary,
        signature: next.signature,
        estimated_at: next.estimated_at ?? "unknown",
      });
    else
      for (const p of next.problems)
        logger.error(`upgrade ${next.name} at height ${next.height} will fail at the halt: ${p}`, ctx);
  }

  private show(next: NextUpgrade | null): void {
    const m = this.ctx.metrics;
    if (!m) return;
    const shown = next && JSON.stringify([next.name, next.source]);
    if (this.shownPlan !== shown) {
      m.nextUpgradeHeight.reset();
      m.nextUpgradeReady.reset();
      m.nextUpgradeEstimatedTime.reset();
      this.shownPlan = shown;
    }
    if (!next) return;
    const labels = { plan: next.name, source: next.source };
    m.nextUpgradeHeight.set(labels, next.height);
    m.nextUpgradeReady.set(labels, next.ready ? 1 : 0);
    if (next.estimated_at) m.nextUpgradeEstimatedTime.set(labels, Date.parse(next.estimated_at) / 1000);
  }
}
