import { create } from "@bufbuild/protobuf";
import {
  MsgBeginRedelegateSchema,
  MsgCreateValidatorSchema,
  MsgDelegateSchema,
  MsgUndelegateSchema,
} from "@chaind/proto/sdk/staking/v1beta1/tx_pb";
import type { Argv, CommandModule } from "yargs";
import { AddressCodec } from "../../app/address-codec.js";
import type { HomeArgs } from "../../app/home-args.js";
import type { TypeRegistry } from "../../app/type-registry.js";
import { chainPrefix } from "../../client/chain-prefix.js";
import { SHOW_GROUP_HELP } from "../../client/cobra-errors.js";
import { parseCoinArgument } from "../../client/coin-arguments.js";
import { runTx } from "../../client/run-tx.js";
import { type TxArgs, txOptions } from "../../client/tx-options.js";
import { readValidatorFile } from "./validator-json-file.js";

/** The operator address of an account: the same bytes under `<prefix>valoper`. */
function operatorOf(account: string, home: string): string {
  const prefix = chainPrefix(home);
  return new AddressCodec(`${prefix}valoper`).toString(new AddressCodec(prefix).fromString(account));
}

/**
 * `chaind tx staking create-validator|delegate|redelegate|unbond`, with the SDK's arguments. Addresses and
 * amounts are checked by runTx before anything is signed or sent.
 */
export function stakingTxCommand(types: TypeRegistry): CommandModule<HomeArgs, TxArgs> {
  const tx = (a: unknown, build: (from: string) => ReturnType<TypeRegistry["pack"]>[]) =>
    runTx(a as TxArgs, types, build);
  return {
    command: "staking",
    describe: "Staking transaction subcommands",
    builder: (y) =>
      y
        .command({
          command: "create-validator <validator-file>",
          describe:
            "Create a new validator with a self-delegation, from a JSON file {pubkey, amount, moniker, commission-rate, commission-max-rate, commission-max-change-rate, min-self-delegation, identity, website, security, details}",
          builder: (b: Argv) => b.options(txOptions),
          handler: (a) => {
            const file = readValidatorFile(String(a["validator-file"]), types);
            return tx(a, (from) => [
              types.pack(
                MsgCreateValidatorSchema,
                create(MsgCreateValidatorSchema, {
                  description: file.description,
                  commission: file.commission,
                  minSelfDelegation: file.minSelfDelegation,
                  validatorAddress: operatorOf(from, String(a.home)),
                  pubkey: file.pubkey,
                  value: file.amount,
                }),
              ),
            ]);
          },
        })
        .command({
          command: "delegate <validator-addr> <amount>",
          describe: "Delegate liquid tokens to a validator",
          builder: (b: Argv) => b.options(txOptions),
          handler: (a) => {
            const amount = parseCoinArgument(String(a.amount));
            return tx(a, (from) => [
              types.pack(
                MsgDelegateSchema,
                create(MsgDelegateSchema, {
                  delegatorAddress: from,
                  validatorAddress: String(a["validator-addr"]),
                  amount,
                }),
              ),
            ]);
          },
        })
        .command({
          command: "redelegate <src-validator-addr> <dst-validator-addr> <amount>",
          describe: "Redelegate illiquid tokens from one validator to another",
          builder: (b: Argv) => b.options(txOptions),
          handler: (a) => {
            const amount = parseCoinArgument(String(a.amount));
            return tx(a, (from) => [
              types.pack(
                MsgBeginRedelegateSchema,
                create(MsgBeginRedelegateSchema, {
                  delegatorAddress: from,
                  validatorSrcAddress: String(a["src-validator-addr"]),
                  validatorDstAddress: String(a["dst-validator-addr"]),
                  amount,
                }),
              ),
            ]);
          },
        })
        .command({
          command: "unbond <validator-addr> <amount>",
          describe: "Unbond shares from a validator",
          builder: (b: Argv) => b.options(txOptions),
          handler: (a) => {
            const amount = parseCoinArgument(String(a.amount));
            return tx(a, (from) => [
              types.pack(
                MsgUndelegateSchema,
                create(MsgUndelegateSchema, {
                  delegatorAddress: from,
                  validatorAddress: String(a["validator-addr"]),
                  amount,
                }),
              ),
            ]);
          },
        })
        .demandCommand(1, SHOW_GROUP_HELP) as never,
    handler: () => {},
  };
}
