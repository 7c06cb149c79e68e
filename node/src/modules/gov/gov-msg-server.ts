import { create, toBinary } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { CoinSchema } from "@chaind/proto/sdk/base/v1beta1/coin_pb";
import {
  ProposalSchema,
  ProposalStatus,
  VoteOption,
  VoteSchema,
  WeightedVoteOptionSchema,
} from "@chaind/proto/sdk/gov/v1/gov_pb";
import {
  type Msg,
  MsgDepositResponseSchema,
  type MsgExecLegacyContent,
  MsgExecLegacyContentResponseSchema,
  MsgExecLegacyContentSchema,
  MsgSubmitProposalResponseSchema,
  MsgVoteResponseSchema,
  MsgVoteWeightedResponseSchema,
} from "@chaind/proto/sdk/gov/v1/tx_pb";
import { Coins } from "../../app/coins.js";
import type { Context } from "../../app/context.js";
import { DEC_ONE, formatDec, parseDec } from "../../app/dec.js";
import { KV_GAS } from "../../app/gas-meter.js";
import { msgSigners } from "../../app/msg-signers.js";
import type { ServiceImpl, ServiceRegistrar } from "../../app/service-registrar.js";
import type { TypeRegistry } from "../../app/type-registry.js";
import { GovErrors, type GovKeeper, govError } from "./gov-keeper.js";
import { legacyContent } from "./gov-legacy-content.js";
import { checkProposalContents } from "./proposal-contents.js";
import { checkDepositSize, durationMs, proposalRules } from "./proposal-rules.js";
import { checkMetadataLength, checkProposalText } from "./proposal-text-bounds.js";

/** gov's Msg service; `authority` is the gov module account, the only signer proposal messages may have. */
export function govMsgServer(
  keeper: GovKeeper,
  deps: { types: TypeRegistry; registrar: () => ServiceRegistrar; authority: string },
): ServiceImpl<typeof Msg> {
  const coins = (list: readonly { denom: string; amount: string }[]) => Coins.from(list);

  /** Starts the voting period once total deposits reach the minimum. */
  const maybeActivate = async (ctx: Context, p: ReturnType<typeof create<typeof ProposalSchema>>) => {
    if (p.status !== ProposalStatus.DEPOSIT_PERIOD) return;
    const rules = proposalRules(await keeper.getParams(ctx), p.expedited);
    if (!coins(p.totalDeposit).isAllGTE(coins(rules.minDeposit))) return;
    const start = ctx.block.time;
    const end = new Date(start.getTime() + rules.votingPeriodMs);
    keeper.queue(ctx, "inactive", timestampDate(p.depositEndTime!).getTime(), p.id, false);
    keeper.queue(ctx, "active", end.getTime(), p.id, true);
    p.status = ProposalStatus.VOTING_PERIOD;
    p.votingStartTime = timestampFromDate(start);
    p.votingEndTime = timestampFromDate(end);
    ctx.events.emit("proposal_deposit", { voting_period_start: String(p.id) });
  };

  const vote = async (
    ctx: Context,
    id: bigint,
    voter: string,
    options: { option: VoteOption; weight: string }[],
    metadata: string,
  ) => {
    keeper.addresses.fromString(voter, "voter");
    checkMetadataLength(metadata);
    let sum = 0n;
    const seen = new Set<VoteOption>();
    for (const o of options) {
      if (!(o.option in VoteOption) || o.option === VoteOption.UNSPECIFIED)
        throw govError(GovErrors.InvalidVote, String(o.option));
      if (seen.has(o.option)) throw govError(GovErrors.InvalidVote, "duplicated vote option");
      seen.add(o.option);
      const w = parseDec(o.weight, "vote weight");
      if (w <= 0n || w > DEC_ONE) throw govError(GovErrors.InvalidVote, `invalid weight ${o.weight}`);
      sum += w;
    }
    if (options.length === 0 || sum !== DEC_ONE)
      throw govError(GovErrors.InvalidVote, "total weight must be exactly 1");
    const p = await keeper.mustGetProposal(ctx, id);
    if (p.status !== ProposalStatus.VOTING_PERIOD) throw govError(GovErrors.InactiveProposal, String(id));
    keeper.setVote(
      ctx,
      create(VoteSchema, {
        proposalId: id,
        voter,
        options: options.map((o) => create(WeightedVoteOptionSchema, o)),
        metadata,
      }),
    );
    ctx.events.emit("proposal_vote", {
      option: JSON.stringify(options.map((o) => ({ option: VoteOption[o.option], weight: o.weight }))),
      proposal_id: String(id),
      voter,
    });
  };

  return {
    async submitProposal(ctx, msg) {
      const proposer = msg.proposer;
      keeper.addresses.fromString(proposer, "proposer");
      checkProposalText(msg);
      checkProposalContents(msg);
      const registrar = deps.registrar();
      for (const [i, any] of msg.messages.entries()) {
        let unpacked: ReturnType<TypeRegistry["unpack"]>;
        try {
          unpacked = deps.types.unpack(any);
        } catch (e) {
          throw govError(GovErrors.InvalidProposalMsg, `message ${i}: ${(e as Error).message}`);
        }
        if (!registrar.msgs.has(unpacked.desc.typeName))
          throw govError(GovErrors.UnroutableProposalMsg, `${any.typeUrl}`);
        const signers = msgSigners(unpacked.desc, unpacked.message, keeper.addresses);
        if (signers.length !== 1 || signers[0] !== deps.authority) throw govError(GovErrors.InvalidSigner);
        // As Cosmos: a legacy content must have a handler when it is submitted, not only when it passes.
        if (unpacked.desc.typeName === MsgExecLegacyContentSchema.typeName)
          legacyContent((unpacked.message as MsgExecLegacyContent).content, deps.types);
      }
      const params = await keeper.getParams(ctx);
      const initial = coins(msg.initialDeposit);
      const ratio = parseDec(params.minInitialDepositRatio || "0");
      if (ratio > 0n) {
        const required = coins(proposalRules(params, msg.expedited).minDeposit).list.map((c) => ({
          denom: c.denom,
          amount: (c.amount * ratio) / DEC_ONE,
        }));
        if (!initial.isAllGTE(Coins.from(required)))
          throw govError(GovErrors.MinDepositTooSmall, `was (${initial}), need (${Coins.from(required)})`);
      }
      checkDepositSize(params, msg.expedited, initial);
      const id = await keeper.nextProposalId(ctx);
      const submit = ctx.block.time;
      const depositEnd = new Date(submit.getTime() + durationMs(params.maxDepositPeriod));
      const p = create(ProposalSchema, {
        id,
        messages: msg.messages,
        status: ProposalStatus.DEPOSIT_PERIOD,
        finalTallyResult: { yesCount: "0", abstainCount: "0", noCount: "0", noWithVetoCount: "0" },
        submitTime: timestampFromDate(submit),
        depositEndTime: timestampFromDate(depositEnd),
        metadata: msg.metadata,
        title: msg.title,
        summary: msg.summary,
        proposer,
        expedited: msg.expedited,
      });
      // As Cosmos SDK 0.50: a proposal pays for its stored size three times over (cosmos-sdk#9683).
      ctx.gasMeter.consume(
        3 * KV_GAS.writeCostPerByte * toBinary(ProposalSchema, p).length,
        "submit proposal",
      );
      keeper.queue(ctx, "inactive", depositEnd.getTime(), id, true);
      ctx.events.emit("submit_proposal", {
        proposal_id: String(id),
        proposal_proposer: proposer,
        proposal_messages: `,${msg.messages.map((m) => m.typeUrl).join(",")}`,
      });
      if (!initial.isEmpty) await keeper.addDeposit(ctx, p, proposer, initial);
      await maybeActivate(ctx, p);
      keeper.setProposal(ctx, p);
      return create(MsgSubmitProposalResponseSchema, { proposalId: id });
    },
    async execLegacyContent(_ctx, msg) {
      if (msg.authority !== deps.authority)
        throw govError(GovErrors.InvalidSigner, `expected ${deps.authority} got ${msg.authority}`);
      // A TextProposal, the one legacy content there is, changes nothing when it passes.
      legacyContent(msg.content, deps.types);
      return create(MsgExecLegacyContentResponseSchema);
    },
    async deposit(ctx, msg) {
      const amount = coins(msg.amount);
      if (amount.isEmpty)
        throw govError(GovErrors.InvalidProposalContent, "deposit amount must not be empty");
      const p = await keeper.mustGetProposal(ctx, msg.proposalId);
      if (p.status !== ProposalStatus.DEPOSIT_PERIOD && p.status !== ProposalStatus.VOTING_PERIOD)
        throw govError(GovErrors.InactiveProposal, String(msg.proposalId));
      checkDepositSize(await keeper.getParams(ctx), p.expedited, amount);
      await keeper.addDeposit(ctx, p, msg.depositor, amount);
      p.totalDeposit = p.totalDeposit.map((c) => create(CoinSchema, c));
      await maybeActivate(ctx, p);
      keeper.setProposal(ctx, p);
      return create(MsgDepositResponseSchema);
    },
    async vote(ctx, msg) {
      await vote(
        ctx,
        msg.proposalId,
        msg.voter,
        [{ option: msg.option, weight: formatDec(DEC_ONE) }],
        msg.metadata,
      );
      return create(MsgVoteResponseSchema);
    },
    async voteWeighted(ctx, msg) {
      await vote(ctx, msg.proposalId, msg.voter, msg.options, msg.metadata);
      return create(MsgVoteWeightedResponseSchema);
    },
  };
}
