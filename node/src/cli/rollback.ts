import { existsSync } from "node:fs";
import { toHexUpper } from "@chaind/core/hex";
import type { CommandModule } from "yargs";
import { CliError } from "../client/cli-error.js";
import { HomeLayout } from "../config/home-layout.js";
import { rollbackNode } from "../consensus/node-rollback.js";
import { StateRollbackError } from "../store/state-rollback.js";
import { StoreLockedError } from "../store/store-errors.js";
import type { GlobalArgs } from "./global-options.js";

interface RollbackArgs extends GlobalArgs {
  hard: boolean;
}

/**
 * `chaind rollback [--hard]`, as Cosmos' `rollback`: the state of the last committed block is undone on a
 * stopped node, so the next start executes that block again (or, with --hard, makes a new one). It reads no
 * app: any version of the binary can roll back a home.
 */
export const rollbackCommand: CommandModule<GlobalArgs, RollbackArgs> = {
  command: "rollback",
  describe:
    "Roll back the app state by one height; the next start executes the last block again (--hard: removes it)",
  builder: (y) =>
    y.option("hard", {
      type: "boolean",
      default: false,
      describe: "also remove the last block from the block store, with its results and indexes",
    }) as never,
  handler: async (a) => {
    const { dbDir } = new HomeLayout(a.home);
    if (!existsSync(dbDir))
      throw new CliError(`nothing to roll back: no database at ${dbDir} (the node never ran in this home)`);
    try {
      const r = await rollbackNode(dbDir, { removeBlock: a.hard });
      process.stdout.write(`Rolled back state to height ${r.height} and hash ${toHexUpper(r.appHash)}\n`);
    } catch (e) {
      if (e instanceof StoreLockedError)
        throw new CliError(`cannot roll back while the node runs: ${e.message}`);
      if (e instanceof StateRollbackError) throw new CliError(e.message);
      throw new CliError(`rollback failed: ${(e as Error).message}`);
    }
  },
};
