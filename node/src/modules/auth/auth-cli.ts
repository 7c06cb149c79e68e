import { Query } from "@chaind/proto/sdk/auth/v1beta1/query_pb";
import type { CommandModule } from "yargs";
import type { HomeArgs } from "../../app/home-args.js";
import type { TypeRegistry } from "../../app/type-registry.js";
import { SHOW_GROUP_HELP } from "../../client/cobra-errors.js";
import { type QueryArgs, queryOptions } from "../../client/query-options.js";
import { printMessage, runQuery } from "../../client/run-query.js";

export function authQueryCommand(types: TypeRegistry): CommandModule<HomeArgs, QueryArgs> {
  return {
    command: "auth",
    describe: "Querying commands for the auth module",
    builder: (y) =>
      y
        .options(queryOptions)
        .command({
          command: "account <address>",
          describe: "An account by address",
          handler: async (a) => {
            const args = a as unknown as QueryArgs & { address: string };
            const r = await runQuery(args, Query.method.account, { address: args.address });
            printMessage(args, Query.method.account.output, r, types.registry);
          },
        })
        .demandCommand(1, SHOW_GROUP_HELP) as never,
    handler: () => {},
  };
}
