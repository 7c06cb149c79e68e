import { cometAddress } from "@chaind/core/comet-address";
import { ed25519 } from "@noble/curves/ed25519.js";
import { describe, expect, it } from "vitest";
import { ed25519KeyFromSeed, generateEd25519Key, signEd25519 } from "../../../node/src/crypto/ed25519.js";

/** An implementation independent of chaind's (OpenSSL) checks what it produces. */
const verify = (pubKey: Uint8Array, msg: Uint8Array, sig: Uint8Array) => ed25519.verify(sig, msg, pubKey);

describe("ed25519", () => {
  it("matches RFC 8032 test 1", () => {
    const seed = new Uint8Array(
      Buffer.from("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60", "hex"),
    );
    const key = ed25519KeyFromSeed(seed);
    expect(Buffer.from(key.pubKey).toString("hex")).toBe(
      "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
    );
    const sig = signEd25519(seed, new Uint8Array(0));
    expect(Buffer.from(sig).toString("hex")).toBe(
      "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    );
  });

  it("makes the keys and signatures @noble/curves makes, and refuses a short seed", () => {
    const key = generateEd25519Key();
    expect(key.pubKey).toEqual(ed25519.getPublicKey(key.seed));
    const msg = new TextEncoder().encode("canonical vote");
    const sig = signEd25519(key.seed, msg);
    expect(sig).toEqual(ed25519.sign(msg, key.seed));
    expect(verify(key.pubKey, msg, sig)).toBe(true);
    expect(verify(key.pubKey, new Uint8Array(1), sig)).toBe(false);
    expect(() => ed25519KeyFromSeed(new Uint8Array(31))).toThrow(/32 bytes/);
    expect(() => signEd25519(new Uint8Array(33), msg)).toThrow(/32 bytes/);
  });

  it("validator address is sha256(pubkey)[:20]", () => {
    const key = generateEd25519Key();
    expect(cometAddress(key.pubKey)).toHaveLength(20);
  });
});
