import type { CommandModule } from "yargs";
import type { AppDefinition } from "../chain/app-definition.js";
import { SHOW_GROUP_HELP } from "../client/cobra-errors.js";
import { cliApp } from "./cli-app.js";
import type { GlobalArgs } from "./global-options.js";
import { txFileCommands } from "./tx-files.js";

/** `chaind tx <module> ...`: each module's transactions, then the steps of a tx file (sign, broadcast, ...). */
export function txCommand(def: AppDefinition): CommandModule<GlobalArgs, GlobalArgs> {
  return {
    command: "tx",
    describe: "Transactions subcommands",
    builder: (y) => {
      const app = cliApp(def);
      for (const m of app.modules) {
        const command = m.txCommand?.(app.context);
        if (command) y.command(command);
      }
      return y.command(txFileCommands(app.context.types) as never).demandCommand(1, SHOW_GROUP_HELP) as never;
    },
    handler: () => {},
  };
}
