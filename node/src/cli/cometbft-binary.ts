import { flagOrEnv } from "./flag-env.js";

/**
 * The `cometbft` a command runs in a home CometBFT drives: `--cometbft`, else <APP>_COMETBFT (named after the
 * app, as other flags' variables), else `cometbft` on the PATH.
 */
export function cometbftBinary(given: string | undefined, app: string): string {
  return flagOrEnv(given, app, "cometbft") ?? "cometbft";
}
