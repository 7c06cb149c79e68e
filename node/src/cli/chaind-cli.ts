import { NodeCallError } from "@chaind/core/comet-rpc-client";
import { ConfigError } from "@chaind/core/config-table";
import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import type { AppDefinition } from "../chain/app-definition.js";
import { CliError } from "../client/cli-error.js";
import { genesisCommand } from "./genesis.js";
import { globalOptions } from "./global-options.js";
import { initCommand } from "./init.js";
import { keysCommand } from "./keys.js";
import { preUpgradeCommand } from "./pre-upgrade.js";
import { queryCommand } from "./query.js";
import { startCommand } from "./start.js";
import { statusCommand } from "./status.js";
import { testnetCommand } from "./testnet.js";
import { txCommand } from "./tx.js";
import { versionCommand } from "./version.js";

/** Runs the `chaind` command line for an app definition; expected failures print one line and exit 1. */
export async function runChaindCli(def: AppDefinition, argv = hideBin(process.argv)): Promise<void> {
  const cli = yargs(argv)
    .scriptName(def.name)
    .options(globalOptions)
    .command(initCommand(def))
    .command(startCommand(def))
    .command(keysCommand)
    .command(genesisCommand(def))
    .command(testnetCommand(def))
    .command(versionCommand(def))
    .command(txCommand(def))
    .command(queryCommand(def))
    .command(statusCommand as never)
    .command(preUpgradeCommand(def))
    .demandCommand(1, "a command is required; see --help")
    .strict()
    .help()
    .fail((msg, err) => {
      throw err ?? new CliError(msg);
    });
  try {
    await cli.parseAsync();
  } catch (e) {
    const expected = e instanceof CliError || e instanceof NodeCallError || e instanceof ConfigError;
    const message = expected ? (e as Error).message : `unexpected error: ${(e as Error).stack ?? e}`;
    process.stderr.write(`Error: ${message}\n`);
    process.exitCode = e instanceof CliError ? e.exitCode : 1;
  }
}
