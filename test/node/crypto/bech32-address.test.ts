import { describe, expect, it } from "vitest";
import { addressFromPubKey, moduleAddress } from "../../../node/src/crypto/address.js";
import { decodeBech32, encodeBech32 } from "../../../node/src/crypto/bech32.js";

const BYTES = new Uint8Array(Buffer.from("28ff5c6d57d8cfd492b6fb42614536ed648e01fd", "hex"));
const COSMOS = "cosmos19rl4cm2hmr8afy4kldpxz3fka4jguq0auqdal4";

describe("bech32", () => {
  it("round-trips", () => {
    expect(encodeBech32("cosmos", BYTES)).toBe(COSMOS);
    expect(decodeBech32(COSMOS)).toEqual(BYTES);
    expect(decodeBech32(encodeBech32("sdk", BYTES), "sdk")).toEqual(BYTES);
    const long = new Uint8Array(32).fill(7);
    expect(decodeBech32(encodeBech32("sdk", long), "sdk")).toEqual(long);
  });

  it("names the problem", () => {
    expect(() => decodeBech32(COSMOS, "sdk")).toThrow("invalid Bech32 prefix; expected sdk, got cosmos");
    expect(() => decodeBech32(`${COSMOS.slice(0, -1)}5`)).toThrow(/invalid checksum/);
    expect(() => decodeBech32("")).toThrow(/empty string/);
    expect(() => decodeBech32("sdk1qq")).toThrow(/invalid length 6/);
    expect(() => decodeBech32(`sdk1${"q".repeat(1100)}`)).toThrow(/invalid length/);
    expect(() => decodeBech32("sdk1bbbbbbbbb")).toThrow(/decoding bech32 failed/);
    expect(() => decodeBech32("no-separator-here")).toThrow(/decoding bech32 failed/);
    expect(() => decodeBech32(encodeBech32("sdk", new Uint8Array(0)))).toThrow(/empty data/);
  });
});

describe("addresses", () => {
  it("is ripemd160(sha256(pubkey))", () => {
    // The public key of the "abandon ... about" test vector.
    const pub = new Uint8Array(Buffer.from("Ak9OKtmcNNYLm6YoPJQxqEGK+GcyEpYfl6d7Y3f80Fti", "base64"));
    expect(addressFromPubKey(pub)).toEqual(BYTES);
  });

  it("module addresses match Cosmos's", () => {
    expect(encodeBech32("cosmos", moduleAddress("fee_collector"))).toBe(
      "cosmos17xpfvakm2amg962yls6f84z3kell8c5lserqta",
    );
    expect(encodeBech32("cosmos", moduleAddress("gov"))).toBe(
      "cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn",
    );
  });
});
