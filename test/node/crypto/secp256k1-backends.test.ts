import { createHash, randomBytes } from "node:crypto";
import { secp256k1 as noble } from "@noble/curves/secp256k1.js";
import { describe, expect, it } from "vitest";
import {
  secp256k1Backend,
  selectSecp256k1,
  signSecp256k1,
  verifySecp256k1,
} from "../../../node/src/crypto/secp256k1.js";
import { loadSecp256k1Binding } from "../../../node/src/crypto/secp256k1-binding.js";

const native = loadSecp256k1Binding();
const sha256 = (b: Uint8Array) => new Uint8Array(createHash("sha256").update(b).digest());
const compact = { prehash: false, lowS: true, format: "compact" } as const;

describe("secp256k1 through libsecp256k1 and @noble/curves", () => {
  it("uses the prebuilt libsecp256k1 binding on this machine", () => {
    expect(secp256k1Backend()).toBe("libsecp256k1");
  });

  it("gives byte-identical keys and signatures, each verifying under the other", () => {
    for (let i = 0; i < 50; i++) {
      const priv = new Uint8Array(randomBytes(32));
      const doc = new Uint8Array(randomBytes(1 + i * 7));
      const digest = sha256(doc);
      const nativePub = native.publicKeyCreate(priv, true);
      expect(Buffer.from(nativePub)).toEqual(Buffer.from(noble.getPublicKey(priv, true)));

      const byNative = native.ecdsaSign(digest, priv).signature;
      const byNoble = noble.sign(digest, priv, compact);
      expect(Buffer.from(byNative)).toEqual(Buffer.from(byNoble));
      expect(noble.verify(byNative, digest, nativePub, compact)).toBe(true);
      expect(native.ecdsaVerify(byNoble, digest, nativePub)).toBe(true);
      // The module's own sign and verify agree with both.
      expect(Buffer.from(signSecp256k1(priv, doc))).toEqual(Buffer.from(byNoble));
      expect(verifySecp256k1(nativePub, doc, byNoble)).toBe(true);
    }
  });

  it("both refuse a high-S twin and a signature over other bytes", () => {
    const priv = new Uint8Array(randomBytes(32));
    const pub = native.publicKeyCreate(priv, true);
    const digest = sha256(new TextEncoder().encode("doc"));
    const sig = native.ecdsaSign(digest, priv).signature;
    const n = noble.Point.CURVE().n;
    const s = BigInt(`0x${Buffer.from(sig.subarray(32)).toString("hex")}`);
    const high = new Uint8Array(sig);
    high.set(Buffer.from((n - s).toString(16).padStart(64, "0"), "hex"), 32);
    expect(native.ecdsaVerify(high, digest, pub)).toBe(false);
    expect(noble.verify(high, digest, pub, compact)).toBe(false);
    const other = sha256(new TextEncoder().encode("other"));
    expect(native.ecdsaVerify(sig, other, pub)).toBe(false);
    expect(noble.verify(sig, other, pub, compact)).toBe(false);
  });

  it("falls back to noble with one warning line when no binding loads", () => {
    const lines: string[] = [];
    const chosen = selectSecp256k1(
      () => {
        throw new Error("No native build was found for platform=linux arch=x64\nloaded from: /x");
      },
      (line) => lines.push(line),
      {},
    );
    expect(chosen.backend).toBe("noble");
    expect(lines).toEqual([
      "warning: libsecp256k1 could not be loaded (No native build was found for platform=linux arch=x64); signatures are checked with @noble/curves, which is much slower",
    ]);
    const priv = new Uint8Array(randomBytes(32));
    const digest = sha256(new TextEncoder().encode("doc"));
    const sig = chosen.binding.ecdsaSign(digest, priv).signature;
    expect(native.ecdsaVerify(sig, digest, native.publicKeyCreate(priv, true))).toBe(true);
  });

  it("CHAIND_SECP256K1=noble chooses noble without a warning", () => {
    const lines: string[] = [];
    const chosen = selectSecp256k1(loadSecp256k1Binding, (l) => lines.push(l), { CHAIND_SECP256K1: "noble" });
    expect(chosen.backend).toBe("noble");
    expect(lines).toEqual([]);
  });
});
