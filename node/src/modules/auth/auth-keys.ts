import { bytesKey } from "../../store/bytes-key.js";
import { prefixedKey } from "../../store/prefixed-key.js";
import { uint64Key } from "../../store/uint-keys.js";

/** Key layout of the `acc` store; prefixes as in Cosmos auth. */
export const AuthKeys = {
  /** 0x00 -> Params */
  params: Uint8Array.of(0x00),
  /** 0x01 | address -> Any(BaseAccount | ModuleAccount) */
  account: prefixedKey(0x01, bytesKey),
  /** 0x02 -> the next account number, uint64 */
  nextAccountNumber: Uint8Array.of(0x02),
  /** 0x03 | account number (uint64) -> address */
  accountByNumber: prefixedKey(0x03, uint64Key),
} as const;
