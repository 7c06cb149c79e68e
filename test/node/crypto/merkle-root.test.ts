import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { merkleRoot } from "../../../node/src/consensus/merkle.js";
import { sha256 } from "../../../node/src/crypto/sha256.js";

const sha = (...parts: Uint8Array[]) => {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};

/** RFC 6962 as written: leaves hashed under 0x00, inner nodes under 0x01, split at the largest power of two below n. */
function rfc6962(items: Uint8Array[]): Uint8Array {
  if (items.length === 0) return sha();
  if (items.length === 1) return sha(Uint8Array.of(0), items[0]);
  let k = 1;
  while (k * 2 < items.length) k *= 2;
  return sha(Uint8Array.of(1), rfc6962(items.slice(0, k)), rfc6962(items.slice(k)));
}

describe("merkle root and sha256", () => {
  it("sha256 gives the standard digests", () => {
    expect(Buffer.from(sha256(new Uint8Array())).toString("hex")).toBe(
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    );
    expect(Buffer.from(sha256(new TextEncoder().encode("abc"))).toString("hex")).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
  });

  it("matches RFC 6962 for every size up to 70 and some larger, with items of varied length", () => {
    const items = Array.from({ length: 1100 }, (_, i) =>
      Uint8Array.from({ length: i % 41 }, (_, j) => (i * 7 + j) & 255),
    );
    for (const n of [...Array.from({ length: 71 }, (_, i) => i), 127, 128, 129, 1000, 1024, 1025, 1100])
      expect(merkleRoot(items.slice(0, n)), `${n} items`).toEqual(rfc6962(items.slice(0, n)));
  });
});
