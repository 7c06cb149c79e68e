import { randomBytes } from "node:crypto";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { describe, expect, it } from "vitest";
import { secp256k1PublicKey, signSecp256k1, verifySecp256k1 } from "../../../node/src/crypto/secp256k1.js";

const N = secp256k1.Point.CURVE().n;
const priv = sha256(new TextEncoder().encode("secp256k1 test key"));
const pub = secp256k1PublicKey(priv);
const msg = new TextEncoder().encode("sign doc bytes");

function bigintOf(b: Uint8Array): bigint {
  return BigInt(`0x${Buffer.from(b).toString("hex")}`);
}

function bytes32(n: bigint): Uint8Array {
  return new Uint8Array(Buffer.from(n.toString(16).padStart(64, "0"), "hex"));
}

describe("secp256k1", () => {
  it("makes 33-byte compressed public keys", () => {
    expect(pub).toHaveLength(33);
    expect([2, 3]).toContain(pub[0]);
  });

  it("signs and verifies (64 bytes r||s, low S)", () => {
    const sig = signSecp256k1(priv, msg);
    expect(sig).toHaveLength(64);
    expect(bigintOf(sig.subarray(32)) <= N / 2n).toBe(true);
    expect(verifySecp256k1(pub, msg, sig)).toBe(true);
    expect(verifySecp256k1(pub, new TextEncoder().encode("other"), sig)).toBe(false);
    const other = secp256k1PublicKey(sha256(new TextEncoder().encode("other key")));
    expect(verifySecp256k1(other, msg, sig)).toBe(false);
  });

  it("signs sha256(signBytes), as Cosmos does", () => {
    const sig = signSecp256k1(priv, msg);
    expect(secp256k1.verify(sig, sha256(msg), pub, { prehash: false, lowS: false, format: "compact" })).toBe(
      true,
    );
  });

  it("rejects the high-S twin of a valid signature", () => {
    const sig = signSecp256k1(priv, msg);
    const high = new Uint8Array(64);
    high.set(sig.subarray(0, 32));
    high.set(bytes32(N - bigintOf(sig.subarray(32))), 32);
    // The twin is a mathematically valid ECDSA signature...
    expect(secp256k1.verify(high, sha256(msg), pub, { prehash: false, lowS: false, format: "compact" })).toBe(
      true,
    );
    // ...which Cosmos (and we) refuse, against malleability.
    expect(verifySecp256k1(pub, msg, high)).toBe(false);
  });

  it("never throws on garbage", () => {
    const sig = signSecp256k1(priv, msg);
    const cases: [Uint8Array, Uint8Array][] = [
      [pub, new Uint8Array(0)],
      [pub, new Uint8Array(63)],
      [pub, new Uint8Array(65)],
      [pub, new Uint8Array(64)],
      [pub, new Uint8Array(64).fill(0xff)],
      [pub, new Uint8Array([...bytes32(N), ...sig.subarray(32)])],
      [new Uint8Array(0), sig],
      [new Uint8Array(32), sig],
      [new Uint8Array(33), sig],
      [new Uint8Array([5, ...pub.subarray(1)]), sig],
      [new Uint8Array(33).fill(0xff), sig],
      [secp256k1.getPublicKey(priv, false), sig],
    ];
    for (let i = 0; i < 50; i++)
      cases.push([new Uint8Array(randomBytes(33)), new Uint8Array(randomBytes(64))]);
    for (const [p, s] of cases) expect(verifySecp256k1(p, msg, s)).toBe(false);
    expect(verifySecp256k1(undefined as never, msg, sig)).toBe(false);
    expect(verifySecp256k1(pub, null as never, sig)).toBe(false);
    expect(verifySecp256k1(pub, msg, "x".repeat(64) as never)).toBe(false);
  });
});
