import { create } from "@bufbuild/protobuf";
import type { Any } from "@bufbuild/protobuf/wkt";
import { validatePlanInfo } from "@chaind/core/plan-info";
import { Service as TendermintService } from "@chaind/proto/sdk/base/tendermint/v1beta1/query_pb";
import { Query as GovQuery } from "@chaind/proto/sdk/gov/v1/query_pb";
import { MsgSubmitProposalSchema } from "@chaind/proto/sdk/gov/v1/tx_pb";
import { Query } from "@chaind/proto/sdk/upgrade/v1beta1/query_pb";
import { MsgCancelUpgradeSchema, MsgSoftwareUpgradeSchema } from "@chaind/proto/sdk/upgrade/v1beta1/tx_pb";
import type { Argv, CommandModule } from "yargs";
import { AddressCodec } from "../../app/address-codec.js";
import type { HomeArgs } from "../../app/home-args.js";
import type { TypeRegistry } from "../../app/type-registry.js";
import { chainPrefix } from "../../client/chain-prefix.js";
import { CliError } from "../../client/cli-error.js";
import { SHOW_GROUP_HELP } from "../../client/cobra-errors.js";
import { parseCoinsArgument } from "../../client/coin-arguments.js";
import type { QueryArgs } from "../../client/query-options.js";
import { queryOptions } from "../../client/query-options.js";
import { nodeClient, printJson, printMessage, runQuery } from "../../client/run-query.js";
import { runTx } from "../../client/run-tx.js";
import { type TxArgs, txOptions } from "../../client/tx-options.js";
import { moduleAddress } from "../../crypto/address.js";
import { checkPlanBinaries } from "./plan-binaries-check.js";

interface ProposalArgs extends TxArgs {
  authority?: string;
  expedited: boolean;
  title: string;
  summary: string;
  deposit?: string;
  metadata: string;
}

interface SoftwareUpgradeArgs extends ProposalArgs {
  name: string;
  "upgrade-height": number;
  "upgrade-info": string;
  "checksum-required": boolean;
  validate: boolean;
  "daemon-name"?: string;
  "safety-delta": number;
}

const proposalOptions = {
  ...txOptions,
  title: { type: "string", demandOption: true, describe: "proposal title" },
  summary: { type: "string", demandOption: true, describe: "proposal summary" },
  deposit: { type: "string", describe: "initial deposit, e.g. 10000000stake" },
  metadata: { type: "string", default: "", describe: "proposal metadata (e.g. an ipfs link)" },
  expedited: {
    type: "boolean",
    default: false,
    describe: "an expedited proposal: the expedited deposit, voting period and threshold apply",
  },
  authority: {
    type: "string",
    describe: "the address the upgrade message acts for (default: the gov module account)",
  },
} as const;

/** `--authority`, checked as an address of this chain, else the gov module account under the chain's prefix. */
function authorityOf(args: ProposalArgs): string {
  const addresses = new AddressCodec(chainPrefix(args.home));
  if (args.authority === undefined) return addresses.toString(moduleAddress("gov"));
  try {
    return addresses.toString(addresses.fromString(args.authority, "--authority"));
  } catch (e) {
    throw new CliError((e as Error).message);
  }
}

/** The proposal's messages from the proposer's address; the deposit is read at once, before any node is asked. */
function proposalMsgs(args: ProposalArgs, types: TypeRegistry, inner: Any) {
  const deposit = args.deposit ? parseCoinsArgument(args.deposit) : [];
  return (from: string) => {
    const msg = create(MsgSubmitProposalSchema, {
      messages: [inner],
      initialDeposit: deposit,
      proposer: from,
      expedited: args.expedited,
      metadata: args.metadata,
      title: args.title,
      summary: args.summary,
    });
    return [types.pack(MsgSubmitProposalSchema, msg)];
  };
}

/** `chaind tx upgrade software-upgrade|cancel-software-upgrade`: governance proposals carrying upgrade messages. */
export function upgradeTxCommand(types: TypeRegistry): CommandModule<HomeArgs, TxArgs> {
  return {
    command: "upgrade",
    describe: "Upgrade transaction subcommands (governance proposals)",
    builder: (y) =>
      y
        .command({
          command: "software-upgrade <name>",
          describe: "Submit a software upgrade proposal",
          builder: (b: Argv) =>
            b
              .options(proposalOptions)
              .positional("name", { type: "string", demandOption: true })
              .option("upgrade-height", {
                type: "number",
                demandOption: true,
                describe: "height at which to upgrade",
              })
              .option("upgrade-info", {
                type: "string",
                default: "",
                describe: "plan info, typically JSON with binaries",
              })
              .option("checksum-required", {
                type: "boolean",
                default: true,
                describe: "binary URLs must carry ?checksum= (--no-checksum-required allows none)",
              })
              .option("validate", {
                type: "boolean",
                default: true,
                describe: "check --upgrade-info (--no-validate skips it)",
              })
              .option("daemon-name", {
                type: "string",
                describe:
                  "download every binary of --upgrade-info, check its checksum and that it is (or its archive holds bin/) this executable",
              })
              .option("safety-delta", {
                type: "number",
                default: 60,
                describe: "seconds of margin after the voting period (spec 8)",
              }),
          handler: async (args) => {
            const a = args as unknown as SoftwareUpgradeArgs;
            if (!Number.isSafeInteger(a["upgrade-height"]) || a["upgrade-height"] <= 0)
              throw new CliError("--upgrade-height must be a positive integer");
            const inner = types.pack(
              MsgSoftwareUpgradeSchema,
              create(MsgSoftwareUpgradeSchema, {
                authority: authorityOf(a),
                plan: { name: a.name, height: BigInt(a["upgrade-height"]), info: a["upgrade-info"] },
              }),
            );
            const msgs = proposalMsgs(a, types, inner);
            if (a.validate) await checkUpgradeInfo(a);
            await warnIfTooSoon(a);
            await runTx(a, types, msgs);
          },
        })
        .command({
          command: "cancel-software-upgrade",
          describe: "Submit a proposal to cancel the scheduled upgrade",
          builder: (b: Argv) => b.options(proposalOptions),
          handler: async (args) => {
            const a = args as unknown as ProposalArgs;
            const inner = types.pack(
              MsgCancelUpgradeSchema,
              create(MsgCancelUpgradeSchema, { authority: authorityOf(a) }),
            );
            await runTx(a, types, proposalMsgs(a, types, inner));
          },
        })
        .demandCommand(1, SHOW_GROUP_HELP) as never,
    handler: () => {},
  };
}

/**
 * As Cosmos' software-upgrade before it sends (unless --no-validate): blank info is refused with its words;
 * JSON or a document URL must be what a supervisor can use; with --daemon-name the binaries are fetched too.
 */
async function checkUpgradeInfo(a: SoftwareUpgradeArgs): Promise<void> {
  const info = a["upgrade-info"];
  if (info.trim() === "") throw new CliError("--upgrade-info: plan info must not be blank");
  try {
    const daemonName = a["daemon-name"];
    if (daemonName === undefined) validatePlanInfo(info, { requireChecksum: a["checksum-required"] });
    else await checkPlanBinaries(info, { daemonName, requireChecksum: a["checksum-required"] });
  } catch (e) {
    throw new CliError(`--upgrade-info: ${(e as Error).message}`);
  }
}

/**
 * Spec section 8: the height should leave 2 x (voting + deposit period) + a safety delta, so the upgrade can
 * still be cancelled. Warns (on stderr) when the chain's block rate says it does not.
 */
async function warnIfTooSoon(a: SoftwareUpgradeArgs): Promise<void> {
  try {
    const latest = await runQuery(a, TendermintService.method.getLatestBlock, {});
    const params = (await runQuery(a, GovQuery.method.params, { paramsType: "voting" })).params;
    const height = Number(latest.block?.header?.height ?? 0n);
    if (height < 2) return;
    const first = await runQuery(a, TendermintService.method.getBlockByHeight, {
      height: BigInt(Math.max(1, height - 20)),
    });
    const dt =
      Number(latest.block?.header?.time?.seconds ?? 0n) - Number(first.block?.header?.time?.seconds ?? 0n);
    const blocks = height - Number(first.block?.header?.height ?? 0n);
    const blockSeconds = blocks > 0 && dt > 0 ? dt / blocks : 1;
    const windowSeconds =
      2 * (Number(params?.votingPeriod?.seconds ?? 0n) + Number(params?.maxDepositPeriod?.seconds ?? 0n)) +
      a["safety-delta"];
    const needed = height + Math.ceil(windowSeconds / blockSeconds);
    if (a["upgrade-height"] < needed)
      process.stderr.write(
        `warning: upgrade height ${a["upgrade-height"]} leaves less than 2 x (voting + deposit period) + ${a["safety-delta"]}s (about height ${needed} at the current block rate); a cancellation may not pass in time\n`,
      );
  } catch {
    // The warning is advice; a node that cannot answer here will refuse the tx itself with a clear error.
  }
}

/** `chaind query upgrade plan|applied|module_versions|authority`. */
export function upgradeQueryCommand(types: TypeRegistry): CommandModule<HomeArgs, QueryArgs> {
  return {
    command: "upgrade",
    describe: "Querying commands for the upgrade module",
    builder: (y) =>
      y
        .options(queryOptions)
        .command({
          command: "plan",
          describe: "Get the upgrade plan (if one exists)",
          handler: async (a) => {
            const args = a as unknown as QueryArgs;
            const r = await runQuery(args, Query.method.currentPlan, {});
            if (!r.plan) throw new CliError("no upgrade scheduled");
            printMessage(args, Query.method.currentPlan.output.field.plan.message!, r.plan, types.registry);
          },
        })
        .command({
          command: "applied <upgrade-name>",
          describe: "Block header of the height at which a completed upgrade was applied",
          handler: async (a) => {
            const args = a as unknown as QueryArgs & { "upgrade-name": string };
            const r = await runQuery(args, Query.method.appliedPlan, { name: args["upgrade-name"] });
            if (r.height === 0n) throw new CliError(`no upgrade found with name ${args["upgrade-name"]}`);
            // The block's meta: block id, size, header fields and tx count, as the spec's CLI prints.
            const h = String(r.height);
            const chain = await nodeClient(args).call<{ block_metas: unknown[] }>("blockchain", {
              minHeight: h,
              maxHeight: h,
            });
            printJson(args, chain.block_metas[0]);
          },
        })
        .command({
          command: "module_versions [module_name]",
          describe: "Module names and their consensus versions, or one module's",
          handler: async (a) => {
            const args = a as unknown as QueryArgs & { module_name?: string };
            const r = await runQuery(args, Query.method.moduleVersions, {
              moduleName: args.module_name ?? "",
            });
            printMessage(args, Query.method.moduleVersions.output, r, types.registry);
          },
        })
        .command({
          command: "authority",
          describe: "The address allowed to schedule upgrades (the gov module account)",
          handler: async (a) => {
            const args = a as unknown as QueryArgs;
            printMessage(
              args,
              Query.method.authority.output,
              await runQuery(args, Query.method.authority, {}),
              types.registry,
            );
          },
        })
        .demandCommand(1, SHOW_GROUP_HELP) as never,
    handler: () => {},
  };
}
