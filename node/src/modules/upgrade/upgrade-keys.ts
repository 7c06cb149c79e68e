import { prefixedKey } from "../../store/prefixed-key.js";
import { stringKey } from "../../store/string-key.js";
import { tupleKey } from "../../store/tuple-key.js";
import { uint64Key } from "../../store/uint-keys.js";

/** Key layout of the `upgrade` store; prefixes as in Cosmos x/upgrade. */
export const UpgradeKeys = {
  /** 0x00 -> Plan */
  plan: Uint8Array.of(0x00),
  /** 0x01 | height | name -> height (uint64): done markers, in height order */
  done: prefixedKey(0x01, tupleKey(uint64Key, stringKey)),
  /** 0x02 | module name -> consensus version (uint64) */
  versions: prefixedKey(0x02, stringKey),
  /** 0x03 -> protocol version (uint64) */
  protocol: Uint8Array.of(0x03),
  /**
   * 0x10 | name -> Plan: each applied plan whole (ours; the SDK keeps only the height), so a binary that finds the
   * chain past an upgrade it lacks (a node state-synced past it) can hand the plan's binary to its supervisor.
   */
  appliedPlans: prefixedKey(0x10, stringKey),
} as const;
