import { existsSync, readFileSync, rmSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { writeFileAtomic } from "@chaind/core/atomic-file";
import type { Logger } from "@chaind/core/logger";
import { readHomeHeight } from "../daemon/home-height.js";
import type { NodeApi } from "../daemon/node-api.js";
import { type UpgradePlan, validatePlan } from "../daemon/upgrade-info.js";
import { VisorError } from "../errors/visor-error.js";
import type { VisorLayout } from "../home/visor-layout.js";
import { ProcessLock } from "../host/process-lock.js";

export function readBatch(path: string): UpgradePlan[] {
  if (!existsSync(path)) return [];
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new VisorError("UPGRADE_INFO", `${path}: invalid JSON: ${(e as Error).message}`);
  }
  if (!Array.isArray(doc)) throw new VisorError("UPGRADE_INFO", `${path}: expected a JSON array of plans`);
  return doc.map((p, i) => validatePlan(p, `${path}[${i}]`)).sort((a, b) => a.height - b.height);
}

function writeBatch(path: string, plans: readonly UpgradePlan[]): void {
  if (plans.length) writeFileAtomic(path, JSON.stringify(plans));
  else rmSync(path, { force: true });
}

/** How long add-upgrade waits for the batch file's lock, which a running visor holds for milliseconds. */
const BATCH_LOCK_WAIT_MS = 10_000;

/**
 * Rewrites the batch file under its lock: `edit` gets the plans as they are now, and its answer replaces them. The
 * running visor's feed takes the same lock to remove the entry it writes into upgrade-info.json, so neither loses
 * what the other wrote meanwhile (an entry add-upgrade queued, an entry already fed coming back).
 */
export async function editBatch(
  layout: VisorLayout,
  edit: (plans: UpgradePlan[]) => UpgradePlan[],
): Promise<void> {
  const deadline = Date.now() + BATCH_LOCK_WAIT_MS;
  let lock = await ProcessLock.tryTake(layout.batchLockDir);
  while (!lock) {
    if (Date.now() > deadline)
      throw new VisorError(
        "UPGRADE_INFO",
        `${layout.batchFile} stays locked by another process (${layout.batchLockDir})`,
      );
    await sleep(20);
    lock = await ProcessLock.tryTake(layout.batchLockDir);
  }
  try {
    writeBatch(layout.batchFile, edit(readBatch(layout.batchFile)));
  } finally {
    await lock.release();
  }
}

/** After the home's own height could not be read, the next read waits this long, doubling up to the cap. */
const MIN_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;

/**
 * Batch upgrades: plans queued in upgrade-info.json.batch (sorted by height) are written one at a time into
 * upgrade-info.json once the node is one block short of the plan's height, which starts the usual upgrade.
 *
 * The node's API only says when to look: its height counts only from a server that proved to be the home's
 * node (see NodeApi), and only the highest seen (a lower one is ignored). When that height says an entry is
 * due, the home's own database decides: its committed height is read from a snapshot while the node runs
 * (home-height.ts), and the entry waits until the home itself has reached it. While the home is readable but
 * behind, it is read again at every tick, so the entry is written within a tick of the home reaching the
 * height; only a home that cannot be read is read less and less often.
 */
export class BatchFeed {
  private highest = 0;
  private retryAt = 0;
  private retryMs = MIN_RETRY_MS;
  private warned = "";
  private busy = false;

  constructor(private readonly ctx: { layout: VisorLayout; api: NodeApi; logger: Logger }) {}

  async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      await this.feed();
    } finally {
      this.busy = false;
    }
  }

  /** Logs why an entry waits, once while the reason stays the same. */
  private waits(why: string, ctx: Record<string, unknown>): void {
    if (this.warned !== why) this.ctx.logger.warn(why, ctx);
    this.warned = why;
  }

  private async feed(): Promise<void> {
    const { layout, api, logger } = this.ctx;
    const batch = readBatch(layout.batchFile);
    if (batch.length === 0) return;
    const reported = await api.height().catch(() => null);
    if (reported !== null && reported > this.highest) this.highest = reported;
    else if (reported !== null && reported < this.highest)
      logger.debug("ignoring a height lower than one reported before", {
        reported,
        highest: this.highest,
      });
    const [next] = batch;
    if (this.highest < next.height - 1 || Date.now() < this.retryAt) return;
    let home: { height: number; from: string };
    try {
      home = await readHomeHeight(layout.config.home, layout.heightProbeDir);
    } catch (e) {
      this.waits("batch upgrade waits: the home's own height cannot be read", {
        plan: next.name,
        err: (e as Error).message,
      });
      this.retryAt = Date.now() + this.retryMs;
      this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
      return;
    }
    this.retryAt = 0;
    this.retryMs = MIN_RETRY_MS;
    if (home.height < next.height - 1) {
      this.waits("batch upgrade waits: the home's own store is behind the height its node's API reports", {
        plan: next.name,
        height: next.height,
        node_height: this.highest,
        home_height: home.height,
        from: home.from,
      });
      return;
    }
    this.warned = "";
    // add-upgrade may be editing the file: then the next tick feeds the entry.
    const lock = await ProcessLock.tryTake(layout.batchLockDir);
    if (!lock) return;
    try {
      // The file as it is now: an entry queued meanwhile stays, one removed or moved meanwhile is not fed.
      const [head, ...rest] = readBatch(layout.batchFile);
      if (head?.name !== next.name || head.height !== next.height) return;
      writeFileAtomic(
        layout.upgradeInfoFile,
        JSON.stringify({
          name: head.name,
          time: "0001-01-01T00:00:00Z",
          height: head.height,
          info: head.info,
        }),
      );
      writeBatch(layout.batchFile, rest);
    } finally {
      await lock.release();
    }
    logger.info("batch upgrade due", {
      plan: next.name,
      height: next.height,
      node_height: this.highest,
      home_height: home.height,
    });
  }
}
