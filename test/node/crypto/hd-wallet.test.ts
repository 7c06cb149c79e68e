import { describe, expect, it } from "vitest";
import { addressFromPubKey } from "../../../node/src/crypto/address.js";
import { encodeBech32 } from "../../../node/src/crypto/bech32.js";
import {
  cosmosHdPath,
  deriveSecp256k1Key,
  generateMnemonic,
  normalizeMnemonic,
} from "../../../node/src/crypto/hd-wallet.js";
import { secp256k1PublicKey } from "../../../node/src/crypto/secp256k1.js";

const ABANDON =
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";

function addressOf(mnemonic: string, prefix: string, opts = {}): string {
  return encodeBech32(prefix, addressFromPubKey(secp256k1PublicKey(deriveSecp256k1Key(mnemonic, opts))));
}

describe("hd wallet", () => {
  it("derives the well-known Cosmos test vector at m/44'/118'/0'/0/0", () => {
    expect(addressOf(ABANDON, "cosmos")).toBe("cosmos19rl4cm2hmr8afy4kldpxz3fka4jguq0auqdal4");
  });

  it("gives the same bytes under the sdk prefix", () => {
    const priv = deriveSecp256k1Key(ABANDON);
    const bytes = addressFromPubKey(secp256k1PublicKey(priv));
    expect(Buffer.from(bytes).toString("hex")).toBe("28ff5c6d57d8cfd492b6fb42614536ed648e01fd");
    expect(addressOf(ABANDON, "sdk")).toBe(encodeBech32("sdk", bytes));
    expect(addressOf(ABANDON, "sdk")).toMatch(/^sdk1/);
  });

  it("uses account, index and BIP39 passphrase", () => {
    const base = addressOf(ABANDON, "sdk");
    expect(addressOf(ABANDON, "sdk", { index: 1 })).not.toBe(base);
    expect(addressOf(ABANDON, "sdk", { account: 1 })).not.toBe(base);
    expect(addressOf(ABANDON, "sdk", { bip39Passphrase: "x" })).not.toBe(base);
    expect(cosmosHdPath()).toBe("m/44'/118'/0'/0/0");
    expect(cosmosHdPath(2, 7)).toBe("m/44'/118'/2'/0/7");
    expect(() => cosmosHdPath(-1, 0)).toThrow(/invalid HD account/);
    expect(() => cosmosHdPath(0, 2 ** 31)).toThrow(/invalid HD index/);
  });

  it("takes BIP-39's seed with the passphrase as the standard's TREZOR vector does", () => {
    // BIP-39's published seed for this mnemonic under "TREZOR" (c55257c3...7463b04), taken to m/44'/118'/0'/0/0
    // by @scure/bip39 and @scure/bip32: an answer from an implementation other than ours.
    expect(Buffer.from(deriveSecp256k1Key(ABANDON, { bip39Passphrase: "TREZOR" })).toString("hex")).toBe(
      "4645116d580e8b9c032613f8496591d75e44da0df7e1aa8b480053a0b653447d",
    );
  });

  it("generates valid 24-word mnemonics", () => {
    const m = generateMnemonic();
    expect(m.split(" ")).toHaveLength(24);
    expect(normalizeMnemonic(m)).toBe(m);
    expect(generateMnemonic()).not.toBe(m);
  });

  it("normalises whitespace and rejects bad mnemonics", () => {
    expect(normalizeMnemonic(`  ${ABANDON.replaceAll(" ", "  \n")}  `)).toBe(ABANDON);
    expect(() => normalizeMnemonic(ABANDON.replace("about", "abandon"))).toThrow("invalid mnemonic");
    expect(() => normalizeMnemonic("not a mnemonic")).toThrow("invalid mnemonic");
    expect(() => normalizeMnemonic("")).toThrow("invalid mnemonic");
  });
});
