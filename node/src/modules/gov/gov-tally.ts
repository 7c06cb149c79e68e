import { create } from "@bufbuild/protobuf";
import {
  type Params,
  type TallyResult,
  TallyResultSchema,
  VoteOption,
} from "@chaind/proto/sdk/gov/v1/gov_pb";
import { BondStatus } from "@chaind/proto/sdk/staking/v1beta1/staking_pb";
import type { Context } from "../../app/context.js";
import { DEC_ONE, parseDec, parseDecWire } from "../../app/dec.js";
import type { StakingKeeper } from "../staking/staking-keeper.js";
import type { GovKeeper } from "./gov-keeper.js";

export interface TallyOutcome {
  passes: boolean;
  burnDeposits: boolean;
  tally: TallyResult;
}

/** The bonded validators by operator address (tokens and the shares they split into), and their tokens in all. */
export interface BondedValidators {
  byOperator: Map<string, { tokens: bigint; shares: bigint }>;
  totalBonded: bigint;
}

/** Reads the bonded validators: one pass over the validators, which a block's tallies can share. */
export async function bondedValidators(ctx: Context, staking: StakingKeeper): Promise<BondedValidators> {
  const byOperator = new Map<string, { tokens: bigint; shares: bigint }>();
  let totalBonded = 0n;
  for await (const v of staking.validators(ctx)) {
    if (v.status !== BondStatus.BONDED) continue;
    const tokens = BigInt(v.tokens);
    totalBonded += tokens;
    byOperator.set(v.operatorAddress, { tokens, shares: parseDecWire(v.delegatorShares) });
  }
  return { byOperator, totalBonded };
}

/**
 * Counts a proposal's votes over bonded stake as Cosmos gov v1 does: a validator votes with its bonded tokens,
 * minus the shares of delegators who voted themselves (their own vote overrides the validator's).
 * Votes are removed once counted. `bonded` is read here unless the caller has it (EndBlock reads it once for
 * all the proposals it tallies): the work is the votes' and their delegations', not the validator set's.
 */
export async function tallyProposal(
  ctx: Context,
  gov: GovKeeper,
  staking: StakingKeeper,
  proposalId: bigint,
  params: Params,
  removeVotes: boolean,
  bonded?: BondedValidators,
): Promise<TallyOutcome> {
  const { byOperator, totalBonded } = bonded ?? (await bondedValidators(ctx, staking));
  /** Per validator this tally touched: the shares of delegators who voted themselves, and its own vote. */
  const touched = new Map<
    string,
    { deductions: bigint; options?: { option: VoteOption; weight: bigint }[] }
  >();
  const touch = (operator: string) => {
    let t = touched.get(operator);
    if (!t) {
      t = { deductions: 0n };
      touched.set(operator, t);
    }
    return t;
  };
  const results = new Map<VoteOption, bigint>([
    [VoteOption.YES, 0n],
    [VoteOption.ABSTAIN, 0n],
    [VoteOption.NO, 0n],
    [VoteOption.NO_WITH_VETO, 0n],
  ]);
  // Powers are Dec-scaled (x 10^18) so weights multiply without losing precision.
  let totalVoting = 0n;
  const add = (options: { option: VoteOption; weight: bigint }[], power: bigint) => {
    for (const o of options)
      results.set(o.option, (results.get(o.option) ?? 0n) + (power * o.weight) / DEC_ONE);
    totalVoting += power;
  };
  const votes = [];
  for await (const vote of gov.votes(ctx, proposalId)) votes.push(vote);
  for (const vote of votes) {
    const options = vote.options.map((o) => ({ option: o.option, weight: parseDec(o.weight) }));
    const voterBytes = gov.addresses.fromString(vote.voter);
    const operator = staking.valoper.toString(voterBytes);
    if (byOperator.has(operator)) touch(operator).options = options;
    for await (const d of staking.delegationsOf(ctx, voterBytes)) {
      const val = byOperator.get(d.validatorAddress);
      if (!val || val.shares === 0n) continue;
      const shares = parseDecWire(d.shares);
      touch(d.validatorAddress).deductions += shares;
      add(options, (shares * val.tokens * DEC_ONE) / val.shares);
    }
    if (removeVotes) gov.deleteVote(ctx, vote);
  }
  // Validators that voted, with what their delegators did not vote themselves (sums: order does not matter).
  for (const [operator, t] of touched) {
    const val = byOperator.get(operator)!;
    if (!t.options || val.shares === 0n) continue;
    add(t.options, ((val.shares - t.deductions) * val.tokens * DEC_ONE) / val.shares);
  }
  const asInt = (v: bigint) => (v / DEC_ONE).toString();
  const tally = create(TallyResultSchema, {
    yesCount: asInt(results.get(VoteOption.YES)!),
    abstainCount: asInt(results.get(VoteOption.ABSTAIN)!),
    noCount: asInt(results.get(VoteOption.NO)!),
    noWithVetoCount: asInt(results.get(VoteOption.NO_WITH_VETO)!),
  });
  if (totalBonded === 0n) return { passes: false, burnDeposits: false, tally };
  const bondedDec = totalBonded * DEC_ONE;
  if ((totalVoting * DEC_ONE) / bondedDec < parseDec(params.quorum))
    return { passes: false, burnDeposits: params.burnVoteQuorum, tally };
  const abstain = results.get(VoteOption.ABSTAIN)!;
  if (totalVoting - abstain === 0n) return { passes: false, burnDeposits: false, tally };
  if ((results.get(VoteOption.NO_WITH_VETO)! * DEC_ONE) / totalVoting > parseDec(params.vetoThreshold))
    return { passes: false, burnDeposits: params.burnVoteVeto, tally };
  if ((results.get(VoteOption.YES)! * DEC_ONE) / (totalVoting - abstain) > parseDec(params.threshold))
    return { passes: true, burnDeposits: false, tally };
  return { passes: false, burnDeposits: false, tally };
}
