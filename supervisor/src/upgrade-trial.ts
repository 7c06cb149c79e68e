import type { Logger } from "@chaind/core/logger";
import { readHomeHeight } from "./home-height.js";
import type { NodeApi } from "./node-api.js";
import type { VisorLayout } from "./visor-layout.js";

/**
 * An upgrade on trial, kept in visor-status.json from just before the switch until its new binary commits a
 * block above the upgrade height: what a rollback needs, and how often the new binary has failed so far.
 */
export interface UpgradeTrial {
  plan: string;
  height: number;
  /** The folder `current` pointed at before the switch, relative to `$DAEMON_HOME/cosmovisor`. */
  previous: string;
  /** The data backup made for this upgrade; null when backups are off (UNSAFE_SKIP_BACKUP). */
  backup: string | null;
  /** Times the new binary exited non-zero before its first block. */
  failures: number;
  last_exit: number | null;
  started_at: string;
}

/** The home's own height is read at most this often; after a failed read the wait doubles up to the cap. */
const MIN_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;

/**
 * Watches for the first block an upgraded node commits above the upgrade height: a height above it reported by
 * the node's API (believed only from a server that proved to be the home's node, see NodeApi), or read from the
 * home's own block store (home-height.ts: CometBFT's blockstore.db or chaind's application.db). Above, not at:
 * CometBFT stores block H before the app runs it, so an old binary halted at H already shows H.
 */
export class FirstBlockProbe {
  private busy = false;
  private retryAt = 0;
  private retryMs = MIN_RETRY_MS;
  /**
   * True after a look where neither source answered (no proven node API, no readable block store): whether the
   * upgrade committed a block cannot be told, so nothing may be concluded from its absence.
   */
  blind = false;

  constructor(
    private readonly ctx: { layout: VisorLayout; api: NodeApi; logger: Logger; upgradeHeight: number },
  ) {}

  /** A height above the upgrade height and where it was seen; null while none is seen (or a look is under way). */
  async above(): Promise<{ height: number; from: string } | null> {
    if (this.busy) return null;
    this.busy = true;
    try {
      const { layout, api, upgradeHeight } = this.ctx;
      const reported = await api.height().catch(() => null);
      this.blind = false;
      if (reported !== null && reported > upgradeHeight)
        return { height: reported, from: `the node's API (${api.via})` };
      if (Date.now() < this.retryAt) return null;
      try {
        const home = await readHomeHeight(layout.config.home, layout.heightProbeDir);
        // A snapshot of the databases costs more than a question: at most one a second, whatever the poll.
        this.retryAt = Date.now() + MIN_RETRY_MS;
        this.retryMs = MIN_RETRY_MS;
        return home.height > upgradeHeight ? home : null;
      } catch (e) {
        this.ctx.logger.debug("the home's own height cannot be read", { err: (e as Error).message });
        this.blind = reported === null;
        this.retryAt = Date.now() + this.retryMs;
        this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
        return null;
      }
    } finally {
      this.busy = false;
    }
  }
}
