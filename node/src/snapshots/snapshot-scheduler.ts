import type { Logger } from "@chaind/core/logger";
import type { StateStore } from "../store/state-store.js";
import { writeSnapshot } from "./snapshot-export.js";
import { latestSnapshotSource } from "./snapshot-source.js";
import type { SnapshotStore } from "./snapshot-store.js";

export interface SnapshotSchedule {
  /** app.toml `state-sync.snapshot-interval`: snapshot every height divisible by this (0 = never). */
  interval: number;
  /** app.toml `state-sync.snapshot-keep-recent`: snapshots kept (0 = all). */
  keepRecent: number;
}

/**
 * Takes a snapshot after each commit of a height divisible by the interval, as a Cosmos node does. The LevelDB
 * snapshot is taken at once (before the next block can commit); the chunks are written in the background
 * while blocks go on. One snapshot at a time: a height that comes due while one is being written is skipped.
 */
export class SnapshotScheduler {
  private inProgress: Promise<void> | null = null;

  constructor(
    private readonly schedule: SnapshotSchedule,
    private readonly deps: {
      state: StateStore;
      snapshots: SnapshotStore;
      chainId: string;
      /** The embedded engine's snapshots carry the last block (format 1); CometBFT's the state only (format 2). */
      withLastBlock: boolean;
      logger: Logger;
    },
  ) {}

  /** Called right after a height is committed, before the next block can be. */
  committed(height: number): void {
    const { interval } = this.schedule;
    if (interval <= 0 || height % interval !== 0) return;
    const { logger } = this.deps;
    if (this.inProgress) {
      logger.error("failed to create state snapshot", { height, err: "a snapshot is already in progress" });
      return;
    }
    if (this.deps.state.latestHeight !== height) return;
    // latestSnapshotSource takes its LevelDB snapshot before it first awaits: this height's state, whatever lands next.
    const source = latestSnapshotSource(this.deps.state, this.deps.chainId, this.deps.withLastBlock);
    logger.info("creating state snapshot", { height });
    this.inProgress = this.write(source, height).finally(() => {
      this.inProgress = null;
    });
  }

  private async write(source: ReturnType<typeof latestSnapshotSource>, height: number): Promise<void> {
    const { logger, snapshots } = this.deps;
    try {
      const meta = await writeSnapshot(await source, snapshots);
      logger.info("completed state snapshot", { height, format: meta.format, chunks: meta.chunks });
      for (const old of snapshots.prune(this.schedule.keepRecent))
        logger.info("pruned state snapshot", { height: old.height, format: old.format });
    } catch (e) {
      logger.error("failed to create state snapshot", { height, err: (e as Error).message });
    }
  }

  /** Waits for the snapshot being written, if any (before the database closes). */
  async drain(): Promise<void> {
    await this.inProgress;
  }
}
