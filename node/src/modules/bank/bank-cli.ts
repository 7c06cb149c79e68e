import { create } from "@bufbuild/protobuf";
import { Query } from "@chaind/proto/sdk/bank/v1beta1/query_pb";
import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import type { Argv, CommandModule } from "yargs";
import type { HomeArgs } from "../../app/home-args.js";
import type { TypeRegistry } from "../../app/type-registry.js";
import { SHOW_GROUP_HELP } from "../../client/cobra-errors.js";
import { parseCoinsArgument } from "../../client/coin-arguments.js";
import { type QueryArgs, queryOptions } from "../../client/query-options.js";
import { printMessage, runQuery } from "../../client/run-query.js";
import { runTx } from "../../client/run-tx.js";
import { type TxArgs, txOptions } from "../../client/tx-options.js";

export function bankTxCommand(types: TypeRegistry): CommandModule<HomeArgs, TxArgs> {
  return {
    command: "bank",
    describe: "Bank transaction subcommands",
    builder: (y) =>
      y
        .command({
          command: "send <from_key_or_address> <to_address> <amount>",
          describe: "Send funds from one account to another",
          builder: (b: Argv) => b.options({ ...txOptions, from: { ...txOptions.from, demandOption: false } }),
          handler: (a) => {
            const amount = parseCoinsArgument(String(a.amount));
            const args = { ...(a as unknown as TxArgs), from: String(a.from_key_or_address) };
            return runTx(args, types, (from) => [
              types.pack(
                MsgSendSchema,
                create(MsgSendSchema, { fromAddress: from, toAddress: String(a.to_address), amount }),
              ),
            ]);
          },
        })
        .demandCommand(1, SHOW_GROUP_HELP) as never,
    handler: () => {},
  };
}

export function bankQueryCommand(types: TypeRegistry): CommandModule<HomeArgs, QueryArgs> {
  return {
    command: "bank",
    describe: "Querying commands for the bank module",
    builder: (y) =>
      y
        .options(queryOptions)
        .command({
          command: "balances <address>",
          describe: "All balances of an account, or one with --denom",
          builder: (b: Argv) => b.option("denom", { type: "string" }),
          handler: async (a) => {
            const args = a as unknown as QueryArgs & { address: string; denom?: string };
            if (args.denom) {
              const r = await runQuery(args, Query.method.balance, {
                address: args.address,
                denom: args.denom,
              });
              printMessage(args, Query.method.balance.output, r, types.registry);
              return;
            }
            const r = await runQuery(args, Query.method.allBalances, { address: args.address });
            printMessage(args, Query.method.allBalances.output, r, types.registry);
          },
        })
        .demandCommand(1, SHOW_GROUP_HELP) as never,
    handler: () => {},
  };
}
