import type { DescMessage, Message } from "@bufbuild/protobuf";
import { Query } from "@chaind/proto/sdk/staking/v1beta1/query_pb";
import type { Argv, CommandModule } from "yargs";
import type { HomeArgs } from "../../app/home-args.js";
import type { TypeRegistry } from "../../app/type-registry.js";
import { chainPrefix } from "../../client/chain-prefix.js";
import { SHOW_GROUP_HELP } from "../../client/cobra-errors.js";
import { type PageArgs, pageOptions, pageRequest } from "../../client/page-options.js";
import { type QueryArgs, queryOptions } from "../../client/query-options.js";
import { printMessage, runQuery } from "../../client/run-query.js";
import { checkAddress } from "../../client/tx-argument-checks.js";

type Args = QueryArgs & PageArgs & Record<string, unknown>;

/**
 * `chaind query staking ...`: the staking Query service as SDK 0.50's CLI names its commands, each printing the
 * whole response. Address arguments are checked before the node is asked.
 */
export function stakingQueryCommand(types: TypeRegistry): CommandModule<HomeArgs, QueryArgs> {
  const print = (a: Args, schema: DescMessage, msg: Message) => printMessage(a, schema, msg, types.registry);
  const account = (a: Args, name: string) => {
    const text = String(a[name]);
    checkAddress(text, chainPrefix(a.home));
    return text;
  };
  const operator = (a: Args, name: string) => {
    const text = String(a[name]);
    checkAddress(text, `${chainPrefix(a.home)}valoper`);
    return text;
  };
  const paged = (b: Argv) => b.options(pageOptions);
  return {
    command: "staking",
    describe: "Querying commands for the staking module",
    builder: (y) =>
      y
        .options(queryOptions)
        .command({
          command: "validators",
          describe: "All validators, or those of one --status",
          builder: (b: Argv) =>
            paged(b).option("status", {
              type: "string",
              describe: "BOND_STATUS_BONDED | BOND_STATUS_UNBONDING | BOND_STATUS_UNBONDED",
            }),
          handler: async (raw) => {
            const a = raw as unknown as Args;
            const r = await runQuery(a, Query.method.validators, {
              status: validatorStatus(a.status as string | undefined),
              pagination: pageRequest(a),
            });
            print(a, Query.method.validators.output, r);
          },
        })
        .command({
          command: "validator <validator-addr>",
          describe: "A validator by its operator address",
          handler: async (raw) => {
            const a = raw as unknown as Args;
            const r = await runQuery(a, Query.method.validator, {
              validatorAddr: operator(a, "validator-addr"),
            });
            print(a, Query.method.validator.output, r);
          },
        })
        .command({
          command: "delegation <delegator-addr> <validator-addr>",
          describe: "A delegation of a delegator to a validator",
          handler: async (raw) => {
            const a = raw as unknown as Args;
            const r = await runQuery(a, Query.method.delegation, {
              delegatorAddr: account(a, "delegator-addr"),
              validatorAddr: operator(a, "validator-addr"),
            });
            print(a, Query.method.delegation.output, r);
          },
        })
        .command({
          command: "delegations <delegator-addr>",
          describe: "All delegations of a delegator",
          builder: paged,
          handler: async (raw) => {
            const a = raw as unknown as Args;
            const r = await runQuery(a, Query.method.delegatorDelegations, {
              delegatorAddr: account(a, "delegator-addr"),
              pagination: pageRequest(a),
            });
            print(a, Query.method.delegatorDelegations.output, r);
          },
        })
        .command({
          command: "unbonding-delegation <delegator-addr> <validator-addr>",
          describe: "The unbonding delegation of a delegator from a validator",
          handler: async (raw) => {
            const a = raw as unknown as Args;
            const r = await runQuery(a, Query.method.unbondingDelegation, {
              delegatorAddr: account(a, "delegator-addr"),
              validatorAddr: operator(a, "validator-addr"),
            });
            print(a, Query.method.unbondingDelegation.output, r);
          },
        })
        .command({
          command: "unbonding-delegations <delegator-addr>",
          describe: "All unbonding delegations of a delegator",
          builder: paged,
          handler: async (raw) => {
            const a = raw as unknown as Args;
            const r = await runQuery(a, Query.method.delegatorUnbondingDelegations, {
              delegatorAddr: account(a, "delegator-addr"),
              pagination: pageRequest(a),
            });
            print(a, Query.method.delegatorUnbondingDelegations.output, r);
          },
        })
        .command({
          command: "redelegations <delegator-addr> [src-validator-addr] [dst-validator-addr]",
          aliases: ["redelegation"],
          describe: "The redelegations of a delegator, optionally from one validator (to another)",
          builder: paged,
          handler: async (raw) => {
            const a = raw as unknown as Args;
            const r = await runQuery(a, Query.method.redelegations, {
              delegatorAddr: account(a, "delegator-addr"),
              srcValidatorAddr: a["src-validator-addr"] ? operator(a, "src-validator-addr") : "",
              dstValidatorAddr: a["dst-validator-addr"] ? operator(a, "dst-validator-addr") : "",
              pagination: pageRequest(a),
            });
            print(a, Query.method.redelegations.output, r);
          },
        })
        .command({
          command: "pool",
          describe: "The bonded and not bonded token pools",
          handler: async (raw) => {
            const a = raw as unknown as Args;
            print(a, Query.method.pool.output, await runQuery(a, Query.method.pool, {}));
          },
        })
        .command({
          command: "params",
          describe: "Staking parameters",
          handler: async (raw) => {
            const a = raw as unknown as Args;
            print(a, Query.method.params.output, await runQuery(a, Query.method.params, {}));
          },
        })
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
