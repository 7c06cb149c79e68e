import { sha256 } from "@noble/hashes/sha2.js";
import type { ChangeSet } from "./change-set.js";

function lengthPrefixed(h: ReturnType<typeof sha256.create>, bytes: Uint8Array): void {
  const len = new Uint8Array(4);
  new DataView(len.buffer).setUint32(0, bytes.length);
  h.update(len);
  h.update(bytes);
}

/**
 * sha256(previous app hash || sha256(sorted change set)). Every entry is length-prefixed and a deletion is
 * tagged apart from an empty value, so two different change sets never hash alike.
 */
export function computeAppHash(prev: Uint8Array, changes: ChangeSet): Uint8Array {
  const inner = sha256.create();
  const enc = new TextEncoder();
  for (const c of changes.entries()) {
    lengthPrefixed(inner, enc.encode(c.store));
    lengthPrefixed(inner, c.key);
    if (c.value === null) inner.update(new Uint8Array([0]));
    else {
      inner.update(new Uint8Array([1]));
      lengthPrefixed(inner, c.value);
    }
  }
  const outer = sha256.create();
  outer.update(prev);
  outer.update(inner.digest());
  return outer.digest();
}
