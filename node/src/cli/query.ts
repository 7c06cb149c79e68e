import type { CommandModule } from "yargs";
import type { AppDefinition } from "../chain/app-definition.js";
import { authQueryCommand } from "../modules/auth/auth-cli.js";
import { bankQueryCommand } from "../modules/bank/bank-cli.js";
import { govQueryCommand } from "../modules/gov/gov-cli.js";
import { upgradeQueryCommand } from "../modules/upgrade/upgrade-cli.js";
import { CliError } from "./cli-error.js";
import { cliTypes } from "./cli-types.js";
import type { GlobalArgs } from "./global-options.js";
import { type QueryArgs, queryOptions } from "./query-options.js";
import { nodeClient, printJson } from "./run-query.js";

/** `chaind query <module> ...`, plus `tx <hash>`, `txs --query` and `block [height]` from the node's RPC. */
export function queryCommand(def: AppDefinition): CommandModule<GlobalArgs, GlobalArgs> {
  return {
    command: "query <module>",
    aliases: ["q"],
    describe: "Querying subcommands",
    builder: (y) => {
      const types = cliTypes(def);
      const rpc = async (a: unknown, method: string, params: Record<string, unknown>) => {
        try {
          printJson(a as QueryArgs, await nodeClient(a as QueryArgs).call(method, params));
        } catch (e) {
          throw new CliError((e as Error).message);
        }
      };
      return y
        .command(authQueryCommand(types) as never)
        .command(bankQueryCommand(types) as never)
        .command(govQueryCommand(types) as never)
        .command(upgradeQueryCommand(types) as never)
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
        .demandCommand(1) as never;
    },
    handler: () => {},
  };
}

/** `chaind status`: the node's CometBFT status. */
export const statusCommand: CommandModule<GlobalArgs, QueryArgs> = {
  command: "status",
  describe: "Query remote node for status",
  builder: (y) => y.options(queryOptions) as never,
  handler: async (a) => {
    try {
      printJson({ ...a, output: a.output ?? "json" }, await nodeClient(a).status());
    } catch (e) {
      throw new CliError((e as Error).message);
    }
  },
};
