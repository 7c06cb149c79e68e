import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { secp256k1PublicKey, signSecp256k1 } from "../../../node/src/crypto/secp256k1.js";
import { sha256 } from "../../../node/src/crypto/sha256.js";
import { VerifiedSignatures, verificationPreimage } from "../../../node/src/crypto/verified-signatures.js";
import { rangeReadId, valueReadId } from "../../../node/src/store/read-ids.js";

const priv = sha256(new TextEncoder().encode("verified signatures key"));
const pub = secp256k1PublicKey(priv);

/** Two triples cut from one byte string at different places: what a join without lengths confuses. */
const splitTriples = fc
  .tuple(fc.uint8Array({ maxLength: 40 }), fc.nat(40), fc.nat(40), fc.nat(40), fc.nat(40))
  .map(([all, a1, b1, a2, b2]) => {
    const cut = (a: number, b: number) => {
      const i = Math.min(a, all.length);
      const j = Math.min(i + b, all.length);
      return [all.slice(0, i), all.slice(j), all.slice(i, j)] as const; // key, signed bytes, signature
    };
    return [cut(a1, b1), cut(a2, b2)] as const;
  });

const same = (a: readonly Uint8Array[], b: readonly Uint8Array[]) =>
  a.every((x, i) => Buffer.from(x).equals(Buffer.from(b[i])));

describe("verified signatures", () => {
  it("never names two distinct (key, signature, signed bytes) triples alike", () => {
    fc.assert(
      fc.property(splitTriples, ([t1, t2]) => {
        const p1 = verificationPreimage(t1[0], t1[1], t1[2]);
        const p2 = verificationPreimage(t2[0], t2[1], t2[2]);
        expect(p1.equals(p2)).toBe(same(t1, t2));
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 40 }),
        fc.uint8Array({ maxLength: 70 }),
        fc.uint8Array({ maxLength: 40 }),
        fc.uint8Array({ maxLength: 40 }),
        fc.uint8Array({ maxLength: 70 }),
        fc.uint8Array({ maxLength: 40 }),
        (k1, s1, b1, k2, s2, b2) => {
          const p1 = verificationPreimage(k1, b1, s1);
          const p2 = verificationPreimage(k2, b2, s2);
          expect(p1.equals(p2)).toBe(same([k1, s1, b1], [k2, s2, b2]));
        },
      ),
    );
  });

  it("refuses a signature that carries the start of its signed bytes, once the real one is remembered", () => {
    const signBytes = new TextEncoder().encode("prefix the attacker moves into the signature|the rest");
    const sig = signSecp256k1(priv, signBytes);
    const verified = new VerifiedSignatures();
    verified.remember(pub, signBytes, sig);
    expect(verified.verify(pub, signBytes, sig)).toBe(true);
    for (const cut of [1, 10, 45]) {
      const longSig = new Uint8Array([...sig, ...signBytes.subarray(0, cut)]);
      expect(verified.verify(pub, signBytes.subarray(cut), longSig)).toBe(false);
      // Remembering such a triple (a thread answer for it) is refused too.
      verified.remember(pub, signBytes.subarray(cut), longSig);
      expect(verified.verify(pub, signBytes.subarray(cut), longSig)).toBe(false);
    }
    // A key of the wrong size, with the signature's first byte moved into it.
    expect(verified.verify(new Uint8Array([...pub, sig[0]]), signBytes, sig.subarray(1))).toBe(false);
  });
});

describe("state store read ids", () => {
  const maybeBytes = fc.option(fc.uint8Array({ maxLength: 6 }), { nil: undefined });
  const range = fc.record({
    store: fc.constantFrom("bank", "bank\0", "b", "auth"),
    height: fc.option(fc.nat(3), { nil: undefined }),
    prefix: maybeBytes,
    start: maybeBytes,
    end: maybeBytes,
    reverse: fc.boolean(),
  });
  const describeRange = (r: object) =>
    JSON.stringify(r, (_, v) => (v instanceof Uint8Array ? [...v] : v === undefined ? "absent" : v));

  it("names distinct ranges apart (a NUL in a prefix, start or end, an empty part or an absent one)", () => {
    fc.assert(
      fc.property(range, range, (a, b) => {
        const same = describeRange(a) === describeRange(b);
        expect(rangeReadId(a.store, a, a.height) === rangeReadId(b.store, b, b.height)).toBe(same);
      }),
      { numRuns: 5000 },
    );
    // The collision the old join allowed: prefix "a\0" with no start, and prefix "a" with start "\0".
    const nul = Uint8Array.of(0);
    expect(rangeReadId("bank", { prefix: Uint8Array.of(97, 0) })).not.toBe(
      rangeReadId("bank", { prefix: Uint8Array.of(97), start: nul }),
    );
  });

  it("names distinct values apart", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("bank", "bank\0", "b"),
        fc.uint8Array({ maxLength: 4 }),
        fc.option(fc.nat(3), { nil: undefined }),
        fc.constantFrom("bank", "bank\0", "b"),
        fc.uint8Array({ maxLength: 4 }),
        fc.option(fc.nat(3), { nil: undefined }),
        (s1, k1, h1, s2, k2, h2) => {
          const same = s1 === s2 && Buffer.from(k1).equals(Buffer.from(k2)) && h1 === h2;
          expect(valueReadId(s1, k1, h1) === valueReadId(s2, k2, h2)).toBe(same);
        },
      ),
    );
  });
});
