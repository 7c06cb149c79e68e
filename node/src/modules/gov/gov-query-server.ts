import { create } from "@bufbuild/protobuf";
import { type Proposal, ProposalStatus } from "@chaind/proto/sdk/gov/v1/gov_pb";
import {
  type Query,
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
import type { ServiceImpl } from "../../app/service-registrar.js";
import { ChainError } from "../../errors/chain-error.js";
import { SdkErrors } from "../../errors/sdk-errors.js";
import { uint64Key } from "../../store/uint-keys.js";
import type { StakingKeeper } from "../staking/staking-keeper.js";
import type { GovKeeper } from "./gov-keeper.js";
import { tallyProposal } from "./gov-tally.js";

const invalid = (why: string) => ChainError.wrap(SdkErrors.InvalidRequest, why);

/** Pages a list the Cosmos way (offset or key = the next item's index, limit default 100). */
function pageOf<T>(
  all: T[],
  req: { key: Uint8Array; offset: bigint; limit: bigint; countTotal: boolean } | undefined,
) {
  const key = req?.key ?? new Uint8Array();
  if (key.length > 0 && (req?.offset ?? 0n) > 0n)
    throw invalid("paginate: invalid request, either offset or key is expected, got both");
  // Our next_key is the next item's index as a big-endian uint64; anything else was not one of ours.
  if (key.length > 0 && key.length !== 8)
    throw invalid(`invalid pagination key: expected the 8 bytes of a next_key, got ${key.length}`);
  const start = key.length ? Number(uint64Key.decode(key)) : Number(req?.offset ?? 0n);
  const limit = Number(req?.limit || 100n);
  const items = all.slice(start, start + limit);
  const next = start + limit < all.length ? start + limit : 0;
  const nextKey = next ? uint64Key.encode(BigInt(next)) : new Uint8Array();
  return { items, pagination: { nextKey, total: req?.countTotal || !req ? BigInt(all.length) : 0n } };
}

export function govQueryServer(keeper: GovKeeper, staking: StakingKeeper): ServiceImpl<typeof Query> {
  const proposalId = (id: bigint) => {
    if (id === 0n) throw invalid("proposal id can not be 0");
    return id;
  };
  const existing = async (ctx: Context, id: bigint) => keeper.mustGetProposal(ctx, proposalId(id));
  return {
    async proposal(ctx, req) {
      return create(QueryProposalResponseSchema, { proposal: await existing(ctx, req.proposalId) });
    },
    async proposals(ctx, req) {
      const voter = req.voter ? keeper.addresses.fromString(req.voter, "voter") : undefined;
      const depositor = req.depositor ? keeper.addresses.fromString(req.depositor, "depositor") : undefined;
      const all: Proposal[] = [];
      for await (const p of keeper.proposals(ctx)) {
        if (req.proposalStatus !== ProposalStatus.UNSPECIFIED && p.status !== req.proposalStatus) continue;
        if (voter && !(await keeper.getVote(ctx, p.id, voter))) continue;
        if (depositor && !(await keeper.getDeposit(ctx, p.id, depositor))) continue;
        all.push(p);
      }
      if (req.pagination?.reverse) all.reverse();
      const { items, pagination } = pageOf(all, req.pagination);
      return create(QueryProposalsResponseSchema, { proposals: items, pagination });
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
      const all = [];
      for await (const v of keeper.votes(ctx, req.proposalId)) all.push(v);
      const { items, pagination } = pageOf(all, req.pagination);
      return create(QueryVotesResponseSchema, { votes: items, pagination });
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
      const all = [];
      for await (const d of keeper.deposits(ctx, req.proposalId)) all.push(d);
      const { items, pagination } = pageOf(all, req.pagination);
      return create(QueryDepositsResponseSchema, { deposits: items, pagination });
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
