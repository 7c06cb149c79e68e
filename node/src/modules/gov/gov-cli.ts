import { readFileSync } from "node:fs";
import { create, type JsonValue } from "@bufbuild/protobuf";
import { AnySchema } from "@bufbuild/protobuf/wkt";
import { ProposalStatus, VoteOption } from "@chaind/proto/sdk/gov/v1/gov_pb";
import { Query } from "@chaind/proto/sdk/gov/v1/query_pb";
import {
  MsgDepositSchema,
  MsgSubmitProposalSchema,
  MsgVoteSchema,
  MsgVoteWeightedSchema,
} from "@chaind/proto/sdk/gov/v1/tx_pb";
import type { Argv, CommandModule } from "yargs";
import type { HomeArgs } from "../../app/home-args.js";
import { fromProtoJson } from "../../app/proto-json.js";
import type { TypeRegistry } from "../../app/type-registry.js";
import { CliError } from "../../client/cli-error.js";
import { SHOW_GROUP_HELP } from "../../client/cobra-errors.js";
import { parseCoinsArgument } from "../../client/coin-arguments.js";
import { type QueryArgs, queryOptions } from "../../client/query-options.js";
import { printMessage, runQuery } from "../../client/run-query.js";
import { runTx } from "../../client/run-tx.js";
import { type TxArgs, txOptions } from "../../client/tx-options.js";

const proposalId = (raw: unknown) => {
  if (!/^\d+$/.test(String(raw)))
    throw new CliError(`proposal-id ${JSON.stringify(raw)} is not a valid uint`);
  return BigInt(String(raw));
};

/** yes | no | abstain | no_with_veto (or VOTE_OPTION_* / a number), as Cosmos' CLI accepts. */
function voteOption(raw: string): VoteOption {
  const key = raw
    .trim()
    .toUpperCase()
    .replace(/^VOTE_OPTION_/, "");
  const byName = (VoteOption as unknown as Record<string, VoteOption>)[key];
  const value = /^\d+$/.test(key) ? Number(key) : byName;
  if (value === undefined || value === VoteOption.UNSPECIFIED || !(value in VoteOption))
    throw new CliError(`invalid vote option ${JSON.stringify(raw)}: use yes, no, abstain or no_with_veto`);
  return value as VoteOption;
}

export function govTxCommand(types: TypeRegistry): CommandModule<HomeArgs, TxArgs> {
  const tx = (a: unknown, build: (from: string) => ReturnType<TypeRegistry["pack"]>[]) =>
    runTx(a as TxArgs, types, build);
  return {
    command: "gov",
    describe: "Governance transactions subcommands",
    builder: (y) =>
      y
        .command({
          command: "submit-proposal <proposal-file>",
          describe:
            "Submit a proposal from a JSON file {messages, metadata, deposit, title, summary, expedited}",
          builder: (b: Argv) => b.options(txOptions),
          handler: (a) => {
            const file = String(a["proposal-file"]);
            let doc: {
              messages?: JsonValue[];
              metadata?: string;
              deposit?: string;
              title?: string;
              summary?: string;
              expedited?: boolean;
            };
            try {
              doc = JSON.parse(readFileSync(file, "utf8"));
            } catch (e) {
              throw new CliError(`cannot read proposal file ${file}: ${(e as Error).message}`);
            }
            const messages = (doc.messages ?? []).map((m, i) => {
              try {
                return fromProtoJson(AnySchema, m, types);
              } catch (e) {
                throw new CliError(`proposal file: message ${i}: ${(e as Error).message}`);
              }
            });
            return tx(a, (from) => [
              types.pack(
                MsgSubmitProposalSchema,
                create(MsgSubmitProposalSchema, {
                  messages,
                  initialDeposit: doc.deposit ? parseCoinsArgument(doc.deposit) : [],
                  proposer: from,
                  metadata: doc.metadata ?? "",
                  title: doc.title ?? "",
                  summary: doc.summary ?? "",
                  expedited: doc.expedited ?? false,
                }),
              ),
            ]);
          },
        })
        .command({
          command: "deposit <proposal-id> <deposit>",
          describe: "Deposit tokens for an active proposal",
          builder: (b: Argv) => b.options(txOptions),
          handler: (a) =>
            tx(a, (from) => [
              types.pack(
                MsgDepositSchema,
                create(MsgDepositSchema, {
                  proposalId: proposalId(a["proposal-id"]),
                  depositor: from,
                  amount: parseCoinsArgument(String(a.deposit)),
                }),
              ),
            ]),
        })
        .command({
          command: "vote <proposal-id> <option>",
          describe: "Vote for an active proposal: yes, no, abstain or no_with_veto",
          builder: (b: Argv) => b.options(txOptions).option("metadata", { type: "string", default: "" }),
          handler: (a) =>
            tx(a, (from) => [
              types.pack(
                MsgVoteSchema,
                create(MsgVoteSchema, {
                  proposalId: proposalId(a["proposal-id"]),
                  voter: from,
                  option: voteOption(String(a.option)),
                  metadata: String(a.metadata),
                }),
              ),
            ]),
        })
        .command({
          command: "weighted-vote <proposal-id> <weighted-options>",
          describe: "Vote with weights, e.g. yes=0.6,no=0.3,abstain=0.1",
          builder: (b: Argv) => b.options(txOptions).option("metadata", { type: "string", default: "" }),
          handler: (a) => {
            const options = String(a["weighted-options"])
              .split(",")
              .map((part) => {
                const [opt, weight] = part.split("=");
                if (!weight)
                  throw new CliError(`invalid weighted option ${JSON.stringify(part)}: use option=weight`);
                return { option: voteOption(opt), weight: weight.trim() };
              });
            return tx(a, (from) => [
              types.pack(
                MsgVoteWeightedSchema,
                create(MsgVoteWeightedSchema, {
                  proposalId: proposalId(a["proposal-id"]),
                  voter: from,
                  options,
                  metadata: String(a.metadata),
                }),
              ),
            ]);
          },
        })
        .demandCommand(1, SHOW_GROUP_HELP) as never,
    handler: () => {},
  };
}

export function govQueryCommand(types: TypeRegistry): CommandModule<HomeArgs, QueryArgs> {
  const q = (a: unknown) => a as QueryArgs;
  return {
    command: "gov",
    describe: "Querying commands for the governance module",
    builder: (y) =>
      y
        .options(queryOptions)
        .command({
          command: "proposal <proposal-id>",
          describe: "Details of a proposal",
          handler: async (a) => {
            const r = await runQuery(q(a), Query.method.proposal, {
              proposalId: proposalId(a["proposal-id"]),
            });
            printMessage(q(a), Query.method.proposal.output, r, types.registry);
          },
        })
        .command({
          command: "proposals",
          describe: "Proposals, optionally filtered by --status, --voter, --depositor",
          builder: (b: Argv) =>
            b
              .option("status", {
                type: "string",
                describe: "deposit_period | voting_period | passed | rejected | failed",
              })
              .option("voter", { type: "string" })
              .option("depositor", { type: "string" }),
          handler: async (a) => {
            let status = ProposalStatus.UNSPECIFIED;
            if (a.status) {
              const key = String(a.status)
                .toUpperCase()
                .replace(/^PROPOSAL_STATUS_/, "");
              status = (ProposalStatus as unknown as Record<string, ProposalStatus>)[key];
              if (status === undefined)
                throw new CliError(`invalid proposal status ${JSON.stringify(a.status)}`);
            }
            const r = await runQuery(q(a), Query.method.proposals, {
              proposalStatus: status,
              voter: (a.voter as string) ?? "",
              depositor: (a.depositor as string) ?? "",
            });
            printMessage(q(a), Query.method.proposals.output, r, types.registry);
          },
        })
        .command({
          command: "votes <proposal-id>",
          describe: "Votes on a proposal",
          handler: async (a) => {
            const r = await runQuery(q(a), Query.method.votes, { proposalId: proposalId(a["proposal-id"]) });
            printMessage(q(a), Query.method.votes.output, r, types.registry);
          },
        })
        .command({
          command: "tally <proposal-id>",
          describe: "The tally of a proposal's votes",
          handler: async (a) => {
            const r = await runQuery(q(a), Query.method.tallyResult, {
              proposalId: proposalId(a["proposal-id"]),
            });
            printMessage(q(a), Query.method.tallyResult.output, r, types.registry);
          },
        })
        .command({
          command: "params",
          describe: "Governance parameters",
          handler: async (a) => {
            const r = await runQuery(q(a), Query.method.params, { paramsType: "tallying" });
            printMessage(q(a), Query.method.params.output.field.params.message!, r.params!, types.registry);
          },
        })
        .demandCommand(1, SHOW_GROUP_HELP) as never,
    handler: () => {},
  };
}
