import { HDKey } from "@scure/bip32";
import { generateMnemonic, mnemonicToSeed, validateMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english.js";

/** A new 24-word BIP39 mnemonic. */
export function newMnemonic(): string {
  return generateMnemonic(wordlist, 256);
}

/** Normalises whitespace and checks words and checksum. */
export function checkMnemonic(mnemonic: string): string {
  const m = mnemonic.trim().split(/\s+/).join(" ");
  if (!validateMnemonic(m, wordlist)) throw new Error("invalid mnemonic");
  return m;
}

/** The secp256k1 private key at m/44'/118'/{account}'/0/{index}, Cosmos' HD path. */
export async function privKeyFromMnemonic(
  mnemonic: string,
  opts: { account?: number; index?: number; bip39Passphrase?: string } = {},
): Promise<Uint8Array> {
  const seed = await mnemonicToSeed(checkMnemonic(mnemonic), opts.bip39Passphrase ?? "");
  const key = HDKey.fromMasterSeed(seed).derive(`m/44'/118'/${opts.account ?? 0}'/0/${opts.index ?? 0}`);
  if (!key.privateKey) throw new Error("HD derivation produced no private key");
  return key.privateKey;
}
