import { ChainError, type ErrorDef } from "../../errors/chain-error.js";
import { GrpcCode } from "../../errors/grpc-code.js";

const def = (code: number, desc: string): ErrorDef => ({
  codespace: "staking",
  code,
  desc,
  grpc: GrpcCode.INVALID_ARGUMENT,
});

/** x/staking's registered errors that this node raises (Cosmos codes and texts). */
export const StakingErrors = {
  CommissionNegative: def(9, "commission must be positive"),
  CommissionHuge: def(10, "commission cannot be more than 100%"),
  CommissionGTMaxRate: def(11, "commission cannot be more than the max rate"),
  CommissionChangeRateNegative: def(13, "commission change rate must be positive"),
  CommissionChangeRateGTMaxRate: def(14, "commission change rate cannot be more than the max rate"),
  CommissionLTMinRate: def(40, "commission cannot be less than min rate"),
  SelfRedelegation: def(29, "cannot redelegate to the same validator"),
  BadRedelegationDst: def(31, "redelegation destination validator not found"),
  TransitiveRedelegation: def(
    32,
    "redelegation to this validator already in progress; first redelegation to this validator must complete before next redelegation",
  ),
  MaxRedelegationEntries: def(
    33,
    "too many redelegation entries for (delegator, src-validator, dst-validator) tuple",
  ),
};

export const stakingError = (d: ErrorDef, detail?: string) => ChainError.wrap(d, detail);
