import { bytesKey } from "../../store/bytes-key.js";
import { prefixedKey } from "../../store/prefixed-key.js";
import { tupleKey } from "../../store/tuple-key.js";
import { safeUint64Key, uint64Key } from "../../store/uint-keys.js";

/** Key layout of the `gov` store; prefixes as in Cosmos gov v1. */
export const GovKeys = {
  /** 0x00 | id -> Proposal */
  proposal: prefixedKey(0x00, uint64Key),
  /** 0x01 | voting end (ms) | id -> empty: proposals in their voting period, soonest first */
  activeQueue: prefixedKey(0x01, tupleKey(safeUint64Key, uint64Key)),
  /** 0x02 | deposit end (ms) | id -> empty: proposals still collecting deposits, soonest first */
  inactiveQueue: prefixedKey(0x02, tupleKey(safeUint64Key, uint64Key)),
  /** 0x03 -> the next proposal id, uint64 */
  nextId: Uint8Array.of(0x03),
  /** 0x10 | id | depositor -> Deposit */
  deposit: prefixedKey(0x10, tupleKey(uint64Key, bytesKey)),
  /** 0x20 | id | voter -> Vote */
  vote: prefixedKey(0x20, tupleKey(uint64Key, bytesKey)),
  /** 0x30 -> Params */
  params: Uint8Array.of(0x30),
  /** 0x31 -> the constitution, UTF-8 (absent when empty) */
  constitution: Uint8Array.of(0x31),
} as const;
