import { bytesKey } from "../store/bytes-key.js";
import { BLOCK_STORE_KEYSPACES } from "../store/keyspaces.js";
import { prefixedKey } from "../store/prefixed-key.js";
import { stringKey } from "../store/string-key.js";
import { tupleKey } from "../store/tuple-key.js";
import { safeUint64Key, uint32Key } from "../store/uint-keys.js";

const { blocks, blockMetas, blockHashes, results, txIndex, txEvents } = BLOCK_STORE_KEYSPACES;

/** Where a committed tx lives: height (8 bytes) | index in its block (4 bytes). */
export const txLocationCodec = tupleKey(safeUint64Key, uint32Key);

/** The block store's key layouts (see keyspaces.ts for what each holds). */
export const BlockStoreKeys = {
  /** 0x10 | height */
  blocks: prefixedKey(blocks, safeUint64Key),
  /** 0x11 | height */
  blockMetas: prefixedKey(blockMetas, safeUint64Key),
  /** 0x12 | block hash -> height (8 bytes) */
  blockHashes: prefixedKey(blockHashes, bytesKey),
  /** 0x13 | height */
  results: prefixedKey(results, safeUint64Key),
  /** 0x14 | tx hash -> tx location */
  txIndex: prefixedKey(txIndex, bytesKey),
  /** 0x15 | "type.key" 0x00 | value 0x00 | height -> indexes: a block's txs with an indexed event attribute */
  txEvents: prefixedKey(txEvents, tupleKey(stringKey, stringKey, safeUint64Key)),
} as const;
