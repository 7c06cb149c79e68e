import type { Logger } from "@chaind/core/logger";
import { readHomeHeight } from "../daemon/home-height.js";
import type { NodeApi } from "../daemon/node-api.js";
import { readSignedHeight } from "../daemon/signed-height.js";
import type { VisorLayout } from "../home/visor-layout.js";

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
 * the node's API (believed only from a server that proved to be the home's node, see NodeApi), read from the
 * home's own block store (home-height.ts: CometBFT's blockstore.db or chaind's application.db), or signed by its
 * validator (signed-height.ts). Above, not at: CometBFT stores block H before the app runs it, so an old binary
 * halted at H already shows H. A height signed above ends the trial too: rolling back under it could make the
 * validator sign a second block at that height.
 */
export class FirstBlockProbe {
  private busy = false;
  private retryAt = 0;
  private retryMs = MIN_RETRY_MS;
  /**
   * False only after a look that read the home's own block store (and its sign state, when it has one): only
   * those prove that nothing above the upgrade height was committed or signed. A server answering on the node's
   * port proves nothing of the kind: it may be an impostor on a dead node's port, or a node behind its store.
   */
  blind = true;

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
      if (reported !== null && reported > upgradeHeight)
        return { height: reported, from: `the node's API (${api.via})` };
      const signed = readSignedHeight(layout.config.home);
      if (signed.kind === "height" && signed.height > upgradeHeight)
        return { height: signed.height, from: `the validator's sign state (${signed.path})` };
      if (Date.now() < this.retryAt) return null;
      try {
        const home = await readHomeHeight(layout.config.home, layout.heightProbeDir);
        // A snapshot of the databases costs more than a question: at most one a second, whatever the poll.
        this.retryAt = Date.now() + MIN_RETRY_MS;
        this.retryMs = MIN_RETRY_MS;
        if (signed.kind === "unreadable")
          this.ctx.logger.debug("the validator's sign state cannot be read", {
            path: signed.path,
            err: signed.why,
          });
        this.blind = signed.kind === "unreadable";
        return home.height > upgradeHeight ? home : null;
      } catch (e) {
        this.ctx.logger.debug("the home's own height cannot be read", { err: (e as Error).message });
        this.blind = true;
        this.retryAt = Date.now() + this.retryMs;
        this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
        return null;
      }
    } finally {
      this.busy = false;
    }
  }
}
