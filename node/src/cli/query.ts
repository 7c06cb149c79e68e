import type { CommandModule } from "yargs";
import type { AppDefinition } from "../chain/app-definition.js";
import { CliError } from "../client/cli-error.js";
import { SHOW_GROUP_HELP } from "../client/cobra-errors.js";
import { type QueryArgs, queryOptions } from "../client/query-options.js";
import { nodeClient, printJson } from "../client/run-query.js";
import { txLookupCommand, txSearchCommand } from "../client/tx-lookup-commands.js";
import { cliApp } from "./cli-app.js";
import type { GlobalArgs } from "./global-options.js";

/**
 * `chaind query <module> ...` for each module with queries, plus `tx`, `txs` (the node's tx service)
 * and `block [height]` (its RPC).
 */
export function queryCommand(def: AppDefinition): CommandModule<GlobalArgs, GlobalArgs> {
  return {
    command: "query",
    aliases: ["q"],
    describe: "Querying subcommands",
    builder: (y) => {
      const app = cliApp(def);
      for (const m of app.modules) {
        const command = m.queryCommand?.(app.context);
        if (command) y.command(command);
      }
      const rpc = async (a: unknown, method: string, params: Record<string, unknown>) => {
        try {
          printJson(a as QueryArgs, await nodeClient(a as QueryArgs).call(method, params));
        } catch (e) {
          throw new CliError((e as Error).message);
        }
      };
      return y
        .command(txLookupCommand(app.context.types))
        .command(txSearchCommand(app.context.types))
        .command({
          command: "block [height]",
          describe: "A block (the latest without a height)",
          builder: (b) => b.options(queryOptions),
          handler: (a) => rpc(a, "block", a.height ? { height: String(a.height) } : {}),
        })
        .demandCommand(1, SHOW_GROUP_HELP) as never;
    },
    handler: () => {},
  };
}
