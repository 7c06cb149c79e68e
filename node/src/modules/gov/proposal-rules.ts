import type { Params } from "@chaind/proto/sdk/gov/v1/gov_pb";
import { Coins } from "../../app/coins.js";
import { DEC_ONE, parseDec } from "../../app/dec.js";
import { GovErrors, govError } from "./gov-keeper.js";

/**
 * The deposit, vote length and pass mark a proposal is held to. Expedited ones use the expedited params; a
 * genesis made before they existed leaves those unset, and then the regular ones apply.
 */
export function proposalRules(
  params: Params,
  expedited: boolean,
): { minDeposit: Params["minDeposit"]; votingPeriodMs: number; threshold: string } {
  const regular = {
    minDeposit: params.minDeposit,
    votingPeriodMs: durationMs(params.votingPeriod),
    threshold: params.threshold,
  };
  if (!expedited) return regular;
  return {
    minDeposit: params.expeditedMinDeposit.length > 0 ? params.expeditedMinDeposit : regular.minDeposit,
    votingPeriodMs: params.expeditedVotingPeriod
      ? durationMs(params.expeditedVotingPeriod)
      : regular.votingPeriodMs,
    threshold: params.expeditedThreshold || regular.threshold,
  };
}

/** A gov period in ms, nanos included (a testnet's 0.3s deposit period is 300 ms, not 0). */
export function durationMs(d: Params["votingPeriod"]): number {
  return Number(d?.seconds ?? 0n) * 1000 + Math.floor((d?.nanos ?? 0) / 1e6);
}

/** The SDK's checks of the expedited params against the regular ones (those a genesis sets). */
export function checkExpeditedParams(params: Params): void {
  const fail = (why: string) => {
    throw new Error(`gov genesis: ${why}`);
  };
  if (params.expeditedVotingPeriod) {
    const expedited = durationMs(params.expeditedVotingPeriod);
    if (expedited <= 0) fail("expedited voting period must be positive");
    if (expedited >= durationMs(params.votingPeriod))
      fail(
        `expedited voting period ${expedited / 1000}s must be strictly less that the regular voting period ${durationMs(params.votingPeriod) / 1000}s`,
      );
  }
  if (params.expeditedThreshold) {
    const expedited = parseDec(params.expeditedThreshold, "expedited threshold");
    if (expedited <= 0n) fail(`expedited vote threshold must be positive: ${params.expeditedThreshold}`);
    if (expedited > DEC_ONE) fail(`expedited vote threshold too large: ${params.expeditedThreshold}`);
    if (params.threshold && expedited <= parseDec(params.threshold))
      fail(
        `expedited vote threshold ${params.expeditedThreshold}, must be greater than the regular threshold ${params.threshold}`,
      );
  }
  if (params.expeditedMinDeposit.length > 0) {
    const expedited = Coins.from(params.expeditedMinDeposit);
    if (Coins.from(params.minDeposit).isAllGTE(expedited))
      fail(`expedited minimum deposit must be greater than minimum deposit: ${expedited}`);
  }
}

/**
 * Cosmos SDK 0.50's least deposit (min_deposit_ratio): a deposit, an initial one too, must hold at least that
 * share of the proposal's minimum deposit in one of its denoms; so no proposal is submitted for its fee alone.
 * A ratio left unset (params stored before it existed) asks nothing, as in the SDK.
 */
export function checkDepositSize(params: Params, expedited: boolean, amount: Coins): void {
  const ratio = parseDec(params.minDepositRatio || "0", "min deposit ratio");
  if (ratio === 0n) return;
  const thresholds = Coins.from(proposalRules(params, expedited).minDeposit).list.map((c) => ({
    denom: c.denom,
    amount: (c.amount * ratio) / DEC_ONE,
  }));
  const met = thresholds.some((t) => amount.list.some((c) => c.denom === t.denom && c.amount >= t.amount));
  if (!met)
    throw govError(
      GovErrors.MinDepositTooSmall,
      `received ${amount} but need at least one of the following: ${thresholds.map((t) => `${t.amount}${t.denom}`).join(",")}`,
    );
}

/** The SDK's check of min_deposit_ratio in a genesis: a decimal from 0 to 1. */
export function checkMinDepositRatio(params: Params): void {
  if (!params.minDepositRatio) return;
  const ratio = parseDec(params.minDepositRatio, "min deposit ratio");
  if (ratio < 0n)
    throw new Error(`gov genesis: min deposit ratio must not be negative: ${params.minDepositRatio}`);
  if (ratio > DEC_ONE)
    throw new Error(`gov genesis: min deposit ratio is too large: ${params.minDepositRatio}`);
}
