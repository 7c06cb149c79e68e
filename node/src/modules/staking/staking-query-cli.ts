import type { DescMessage } from "@bufbuild/protobuf";
import { Query } from "@chaind/proto/sdk/staking/v1beta1/query_pb";
import type { CommandModule } from "yargs";
import type { HomeArgs } from "../../app/home-args.js";
import type { TypeRegistry } from "../../app/type-registry.js";
import { SHOW_GROUP_HELP } from "../../client/cobra-errors.js";
import { type QueryArgs, queryOptions } from "../../client/query-options.js";
import {
  addressArgument,
  type ServiceQueryArgs,
  type ServiceQuerySpec,
  serviceQueryCommand,
} from "../../client/service-query-command.js";

/**
 * `chaind query staking ...`: the staking Query service as SDK 0.50's CLI names its commands, each printing the
 * whole response. Address arguments are checked before the node is asked.
 */
export function stakingQueryCommand(types: TypeRegistry): CommandModule<HomeArgs, QueryArgs> {
  const account = (a: ServiceQueryArgs, name: string) => addressArgument(a, name);
  const operator = (a: ServiceQueryArgs, name: string) => addressArgument(a, name, "valoper");
  const leaf = <I extends DescMessage, O extends DescMessage>(spec: ServiceQuerySpec<I, O>) =>
    serviceQueryCommand(types, spec);
  return {
    command: "staking",
    describe: "Querying commands for the staking module",
    builder: (y) =>
      y
        .options(queryOptions)
        .command(
          leaf({
            command: "validators",
            describe: "All validators, or those of one --status",
            method: Query.method.validators,
            paged: true,
            options: (b) =>
              b.option("status", {
                type: "string",
                describe: "BOND_STATUS_BONDED | BOND_STATUS_UNBONDING | BOND_STATUS_UNBONDED",
              }),
            request: (a) => ({ status: validatorStatus(a.status as string | undefined) }),
          }),
        )
        .command(
          leaf({
            command: "validator <validator-addr>",
            describe: "A validator by its operator address",
            method: Query.method.validator,
            request: (a) => ({ validatorAddr: operator(a, "validator-addr") }),
          }),
        )
        .command(
          leaf({
            command: "delegation <delegator-addr> <validator-addr>",
            describe: "A delegation of a delegator to a validator",
            method: Query.method.delegation,
            request: (a) => ({
              delegatorAddr: account(a, "delegator-addr"),
              validatorAddr: operator(a, "validator-addr"),
            }),
          }),
        )
        .command(
          leaf({
            command: "delegations <delegator-addr>",
            describe: "All delegations of a delegator",
            method: Query.method.delegatorDelegations,
            paged: true,
            request: (a) => ({ delegatorAddr: account(a, "delegator-addr") }),
          }),
        )
        .command(
          leaf({
            command: "unbonding-delegation <delegator-addr> <validator-addr>",
            describe: "The unbonding delegation of a delegator from a validator",
            method: Query.method.unbondingDelegation,
            request: (a) => ({
              delegatorAddr: account(a, "delegator-addr"),
              validatorAddr: operator(a, "validator-addr"),
            }),
          }),
        )
        .command(
          leaf({
            command: "unbonding-delegations <delegator-addr>",
            describe: "All unbonding delegations of a delegator",
            method: Query.method.delegatorUnbondingDelegations,
            paged: true,
            request: (a) => ({ delegatorAddr: account(a, "delegator-addr") }),
          }),
        )
        .command(
          leaf({
            command: "redelegations <delegator-addr> [src-validator-addr] [dst-validator-addr]",
            aliases: ["redelegation"],
            describe: "The redelegations of a delegator, optionally from one validator (to another)",
            method: Query.method.redelegations,
            paged: true,
            request: (a) => ({
              delegatorAddr: account(a, "delegator-addr"),
              srcValidatorAddr: a["src-validator-addr"] ? operator(a, "src-validator-addr") : "",
              dstValidatorAddr: a["dst-validator-addr"] ? operator(a, "dst-validator-addr") : "",
            }),
          }),
        )
        .command(
          leaf({
            command: "pool",
            describe: "The bonded and not bonded token pools",
            method: Query.method.pool,
            request: () => ({}),
          }),
        )
        .command(
          leaf({
            command: "params",
            describe: "Staking parameters",
            method: Query.method.params,
            request: () => ({}),
          }),
        )
        .demandCommand(1, SHOW_GROUP_HELP) as never,
    handler: () => {},
  };
}

/** `bonded` or `BOND_STATUS_BONDED` (what the node takes); other text goes to the node, which names the error. */
function validatorStatus(status: string | undefined): string {
  if (!status) return "";
  const short = /^(bonded|unbonding|unbonded)$/i.exec(status);
  return short ? `BOND_STATUS_${short[1].toUpperCase()}` : status;
}
