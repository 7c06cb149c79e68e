import type { CommandModule } from "yargs";
import type { AppDefinition } from "../chain/app-definition.js";
import { CliError } from "../client/cli-error.js";
import { SHOW_GROUP_HELP } from "../client/cobra-errors.js";
import { type QueryArgs, queryOptions } from "../client/query-options.js";
import { nodeClient, printJson } from "../client/run-query.js";
import { cliApp } from "./cli-app.js";
import type { GlobalArgs } from "./global-options.js";

/**
 * `chaind query <module> ...` for each module with queries, plus `tx <hash>`, `txs --query` and `block [height]`
 * from the node's RPC.
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
        .command({
          command: "tx <hash>",
          describe: "A committed transaction by hash",
          builder: (b) => b.options(queryOptions),
          handler: (a) => {
            if (!/^[0-9A-Fa-f]{64}$/.test(String(a.hash)))
              throw new CliError(`invalid tx hash ${JSON.stringify(a.hash)}`);
            return rpc(a, "tx", { hash: Buffer.from(String(a.hash), "hex").toString("base64") });
          },
        })
        .command({
          command: "txs",
          describe: "Transactions matching an event query, e.g. --query \"message.sender='sdk1…'\"",
          builder: (b) =>
            b
              .options(queryOptions)
              .option("query", { type: "string", demandOption: true })
              .option("page", { type: "number", default: 1 })
              .option("limit", { type: "number", default: 30 }),
          handler: (a) =>
            rpc(a, "tx_search", { query: a.query, page: String(a.page), per_page: String(a.limit) }),
        })
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
