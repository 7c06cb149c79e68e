import { concatBytes } from "@chaind/core/bytes";
import { bytesKey } from "./bytes-key.js";
import { escapedBytesKey, escapedStringKey } from "./escaped-bytes-key.js";
import { KEYSPACE } from "./keyspaces.js";
import { prefixedKey } from "./prefixed-key.js";
import { stringKey } from "./string-key.js";
import { tupleKey } from "./tuple-key.js";
import { safeUint64Key, uint32Key } from "./uint-keys.js";

/** The state store's own key layouts (see keyspaces.ts for what each holds). */
export const StateStoreKeys = {
  /** 0x00 | "commit": the commit record. */
  meta: prefixedKey(KEYSPACE.meta, stringKey),
  /** 0x01 | esc(store) T | key: the latest value of a key. */
  latest: prefixedKey(KEYSPACE.latest, tupleKey(escapedStringKey, bytesKey)),
  /** 0x02 | esc(store) T | esc(key) T | height: one version of a key. */
  versions: prefixedKey(KEYSPACE.versions, tupleKey(escapedStringKey, escapedBytesKey, safeUint64Key)),
  /** 0x03 | height | esc(store) T | key: a key changed at a height. */
  changes: prefixedKey(KEYSPACE.changes, tupleKey(safeUint64Key, escapedStringKey, bytesKey)),
  /** 0x04 | esc(store) T | esc(key) T: a key's history head. */
  historyHeads: prefixedKey(KEYSPACE.historyHeads, tupleKey(escapedStringKey, escapedBytesKey)),
  /** 0x05 | esc(store) T | esc(key) T | level | range: a closed node of a key's history. */
  historyNodes: prefixedKey(
    KEYSPACE.historyNodes,
    tupleKey(escapedStringKey, escapedBytesKey, uint32Key, safeUint64Key),
  ),
} as const;

export const META_KEY = StateStoreKeys.meta.encode("commit");
/** The latest state's digest (state-digest.ts), written with each commit's meta record. */
export const STATE_DIGEST_KEY = StateStoreKeys.meta.encode("stateDigest");
/** The genesis document without its app state, kept at InitChain (chain/genesis-record.ts). */
export const GENESIS_KEY = StateStoreKeys.meta.encode("genesis");
/** An in-place testnet conversion the next block applies (chain/testnet-conversion-record.ts). */
export const TESTNET_CONVERSION_KEY = StateStoreKeys.meta.encode("testnetConversion");

/** The height ends a version key and has a fixed width, so a key's versions share all bytes before it. */
const HEIGHT_WIDTH = safeUint64Key.encode(0).length;

/** A version key split into the bytes every version of its key shares, and its height. */
export function splitVersionKey(full: Uint8Array): { group: Uint8Array; height: number } {
  const at = full.length - HEIGHT_WIDTH;
  return { group: full.subarray(0, at), height: safeUint64Key.decode(full.subarray(at)) };
}

/** Whether `full` is a version key of the group `group`. */
export function isVersionIn(full: Uint8Array, group: Uint8Array): boolean {
  if (full.length !== group.length + HEIGHT_WIDTH) return false;
  for (let i = 0; i < group.length; i++) if (full[i] !== group[i]) return false;
  return true;
}

/** The version key of `height` among the versions sharing `group`. */
export function versionInGroup(group: Uint8Array, height: number): Uint8Array {
  return concatBytes(group, safeUint64Key.encode(height));
}

/** The user key of a version group, after the store's prefix `storePrefix`. */
export function keyOfGroup(group: Uint8Array, storePrefix: Uint8Array): Uint8Array {
  return escapedBytesKey.decode(group.subarray(storePrefix.length));
}

/** Every change record of heights up to and including `height`. */
export function changesUpTo(height: number): { gte: Uint8Array; lt: Uint8Array } {
  return { gte: StateStoreKeys.changes.prefix, lt: StateStoreKeys.changes.prefixOf(height + 1) };
}
