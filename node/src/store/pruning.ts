export const PRUNING_STRATEGIES = ["default", "nothing", "everything", "custom"] as const;
export type PruningStrategy = (typeof PRUNING_STRATEGIES)[number];

/** How many recent states to keep, and how often to drop the older ones. */
export interface PruningOptions {
  strategy: PruningStrategy;
  /** Heights whose state stays readable: latest - keepRecent + 1 .. latest. 0 = keep every state. */
  keepRecent: number;
  /** Prune at every height divisible by this; 0 = never. */
  interval: number;
}

/** Cosmos SDK's floors for custom pruning (PruneEverythingKeepRecent, PruneEverythingInterval). */
export const CUSTOM_PRUNING_FLOORS = { keepRecent: 2, interval: 10 } as const;

export const PRUNING_NOTHING: PruningOptions = { strategy: "nothing", keepRecent: 0, interval: 0 };

/**
 * app.toml's `pruning`, `pruning-keep-recent`, `pruning-interval` with Cosmos semantics: default keeps 362880
 * states, everything keeps 2, both pruning every 10 blocks; only custom reads the two numbers. app.toml's reader
 * has checked them (custom at or above the floors), so this only resolves.
 */
export function pruningOptions(c: {
  pruning: PruningStrategy;
  pruningKeepRecent: number;
  pruningInterval: number;
}): PruningOptions {
  switch (c.pruning) {
    case "default":
      return { strategy: "default", keepRecent: 362880, interval: 10 };
    case "nothing":
      return { ...PRUNING_NOTHING };
    case "everything":
      return {
        strategy: "everything",
        keepRecent: CUSTOM_PRUNING_FLOORS.keepRecent,
        interval: CUSTOM_PRUNING_FLOORS.interval,
      };
    case "custom":
      return { strategy: "custom", keepRecent: c.pruningKeepRecent, interval: c.pruningInterval };
  }
}
