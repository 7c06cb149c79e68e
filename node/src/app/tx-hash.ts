import { sha256 } from "../crypto/sha256.js";

const hashes = new WeakMap<Uint8Array, Uint8Array>();

/**
 * A tx's hash, sha256 of its bytes, worked out once per bytes object: the RPC answer, the mempool, the block's
 * data hash, its indexes and the recheck all ask for the same tx's (the mempool hands on the object it got).
 */
export function txHash(tx: Uint8Array): Uint8Array {
  let hash = hashes.get(tx);
  if (!hash) {
    hash = sha256(tx);
    hashes.set(tx, hash);
  }
  return hash;
}
