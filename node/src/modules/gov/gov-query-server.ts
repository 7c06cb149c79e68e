import { create, fromBinary } from "@bufbuild/protobuf";
import type { PageRequest } from "@chaind/proto/sdk/base/query/v1beta1/pagination_pb";
import { DepositSchema, ProposalSchema, ProposalStatus, VoteSchema } from "@chaind/proto/sdk/gov/v1/gov_pb";
import {
  type Query,
  QueryConstitutionResponseSchema,
  QueryDepositResponseSchema,
  QueryDepositsResponseSchema,
  QueryParamsResponseSchema,
  QueryProposalResponseSchema,
  QueryProposalsResponseSchema,
  QueryTallyResultResponseSchema,
  QueryVoteResponseSchema,
  QueryVotesResponseSchema,
} from "@chaind/proto/sdk/gov/v1/query_pb";
import type { Context } from "../../app/context.js";
import { paginate, paginateSelected } from "../../app/pagination.js";
import type { ServiceImpl } from "../../app/service-registrar.js";
import { ChainError } from "../../errors/chain-error.js";
import { SdkErrors } from "../../errors/sdk-errors.js";
import type { StakingKeeper } from "../staking/staking-keeper.js";
import { GOV_STORE, type GovKeeper } from "./gov-keeper.js";
import { GovKeys } from "./gov-keys.js";
import { tallyProposal } from "./gov-tally.js";

const invalid = (why: string) => ChainError.wrap(SdkErrors.InvalidRequest, why);

/** A list request's pagination, checked: a proposal's next_key is its 8-byte id; anything else was not one of ours. */
function govPage(req: PageRequest | undefined, keyBytes?: number): PageRequest | undefined {
  const key = req?.key ?? new Uint8Array();
  if (keyBytes !== undefined && key.length > 0 && key.length !== keyBytes)
    throw invalid(`invalid pagination key: expected the ${keyBytes} bytes of a next_key, got ${key.length}`);
  return req;
}

export function govQueryServer(keeper: GovKeeper, staking: StakingKeeper): ServiceImpl<typeof Query> {
  const proposalId = (id: bigint) => {
    if (id === 0n) throw invalid("proposal id can not be 0");
    return id;
  };
  const existing = async (ctx: Context, id: bigint) => keeper.mustGetProposal(ctx, proposalId(id));
  return {
    async constitution(ctx) {
      return create(QueryConstitutionResponseSchema, { constitution: await keeper.getConstitution(ctx) });
    },
    async proposal(ctx, req) {
      return create(QueryProposalResponseSchema, { proposal: await existing(ctx, req.proposalId) });
    },
    async proposals(ctx, req) {
      const voter = req.voter ? keeper.addresses.fromString(req.voter, "voter") : undefined;
      const depositor = req.depositor ? keeper.addresses.fromString(req.depositor, "depositor") : undefined;
      const { items, page } = await paginateSelected(
        ctx.kv(GOV_STORE),
        GovKeys.proposal.prefix,
        govPage(req.pagination, 8),
        async (_id, v) => {
          const p = fromBinary(ProposalSchema, v);
          if (req.proposalStatus !== ProposalStatus.UNSPECIFIED && p.status !== req.proposalStatus) return;
          if (voter && !(await keeper.getVote(ctx, p.id, voter))) return;
          if (depositor && !(await keeper.getDeposit(ctx, p.id, depositor))) return;
          return p;
        },
      );
      return create(QueryProposalsResponseSchema, { proposals: items, pagination: page });
    },
    async vote(ctx, req) {
      proposalId(req.proposalId);
      const voter = keeper.addresses.fromString(req.voter, "voter");
      const v = await keeper.getVote(ctx, req.proposalId, voter);
      if (!v)
        throw ChainError.wrap(
          SdkErrors.NotFound,
          `voter: ${req.voter} not found for proposal: ${req.proposalId}`,
        );
      return create(QueryVoteResponseSchema, { vote: v });
    },
    async votes(ctx, req) {
      proposalId(req.proposalId);
      const { items, page } = await paginate(
        ctx.kv(GOV_STORE),
        GovKeys.vote.prefixOf(req.proposalId),
        govPage(req.pagination),
        (_voter, v) => fromBinary(VoteSchema, v),
      );
      return create(QueryVotesResponseSchema, { votes: items, pagination: page });
    },
    async params(ctx, req) {
      const p = await keeper.getParams(ctx);
      switch (req.paramsType) {
        case "voting":
          return create(QueryParamsResponseSchema, {
            votingParams: { votingPeriod: p.votingPeriod },
            params: p,
          });
        case "deposit":
          return create(QueryParamsResponseSchema, {
            depositParams: { minDeposit: p.minDeposit, maxDepositPeriod: p.maxDepositPeriod },
            params: p,
          });
        case "tallying":
          return create(QueryParamsResponseSchema, {
            tallyParams: { quorum: p.quorum, threshold: p.threshold, vetoThreshold: p.vetoThreshold },
            params: p,
          });
        default:
          throw invalid(`${req.paramsType} is not a valid parameter type`);
      }
    },
    async deposit(ctx, req) {
      proposalId(req.proposalId);
      const d = await keeper.getDeposit(
        ctx,
        req.proposalId,
        keeper.addresses.fromString(req.depositor, "depositor"),
      );
      if (!d)
        throw ChainError.wrap(
          SdkErrors.NotFound,
          `depositer: ${req.depositor} not found for proposal: ${req.proposalId}`,
        );
      return create(QueryDepositResponseSchema, { deposit: d });
    },
    async deposits(ctx, req) {
      proposalId(req.proposalId);
      const { items, page } = await paginate(
        ctx.kv(GOV_STORE),
        GovKeys.deposit.prefixOf(req.proposalId),
        govPage(req.pagination),
        (_depositor, v) => fromBinary(DepositSchema, v),
      );
      return create(QueryDepositsResponseSchema, { deposits: items, pagination: page });
    },
    async tallyResult(ctx, req) {
      const p = await existing(ctx, req.proposalId);
      if (p.status === ProposalStatus.DEPOSIT_PERIOD)
        return create(QueryTallyResultResponseSchema, {
          tally: { yesCount: "0", abstainCount: "0", noCount: "0", noWithVetoCount: "0" },
        });
      if (p.status !== ProposalStatus.VOTING_PERIOD)
        return create(QueryTallyResultResponseSchema, { tally: p.finalTallyResult });
      const { tally } = await tallyProposal(ctx, keeper, staking, p.id, await keeper.getParams(ctx), false);
      return create(QueryTallyResultResponseSchema, { tally });
    },
  };
}
