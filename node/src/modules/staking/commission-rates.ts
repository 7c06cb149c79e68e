import { create } from "@bufbuild/protobuf";
import { type CommissionRates, CommissionRatesSchema } from "@chaind/proto/sdk/staking/v1beta1/staking_pb";
import { DEC_ONE, formatDec, formatDecWire, parseDecWire } from "../../app/dec.js";
import { StakingErrors, stakingError } from "./staking-errors.js";

/**
 * A new validator's commission rates, checked as Cosmos checks them (in its order, so the same input gets the
 * same error), and kept in the wire form every LegacyDec field of staking state has.
 */
export function checkedCommissionRates(given: CommissionRates | undefined, minRate: string): CommissionRates {
  const rate = parseDecWire(given?.rate ?? "", "commission rate");
  const maxRate = parseDecWire(given?.maxRate ?? "", "commission max rate");
  const maxChangeRate = parseDecWire(given?.maxChangeRate ?? "", "commission max change rate");
  if (maxRate < 0n) throw stakingError(StakingErrors.CommissionNegative);
  if (maxRate > DEC_ONE) throw stakingError(StakingErrors.CommissionHuge);
  if (rate < 0n) throw stakingError(StakingErrors.CommissionNegative);
  if (rate > maxRate) throw stakingError(StakingErrors.CommissionGTMaxRate);
  if (maxChangeRate < 0n) throw stakingError(StakingErrors.CommissionChangeRateNegative);
  if (maxChangeRate > maxRate) throw stakingError(StakingErrors.CommissionChangeRateGTMaxRate);
  const min = parseDecWire(minRate);
  if (rate < min)
    throw stakingError(
      StakingErrors.CommissionLTMinRate,
      `cannot set validator commission to less than minimum rate of ${formatDec(min)}`,
    );
  return create(CommissionRatesSchema, {
    rate: formatDecWire(rate),
    maxRate: formatDecWire(maxRate),
    maxChangeRate: formatDecWire(maxChangeRate),
  });
}
