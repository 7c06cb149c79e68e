import { ChainError } from "../errors/chain-error.js";
import { SdkErrors } from "../errors/sdk-errors.js";

export type PruningStrategy = "default" | "nothing" | "everything" | "custom";

/** How many recent states to keep, and how often to drop the older ones. */
export interface PruningOptions {
  strategy: PruningStrategy;
  /** Heights whose state stays readable: latest - keepRecent + 1 .. latest. 0 = keep every state. */
  keepRecent: number;
  /** Prune at every height divisible by this; 0 = never. */
  interval: number;
}

/** Cosmos SDK's floors for custom pruning (PruneEverythingKeepRecent, PruneEverythingInterval). */
const MIN_KEEP_RECENT = 2;
const MIN_INTERVAL = 10;

export const PRUNING_NOTHING: PruningOptions = { strategy: "nothing", keepRecent: 0, interval: 0 };

const appConfigError = (detail: string) => ChainError.wrap(SdkErrors.AppConfig, detail);

/**
 * app.toml's `pruning`, `pruning-keep-recent`, `pruning-interval` with Cosmos semantics: default keeps 362880
 * states, everything keeps 2, both pruning every 10 blocks; only custom reads the two numbers.
 */
export function pruningFromAppConfig(c: {
  pruning: string;
  "pruning-keep-recent": string | number;
  "pruning-interval": string | number;
}): PruningOptions {
  switch (c.pruning) {
    case "default":
      return { strategy: "default", keepRecent: 362880, interval: 10 };
    case "nothing":
      return { ...PRUNING_NOTHING };
    case "everything":
      return { strategy: "everything", keepRecent: MIN_KEEP_RECENT, interval: MIN_INTERVAL };
    case "custom": {
      const keepRecent = nonNegativeInt(c, "pruning-keep-recent");
      const interval = nonNegativeInt(c, "pruning-interval");
      if (interval === 0)
        throw appConfigError(
          'pruning-interval must not be 0 with pruning = "custom"; to disable pruning, set pruning = "nothing"',
        );
      if (interval < MIN_INTERVAL)
        throw appConfigError(`pruning-interval must not be less than ${MIN_INTERVAL}, got ${interval}`);
      if (keepRecent < MIN_KEEP_RECENT)
        throw appConfigError(
          `pruning-keep-recent must not be less than ${MIN_KEEP_RECENT}, got ${keepRecent}`,
        );
      return { strategy: "custom", keepRecent, interval };
    }
    default:
      throw appConfigError(
        `unknown pruning strategy ${JSON.stringify(c.pruning)}: expected default, nothing, everything or custom`,
      );
  }
}

function nonNegativeInt(
  c: Record<"pruning-keep-recent" | "pruning-interval", string | number>,
  key: "pruning-keep-recent" | "pruning-interval",
): number {
  const raw = c[key];
  const v = typeof raw === "number" ? raw : /^\s*\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(v) || v < 0)
    throw appConfigError(`${key} must be a non-negative integer, got ${JSON.stringify(raw)}`);
  return v;
}
