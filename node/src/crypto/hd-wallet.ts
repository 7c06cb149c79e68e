import { pbkdf2Sync } from "node:crypto";
import { HDKey } from "@scure/bip32";
import * as bip39 from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english.js";

/** Cosmos's coin type in BIP-44 paths. */
export const COSMOS_COIN_TYPE = 118;

export interface DeriveOptions {
  account?: number;
  index?: number;
  /** The optional BIP-39 passphrase (the "25th word"), not the keyring's. */
  bip39Passphrase?: string;
}

/** A fresh 24-word English mnemonic (256 bits of entropy), as `keys add` makes. */
export function generateMnemonic(): string {
  return bip39.generateMnemonic(wordlist, 256);
}

/** The mnemonic with whitespace normalised; throws "invalid mnemonic" when words or checksum are wrong. */
export function normalizeMnemonic(mnemonic: string): string {
  const normalized = String(mnemonic).trim().split(/\s+/).join(" ");
  if (!bip39.validateMnemonic(normalized, wordlist)) throw new Error("invalid mnemonic");
  return normalized;
}

/** m/44'/118'/{account}'/0/{index}; throws for a number that is not a non-hardened BIP-32 index. */
export function cosmosHdPath(account = 0, index = 0): string {
  for (const [what, n] of [
    ["account", account],
    ["index", index],
  ] as const) {
    if (!Number.isInteger(n) || n < 0 || n >= 2 ** 31)
      throw new Error(`invalid HD ${what} ${n}: must be 0..2147483647`);
  }
  return `m/44'/${COSMOS_COIN_TYPE}'/${account}'/0/${index}`;
}

/** The secp256k1 private key at m/44'/118'/{account}'/0/{index} of a mnemonic. */
export function deriveSecp256k1Key(mnemonic: string, opts: DeriveOptions = {}): Uint8Array {
  const path = cosmosHdPath(opts.account, opts.index);
  const seed = mnemonicSeed(normalizeMnemonic(mnemonic), opts.bip39Passphrase ?? "");
  const key = HDKey.fromMasterSeed(seed).derive(path);
  if (!key.privateKey) throw new Error("HD derivation produced no private key");
  return key.privateKey;
}

/**
 * BIP-39's seed: PBKDF2-HMAC-SHA512 of the NFKD mnemonic, salted with "mnemonic" and the NFKD passphrase, 2048
 * rounds. Node's native PBKDF2 takes about 3 ms where the pure-JS one took about 150 ms, paid by every
 * `keys add` and recovery.
 */
function mnemonicSeed(mnemonic: string, passphrase: string): Uint8Array {
  const nfkd = (s: string) => Buffer.from(s.normalize("NFKD"), "utf8");
  return pbkdf2Sync(nfkd(mnemonic), nfkd(`mnemonic${passphrase}`), 2048, 64, "sha512");
}
