import { sha256 } from "../crypto/sha256.js";

const LEAF = 0;
const INNER = 1;

/** RFC 6962 Merkle root, the tree CometBFT uses for data and results hashes. */
export function merkleRoot(items: readonly Uint8Array[]): Uint8Array {
  if (items.length === 0) return sha256(new Uint8Array());
  return subtreeRoot(items, 0, items.length, new Uint8Array(1 + 2 * 32));
}

/**
 * The root of items[from, to): split at the largest power of two below the count. Walks index ranges rather
 * than sliced arrays, and builds each inner node's input in one scratch buffer (a block has thousands).
 */
function subtreeRoot(items: readonly Uint8Array[], from: number, to: number, inner: Uint8Array): Uint8Array {
  const n = to - from;
  if (n === 1) {
    const item = items[from];
    const leaf = new Uint8Array(1 + item.length);
    leaf[0] = LEAF;
    leaf.set(item, 1);
    return sha256(leaf);
  }
  let split = 1;
  while (split * 2 < n) split *= 2;
  const left = subtreeRoot(items, from, from + split, inner);
  const right = subtreeRoot(items, from + split, to, inner);
  inner[0] = INNER;
  inner.set(left, 1);
  inner.set(right, 33);
  return sha256(inner);
}
