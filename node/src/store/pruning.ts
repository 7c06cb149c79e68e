export type PruningStrategy = "default" | "nothing" | "everything" | "custom";

/** How many recent states to keep, and how often to drop the older ones. */
export interface PruningOptions {
  strategy: PruningStrategy;
  /** 0 = keep every state. */
  keepRecent: number;
  interval: number;
}

/** Cosmos SDK's strategies: default keeps 362880 states, everything keeps 2, both pruning every 10 blocks. */
export function pruningFromAppConfig(c: {
  pruning: string;
  "pruning-keep-recent": string | number;
  "pruning-interval": string | number;
}): PruningOptions {
  switch (c.pruning) {
    case "default":
      return { strategy: "default", keepRecent: 362880, interval: 10 };
    case "nothing":
      return { strategy: "nothing", keepRecent: 0, interval: 0 };
    case "everything":
      return { strategy: "everything", keepRecent: 2, interval: 10 };
    case "custom": {
      const num = (key: "pruning-keep-recent" | "pruning-interval") => {
        const v = Number(c[key]);
        if (!Number.isSafeInteger(v) || v < 0 || String(c[key]).trim() === "") {
          throw new Error(`app.toml: ${key} must be a non-negative integer, got ${JSON.stringify(c[key])}`);
        }
        return v;
      };
      const keepRecent = num("pruning-keep-recent");
      const interval = num("pruning-interval");
      if (interval === 0) throw new Error('app.toml: pruning-interval must not be 0 with pruning = "custom"');
      if (keepRecent < 2)
        throw new Error('app.toml: pruning-keep-recent must be at least 2 with pruning = "custom"');
      return { strategy: "custom", keepRecent, interval };
    }
    default:
      throw new Error(
        `app.toml: unknown pruning strategy ${JSON.stringify(c.pruning)}: expected default, nothing, everything or custom`,
      );
  }
}
