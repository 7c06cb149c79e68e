import type { CommandModule } from "yargs";
import type { AppDefinition } from "../chain/app-definition.js";
import { bankTxCommand } from "../modules/bank/bank-cli.js";
import { govTxCommand } from "../modules/gov/gov-cli.js";
import { upgradeTxCommand } from "../modules/upgrade/upgrade-cli.js";
import { cliTypes } from "./cli-types.js";
import type { GlobalArgs } from "./global-options.js";
import { txFileCommands } from "./tx-files.js";

/** `chaind tx <module> ...`: build, sign and broadcast transactions with a keyring key. */
export function txCommand(def: AppDefinition): CommandModule<GlobalArgs, GlobalArgs> {
  return {
    command: "tx <module>",
    describe: "Transactions subcommands",
    builder: (y) => {
      const types = cliTypes(def);
      return y
        .command(bankTxCommand(types) as never)
        .command(govTxCommand(types) as never)
        .command(upgradeTxCommand(types) as never)
        .command(txFileCommands(types) as never)
        .demandCommand(1) as never;
    },
    handler: () => {},
  };
}
