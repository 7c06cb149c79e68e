import { lengthPrefixedBytesKey } from "../../store/bytes-key.js";
import { prefixedKey } from "../../store/prefixed-key.js";
import { timeKey } from "../../store/time-key.js";
import { tupleKey } from "../../store/tuple-key.js";

/** Delegator then validator, each length-prefixed (Cosmos' address-length prefixes), apart for good. */
const delegatorValidator = [lengthPrefixedBytesKey, lengthPrefixedBytesKey] as const;
const threeAddresses = [lengthPrefixedBytesKey, lengthPrefixedBytesKey, lengthPrefixedBytesKey] as const;

export const STAKING_STORE = "staking";

/** Key layout of the `staking` store; prefixes as in Cosmos staking. */
export const StakingKeys = {
  /** 0x21 | len | operator address -> Validator */
  validator: prefixedKey(0x21, lengthPrefixedBytesKey),
  /** 0x31 | len | delegator | len | validator -> Delegation */
  delegation: prefixedKey(0x31, tupleKey(...delegatorValidator)),
  /** 0x32 | len | delegator | len | validator -> UnbondingDelegation */
  unbonding: prefixedKey(0x32, tupleKey(...delegatorValidator)),
  /** 0x34 | delegator | source validator | destination validator -> Redelegation */
  redelegation: prefixedKey(0x34, tupleKey(...threeAddresses)),
  /** 0x36 | destination validator | delegator | source validator -> empty: who is redelegating into whom */
  redelegationByDst: prefixedKey(0x36, tupleKey(...threeAddresses)),
  /** 0x41 | completion time (ms) | len | delegator | len | validator -> empty: the unbonding queue */
  unbondingQueue: prefixedKey(0x41, tupleKey(timeKey, ...delegatorValidator)),
  /** 0x42 | completion time (ms) | delegator | source | destination -> empty: the redelegation queue */
  redelegationQueue: prefixedKey(0x42, tupleKey(timeKey, ...threeAddresses)),
  /** 0x51 -> Params */
  params: Uint8Array.of(0x51),
} as const;
