import { createHash, type Hash } from "node:crypto";
import type { ChangeSet } from "./change-set.js";

function lengthPrefixed(h: Hash, bytes: Uint8Array): void {
  const len = Buffer.allocUnsafe(4);
  len.writeUInt32BE(bytes.length);
  h.update(len);
  h.update(bytes);
}

const TOMBSTONE = Uint8Array.of(0);
const VALUE = Uint8Array.of(1);

/**
 * sha256(previous app hash || sha256(sorted change set)). Every entry is length-prefixed and a deletion is
 * tagged apart from an empty value, so two different change sets never hash alike.
 */
export function computeAppHash(prev: Uint8Array, changes: ChangeSet): Uint8Array {
  const inner = createHash("sha256");
  const enc = new TextEncoder();
  for (const c of changes.entries()) {
    lengthPrefixed(inner, enc.encode(c.store));
    lengthPrefixed(inner, c.key);
    if (c.value === null) inner.update(TOMBSTONE);
    else {
      inner.update(VALUE);
      lengthPrefixed(inner, c.value);
    }
  }
  const outer = createHash("sha256");
  outer.update(prev);
  outer.update(inner.digest());
  const d = outer.digest();
  return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
}
