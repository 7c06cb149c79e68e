import { create, type DescMessage } from "@bufbuild/protobuf";
import { Query } from "@chaind/proto/sdk/bank/v1beta1/query_pb";
import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import type { Argv, CommandModule } from "yargs";
import type { HomeArgs } from "../../app/home-args.js";
import type { TypeRegistry } from "../../app/type-registry.js";
import { SHOW_GROUP_HELP } from "../../client/cobra-errors.js";
import { parseCoinsArgument } from "../../client/coin-arguments.js";
import { pageOptions, pageRequest } from "../../client/page-options.js";
import { type QueryArgs, queryOptions } from "../../client/query-options.js";
import { printMessage, runQuery } from "../../client/run-query.js";
import { runTx } from "../../client/run-tx.js";
import {
  addressArgument,
  type ServiceQueryArgs,
  type ServiceQuerySpec,
  serviceQueryCommand,
} from "../../client/service-query-command.js";
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

/**
 * `chaind query bank ...`: the bank Query service as SDK 0.50's CLI names its commands, each printing the whole
 * response. Address arguments are checked before the node is asked.
 */
export function bankQueryCommand(types: TypeRegistry): CommandModule<HomeArgs, QueryArgs> {
  const account = (a: ServiceQueryArgs) => addressArgument(a, "address");
  const leaf = <I extends DescMessage, O extends DescMessage>(spec: ServiceQuerySpec<I, O>) =>
    serviceQueryCommand(types, spec);
  return {
    command: "bank",
    describe: "Querying commands for the bank module",
    builder: (y) =>
      y
        .options(queryOptions)
        .command({
          command: "balances <address>",
          describe: "All balances of an account, or one with --denom",
          builder: (b: Argv) => b.options(pageOptions).option("denom", { type: "string" }),
          handler: async (raw) => {
            const a = raw as unknown as ServiceQueryArgs;
            if (a.denom) {
              const r = await runQuery(a, Query.method.balance, {
                address: account(a),
                denom: String(a.denom),
              });
              return printMessage(a, Query.method.balance.output, r, types.registry);
            }
            const r = await runQuery(a, Query.method.allBalances, {
              address: account(a),
              pagination: pageRequest(a),
            });
            printMessage(a, Query.method.allBalances.output, r, types.registry);
          },
        })
        .command(
          leaf({
            command: "balance <address> <denom>",
            describe: "One balance of an account",
            method: Query.method.balance,
            request: (a) => ({ address: account(a), denom: String(a.denom) }),
          }),
        )
        .command(
          leaf({
            command: "spendable-balances <address>",
            describe: "What an account can spend now (vesting aside)",
            method: Query.method.spendableBalances,
            paged: true,
            request: (a) => ({ address: account(a) }),
          }),
        )
        .command(
          leaf({
            command: "total-supply",
            aliases: ["total"],
            describe: "The total supply of every coin",
            method: Query.method.totalSupply,
            paged: true,
            request: () => ({}),
          }),
        )
        .command(
          leaf({
            command: "total-supply-of <denom>",
            describe: "The total supply of one coin",
            method: Query.method.supplyOf,
            request: (a) => ({ denom: String(a.denom) }),
          }),
        )
        .command(
          leaf({
            command: "denom-metadata <denom>",
            describe: "The metadata of one coin",
            method: Query.method.denomMetadata,
            request: (a) => ({ denom: String(a.denom) }),
          }),
        )
        .command(
          leaf({
            command: "denoms-metadata",
            describe: "The metadata of every coin that has it",
            method: Query.method.denomsMetadata,
            paged: true,
            request: () => ({}),
          }),
        )
        .command(
          leaf({
            command: "params",
            describe: "The bank module's parameters",
            method: Query.method.params,
            request: () => ({}),
          }),
        )
        .demandCommand(1, SHOW_GROUP_HELP) as never,
    handler: () => {},
  };
}
