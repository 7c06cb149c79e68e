import { bytesKey } from "../../store/bytes-key.js";
import { prefixedKey } from "../../store/prefixed-key.js";
import { stringKey } from "../../store/string-key.js";
import { tupleKey } from "../../store/tuple-key.js";

/** Key layout of the `bank` store; prefixes as in Cosmos bank. */
export const BankKeys = {
  /** 0x00 | denom -> total supply, decimal string */
  supply: prefixedKey(0x00, stringKey),
  /** 0x01 | denom -> Metadata (the denom's display metadata, from genesis) */
  denomMetadata: prefixedKey(0x01, stringKey),
  /** 0x02 | len(address) | address | denom -> balance, decimal string */
  balance: prefixedKey(0x02, tupleKey(bytesKey, stringKey)),
  /** 0x05 -> Params */
  params: Uint8Array.of(0x05),
} as const;
