import { create } from "@bufbuild/protobuf";
import { durationFromMs } from "@bufbuild/protobuf/wkt";
import * as v1q from "@chaind/proto/sdk/gov/v1/query_pb";
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
} from "@chaind/proto/sdk/gov/v1beta1/query_pb";
import type { ServiceImpl } from "../../app/service-registrar.js";
import type { TypeRegistry } from "../../app/type-registry.js";
import {
  decToLegacyDec,
  toLegacyDeposit,
  toLegacyProposal,
  toLegacyTally,
  toLegacyVote,
} from "./gov-legacy-convert.js";

const bytesOf = (legacyDec: string) => new TextEncoder().encode(legacyDec);

/**
 * gov v1beta1's Query service, as Cosmos SDK 0.50 keeps it: each query asks the v1 server (same state, same
 * checks and errors) and converts its answer to the v1beta1 shapes.
 */
export function govLegacyQueryServer(
  v1: ServiceImpl<typeof v1q.Query>,
  types: TypeRegistry,
): ServiceImpl<typeof Query> {
  return {
    async proposal(ctx, req) {
      const { proposal } = await v1.proposal(
        ctx,
        create(v1q.QueryProposalRequestSchema, { proposalId: req.proposalId }),
      );
      return create(QueryProposalResponseSchema, {
        proposal: proposal && toLegacyProposal(proposal, types),
      });
    },
    async proposals(ctx, req) {
      const res = await v1.proposals(
        ctx,
        create(v1q.QueryProposalsRequestSchema, {
          proposalStatus: req.proposalStatus as number,
          voter: req.voter,
          depositor: req.depositor,
          pagination: req.pagination,
        }),
      );
      return create(QueryProposalsResponseSchema, {
        proposals: res.proposals.map((p) => toLegacyProposal(p, types)),
        pagination: res.pagination,
      });
    },
    async vote(ctx, req) {
      const { vote } = await v1.vote(
        ctx,
        create(v1q.QueryVoteRequestSchema, { proposalId: req.proposalId, voter: req.voter }),
      );
      return create(QueryVoteResponseSchema, { vote: vote && toLegacyVote(vote) });
    },
    async votes(ctx, req) {
      const res = await v1.votes(
        ctx,
        create(v1q.QueryVotesRequestSchema, { proposalId: req.proposalId, pagination: req.pagination }),
      );
      return create(QueryVotesResponseSchema, {
        votes: res.votes.map(toLegacyVote),
        pagination: res.pagination,
      });
    },
    async params(ctx, req) {
      // v1 refuses an unknown params_type; Cosmos fills the asked one and leaves the others at zero values.
      const { params: p } = await v1.params(
        ctx,
        create(v1q.QueryParamsRequestSchema, { paramsType: req.paramsType }),
      );
      const res = create(QueryParamsResponseSchema, {
        votingParams: { votingPeriod: durationFromMs(0) },
        depositParams: { minDeposit: [], maxDepositPeriod: durationFromMs(0) },
        tallyParams: { quorum: bytesOf("0"), threshold: bytesOf("0"), vetoThreshold: bytesOf("0") },
      });
      if (!p) return res;
      if (req.paramsType === "voting")
        res.votingParams = { ...res.votingParams!, votingPeriod: p.votingPeriod };
      if (req.paramsType === "deposit")
        res.depositParams = {
          ...res.depositParams!,
          minDeposit: p.minDeposit,
          maxDepositPeriod: p.maxDepositPeriod,
        };
      if (req.paramsType === "tallying")
        res.tallyParams = {
          ...res.tallyParams!,
          quorum: bytesOf(decToLegacyDec(p.quorum)),
          threshold: bytesOf(decToLegacyDec(p.threshold)),
          vetoThreshold: bytesOf(decToLegacyDec(p.vetoThreshold)),
        };
      return res;
    },
    async deposit(ctx, req) {
      const { deposit } = await v1.deposit(
        ctx,
        create(v1q.QueryDepositRequestSchema, { proposalId: req.proposalId, depositor: req.depositor }),
      );
      return create(QueryDepositResponseSchema, { deposit: deposit && toLegacyDeposit(deposit) });
    },
    async deposits(ctx, req) {
      const res = await v1.deposits(
        ctx,
        create(v1q.QueryDepositsRequestSchema, { proposalId: req.proposalId, pagination: req.pagination }),
      );
      return create(QueryDepositsResponseSchema, {
        deposits: res.deposits.map(toLegacyDeposit),
        pagination: res.pagination,
      });
    },
    async tallyResult(ctx, req) {
      const { tally } = await v1.tallyResult(
        ctx,
        create(v1q.QueryTallyResultRequestSchema, { proposalId: req.proposalId }),
      );
      return create(QueryTallyResultResponseSchema, { tally: toLegacyTally(tally) });
    },
  };
}
