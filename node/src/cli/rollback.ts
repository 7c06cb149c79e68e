import { existsSync } from "node:fs";
import { toHexUpper } from "@chaind/core/hex";
import type { CommandModule } from "yargs";
import { CliError } from "../client/cli-error.js";
import { readHomeConfig } from "../config/home-config.js";
import { HomeLayout } from "../config/home-layout.js";
import { rollbackCometHome } from "../consensus/comet-home-rollback.js";
import { rollbackNode } from "../consensus/node-rollback.js";
import { StateRollbackError } from "../store/state-rollback.js";
import { StoreLockedError } from "../store/store-errors.js";
import { cometbftBinary } from "./cometbft-binary.js";
import { flagEnvName } from "./flag-env.js";
import type { GlobalArgs } from "./global-options.js";

interface RollbackArgs extends GlobalArgs {
  hard: boolean;
  cometbft?: string;
}

/**
 * `chaind rollback [--hard]`, as Cosmos' `rollback`: the state of the last committed block is undone on a
 * stopped node, so the next start executes that block again (or, with --hard, makes a new one); in a home
 * CometBFT drives, CometBFT's state too (`cometbft rollback`). It reads no app: any version of the binary can
 * roll back a home.
 */
export const rollbackCommand = (appName: string): CommandModule<GlobalArgs, RollbackArgs> => ({
  command: "rollback",
  describe:
    "Roll back the app state by one height; the next start executes the last block again (--hard: removes it)",
  builder: (y) =>
    y
      .option("hard", {
        type: "boolean",
        default: false,
        describe: "also remove the last block from the block store, with its results and indexes",
      })
      .option("cometbft", {
        type: "string",
        describe: `in a home CometBFT drives, the cometbft binary that rolls back its state (default: ${flagEnvName(appName, "cometbft")}, else cometbft on the PATH)`,
      }) as never,
  handler: async (a) => {
    const layout = new HomeLayout(a.home);
    const { dbDir } = layout;
    if (!existsSync(dbDir))
      throw new CliError(`nothing to roll back: no database at ${dbDir} (the node never ran in this home)`);
    let engine: string;
    try {
      engine = readHomeConfig(layout).node.consensusEngine;
    } catch (e) {
      throw new CliError(`cannot roll back: ${(e as Error).message}`);
    }
    try {
      const r =
        engine === "cometbft"
          ? await rollbackCometHome(layout, {
              removeBlock: a.hard,
              cometbft: cometbftBinary(a.cometbft, appName),
            })
          : await rollbackNode(dbDir, { removeBlock: a.hard });
      process.stdout.write(`Rolled back state to height ${r.height} and hash ${toHexUpper(r.appHash)}\n`);
    } catch (e) {
      if (e instanceof StoreLockedError)
        throw new CliError(`cannot roll back while the node runs: ${e.message}`);
      if (e instanceof StateRollbackError) throw new CliError(e.message);
      throw new CliError(`rollback failed: ${(e as Error).message}`);
    }
  },
});
