import { create } from "@bufbuild/protobuf";
import { type Timestamp, TimestampSchema } from "@bufbuild/protobuf/wkt";
import type * as v1 from "@chaind/proto/sdk/gov/v1/gov_pb";
import { type MsgExecLegacyContent, MsgExecLegacyContentSchema } from "@chaind/proto/sdk/gov/v1/tx_pb";
import {
  type Deposit,
  DepositSchema,
  type Proposal,
  ProposalSchema,
  type TallyResult,
  TallyResultSchema,
  type Vote,
  VoteSchema,
  type WeightedVoteOption,
  WeightedVoteOptionSchema,
} from "@chaind/proto/sdk/gov/v1beta1/gov_pb";
import { Coins } from "../../app/coins.js";
import { formatDec, parseDec } from "../../app/dec.js";
import type { TypeRegistry } from "../../app/type-registry.js";
import { ZERO_TIME_SECONDS } from "../../app/zero-timestamps.js";
import { ChainError } from "../../errors/chain-error.js";
import { SdkErrors } from "../../errors/sdk-errors.js";
import { GovErrors, govError } from "./gov-keeper.js";

// gov v1 state seen in gov v1beta1 shapes, as Cosmos SDK 0.50's legacy query server shows it.

/** Go's zero time, which gogoproto writes for a v1beta1 time that v1 left unset. */
const zeroTime = (): Timestamp => create(TimestampSchema, { seconds: ZERO_TIME_SECONDS });

/**
 * A v1beta1 LegacyDec on the wire is the decimal scaled by 10^18, in digits ("500000000000000000" for 0.5);
 * v1 keeps the decimal ("0.500000000000000000").
 */
export function legacyWeightToDec(atomics: string): string {
  if (!/^\d{1,40}$/.test(atomics))
    throw govError(
      GovErrors.InvalidVote,
      `invalid weight ${JSON.stringify(atomics.slice(0, 64))}: expected the digits of a Dec scaled by 10^18`,
    );
  return formatDec(BigInt(atomics));
}

export function decToLegacyDec(dec: string): string {
  return parseDec(dec).toString();
}

export function toLegacyTally(t: v1.TallyResult | undefined): TallyResult {
  // Cosmos 0.50's converter reports no_with_veto as 0; we carry the count (docs/ARCHITECTURE.md).
  return create(TallyResultSchema, {
    yes: t?.yesCount || "0",
    abstain: t?.abstainCount || "0",
    no: t?.noCount || "0",
    noWithVeto: t?.noWithVetoCount || "0",
  });
}

/**
 * A v1 proposal as a v1beta1 one. Its content is the legacy content it carries (MsgExecLegacyContent), or
 * else its message itself, so legacy clients still see what a v1 proposal does; a proposal of several
 * messages has no v1beta1 form.
 */
export function toLegacyProposal(p: v1.Proposal, types: TypeRegistry): Proposal {
  if (p.messages.length !== 1)
    throw ChainError.wrap(
      SdkErrors.InvalidType,
      `can't convert a gov/v1 Proposal to gov/v1beta1 Proposal when amount of proposal messages not exactly one (proposal ${p.id})`,
    );
  let content = p.messages[0];
  const { desc, message } = types.unpack(content);
  if (desc.typeName === MsgExecLegacyContentSchema.typeName) {
    const inner = (message as MsgExecLegacyContent).content;
    if (inner) content = inner;
  }
  return create(ProposalSchema, {
    proposalId: p.id,
    content,
    status: p.status as number,
    finalTallyResult: toLegacyTally(p.finalTallyResult),
    submitTime: p.submitTime ?? zeroTime(),
    depositEndTime: p.depositEndTime ?? zeroTime(),
    totalDeposit: Coins.from(p.totalDeposit).toProto(),
    votingStartTime: p.votingStartTime ?? zeroTime(),
    votingEndTime: p.votingEndTime ?? zeroTime(),
  });
}

export function toLegacyVoteOptions(options: readonly v1.WeightedVoteOption[]): WeightedVoteOption[] {
  return options.map((o) =>
    create(WeightedVoteOptionSchema, { option: o.option as number, weight: decToLegacyDec(o.weight) }),
  );
}

/** The deprecated single `option` stays unspecified, as in Cosmos: `options` says it all. */
export function toLegacyVote(v: v1.Vote): Vote {
  return create(VoteSchema, {
    proposalId: v.proposalId,
    voter: v.voter,
    options: toLegacyVoteOptions(v.options),
  });
}

export function toLegacyDeposit(d: v1.Deposit): Deposit {
  return create(DepositSchema, {
    proposalId: d.proposalId,
    depositor: d.depositor,
    amount: Coins.from(d.amount).toProto(),
  });
}
