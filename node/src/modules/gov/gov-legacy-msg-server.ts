import { create } from "@bufbuild/protobuf";
import {
  MsgDepositSchema,
  MsgExecLegacyContentSchema,
  MsgSubmitProposalSchema,
  type Msg as MsgV1,
  MsgVoteSchema,
  MsgVoteWeightedSchema,
} from "@chaind/proto/sdk/gov/v1/tx_pb";
import { TextProposalSchema } from "@chaind/proto/sdk/gov/v1beta1/gov_pb";
import {
  type Msg,
  MsgDepositResponseSchema,
  MsgSubmitProposalResponseSchema,
  MsgVoteResponseSchema,
  MsgVoteWeightedResponseSchema,
} from "@chaind/proto/sdk/gov/v1beta1/tx_pb";
import type { ServiceImpl } from "../../app/service-registrar.js";
import type { TypeRegistry } from "../../app/type-registry.js";
import { legacyContent } from "./gov-legacy-content.js";
import { legacyWeightToDec } from "./gov-legacy-convert.js";

/**
 * gov v1beta1's Msg service, as Cosmos SDK 0.50 keeps it: each message becomes its v1 counterpart and runs
 * through the v1 server, over the same state. A legacy proposal is a v1 proposal holding one
 * MsgExecLegacyContent, titled and summarized by its content. The signers (proposer, voter, depositor) are
 * the same fields as in v1, required by the ante handler from each message's signer option.
 */
export function govLegacyMsgServer(
  v1: ServiceImpl<typeof MsgV1>,
  deps: { types: TypeRegistry; authority: string },
): ServiceImpl<typeof Msg> {
  return {
    async submitProposal(ctx, msg) {
      const text = legacyContent(msg.content, deps.types);
      const exec = create(MsgExecLegacyContentSchema, {
        content: deps.types.pack(TextProposalSchema, text),
        authority: deps.authority,
      });
      const { proposalId } = await v1.submitProposal(
        ctx,
        create(MsgSubmitProposalSchema, {
          messages: [deps.types.pack(MsgExecLegacyContentSchema, exec)],
          initialDeposit: msg.initialDeposit,
          proposer: msg.proposer,
          title: text.title,
          summary: text.description,
        }),
      );
      return create(MsgSubmitProposalResponseSchema, { proposalId });
    },
    async vote(ctx, msg) {
      await v1.vote(
        ctx,
        create(MsgVoteSchema, { proposalId: msg.proposalId, voter: msg.voter, option: msg.option as number }),
      );
      return create(MsgVoteResponseSchema);
    },
    async voteWeighted(ctx, msg) {
      await v1.voteWeighted(
        ctx,
        create(MsgVoteWeightedSchema, {
          proposalId: msg.proposalId,
          voter: msg.voter,
          options: msg.options.map((o) => ({
            option: o.option as number,
            weight: legacyWeightToDec(o.weight),
          })),
        }),
      );
      return create(MsgVoteWeightedResponseSchema);
    },
    async deposit(ctx, msg) {
      await v1.deposit(
        ctx,
        create(MsgDepositSchema, {
          proposalId: msg.proposalId,
          depositor: msg.depositor,
          amount: msg.amount,
        }),
      );
      return create(MsgDepositResponseSchema);
    },
  };
}
