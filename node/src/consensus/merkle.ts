import { concatBytes } from "@chaind/core/bytes";
import { sha256 } from "../crypto/sha256.js";

/** RFC 6962 Merkle root, the tree CometBFT uses for data and results hashes. */
export function merkleRoot(items: readonly Uint8Array[]): Uint8Array {
  if (items.length === 0) return sha256(new Uint8Array());
  if (items.length === 1) return sha256(concatBytes(new Uint8Array([0]), items[0]));
  let split = 1;
  while (split * 2 < items.length) split *= 2;
  return sha256(
    concatBytes(new Uint8Array([1]), merkleRoot(items.slice(0, split)), merkleRoot(items.slice(split))),
  );
}
