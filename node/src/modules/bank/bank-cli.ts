import { create, type DescMessage, type Message } from "@bufbuild/protobuf";
import { Query } from "@chaind/proto/sdk/bank/v1beta1/query_pb";
import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import type { Argv, CommandModule } from "yargs";
import type { HomeArgs } from "../../app/home-args.js";
import type { TypeRegistry } from "../../app/type-registry.js";
import { chainPrefix } from "../../client/chain-prefix.js";
import { SHOW_GROUP_HELP } from "../../client/cobra-errors.js";
import { parseCoinsArgument } from "../../client/coin-arguments.js";
import { type PageArgs, pageOptions, pageRequest } from "../../client/page-options.js";
import { type QueryArgs, queryOptions } from "../../client/query-options.js";
import { printMessage, runQuery } from "../../client/run-query.js";
import { runTx } from "../../client/run-tx.js";
import { checkAddress } from "../../client/tx-argument-checks.js";
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
  type Args = QueryArgs & PageArgs & Record<string, unknown>;
  const print = (a: Args, schema: DescMessage, msg: Message) => printMessage(a, schema, msg, types.registry);
  const account = (a: Args) => {
    const text = String(a.address);
    checkAddress(text, chainPrefix(a.home));
    return text;
  };
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
            const a = raw as unknown as Args;
            if (a.denom) {
              const r = await runQuery(a, Query.method.balance, {
                address: account(a),
                denom: String(a.denom),
              });
              return print(a, Query.method.balance.output, r);
            }
            const r = await runQuery(a, Query.method.allBalances, {
              address: account(a),
              pagination: pageRequest(a),
            });
            print(a, Query.method.allBalances.output, r);
          },
        })
        .command({
          command: "balance <address> <denom>",
          describe: "One balance of an account",
          handler: async (raw) => {
            const a = raw as unknown as Args;
            const r = await runQuery(a, Query.method.balance, {
              address: account(a),
              denom: String(a.denom),
            });
            print(a, Query.method.balance.output, r);
          },
        })
        .command({
          command: "spendable-balances <address>",
          describe: "What an account can spend now (vesting aside)",
          builder: (b: Argv) => b.options(pageOptions),
          handler: async (raw) => {
            const a = raw as unknown as Args;
            const r = await runQuery(a, Query.method.spendableBalances, {
              address: account(a),
              pagination: pageRequest(a),
            });
            print(a, Query.method.spendableBalances.output, r);
          },
        })
        .command({
          command: "total-supply",
          aliases: ["total"],
          describe: "The total supply of every coin",
          builder: (b: Argv) => b.options(pageOptions),
          handler: async (raw) => {
            const a = raw as unknown as Args;
            const r = await runQuery(a, Query.method.totalSupply, { pagination: pageRequest(a) });
            print(a, Query.method.totalSupply.output, r);
          },
        })
        .command({
          command: "total-supply-of <denom>",
          describe: "The total supply of one coin",
          handler: async (raw) => {
            const a = raw as unknown as Args;
            const r = await runQuery(a, Query.method.supplyOf, { denom: String(a.denom) });
            print(a, Query.method.supplyOf.output, r);
          },
        })
        .command({
          command: "denom-metadata <denom>",
          describe: "The metadata of one coin",
          handler: async (raw) => {
            const a = raw as unknown as Args;
            const r = await runQuery(a, Query.method.denomMetadata, { denom: String(a.denom) });
            print(a, Query.method.denomMetadata.output, r);
          },
        })
        .command({
          command: "denoms-metadata",
          describe: "The metadata of every coin that has it",
          builder: (b: Argv) => b.options(pageOptions),
          handler: async (raw) => {
            const a = raw as unknown as Args;
            const r = await runQuery(a, Query.method.denomsMetadata, { pagination: pageRequest(a) });
            print(a, Query.method.denomsMetadata.output, r);
          },
        })
        .command({
          command: "params",
          describe: "The bank module's parameters",
          handler: async (raw) => {
            const a = raw as unknown as Args;
            print(a, Query.method.params.output, await runQuery(a, Query.method.params, {}));
          },
        })
        .demandCommand(1, SHOW_GROUP_HELP) as never,
    handler: () => {},
  };
}
