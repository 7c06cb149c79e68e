import type { MultisigKey } from "../../crypto/multisig-address.js";

/** What the keyring tells about a key; never the private key. */
export type KeyInfo = LocalKeyInfo | MultiKeyInfo;

export interface LocalKeyInfo {
  name: string;
  type: "local";
  /** bech32 account address with the keyring's prefix */
  address: string;
  /** 33-byte compressed secp256k1 public key */
  pubKey: Uint8Array;
}

/** An offline k-of-n key of other keys (`keys add --multisig`): it has no secret; its members sign. */
export interface MultiKeyInfo {
  name: string;
  type: "multi";
  address: string;
  multisig: MultisigKey;
}

/** Signs with one key: secp256k1 over sha256(signBytes), 64 bytes r||s, low S (SIGN_MODE_DIRECT-ready). */
export interface KeySigner {
  address: string;
  pubKey: Uint8Array;
  sign(signBytes: Uint8Array): Uint8Array;
}

export interface AddKeyOptions {
  /** recover this mnemonic; a new 24-word one is generated when absent */
  mnemonic?: string;
  /** HD path m/44'/118'/{account}'/0/{index}, both 0 by default */
  account?: number;
  index?: number;
  /** BIP-39 passphrase (the "25th word"), not the keyring's */
  bip39Passphrase?: string;
}

/** Lookups (`nameOrAddress`) accept a key name or a bech32 address with the keyring's prefix. */
export interface Keyring {
  readonly backend: KeyringBackend;
  /** Fails with KEY_EXISTS for a taken name, or an address already stored under another name. */
  add(name: string, opts?: AddKeyOptions): Promise<{ info: LocalKeyInfo; mnemonic: string }>;
  /** A multisig key of `threshold` of these keys' public keys, sorted by address as Cosmos sorts them. */
  addMultisig(name: string, members: readonly string[], threshold: number, sort: boolean): Promise<KeyInfo>;
  get(nameOrAddress: string): Promise<KeyInfo>;
  /** Sorted by name. */
  list(): Promise<KeyInfo[]>;
  delete(nameOrAddress: string): Promise<void>;
  exists(nameOrAddress: string): Promise<boolean>;
  /** A local key's signer; a multisig key has none (NOT_LOCAL). */
  signer(nameOrAddress: string): Promise<KeySigner>;
  /** Stores a raw 32-byte secp256k1 private key (`keys import`, `import-hex`); same refusals as `add`. */
  importPrivateKey(name: string, priv: Uint8Array): Promise<LocalKeyInfo>;
  /** A local key's 32-byte private key (`keys export`); a multisig key has none (NOT_LOCAL). */
  exportPrivateKey(nameOrAddress: string): Promise<Uint8Array>;
  /** Gives a key a new name; fails with KEY_EXISTS when `newName` is taken. */
  rename(nameOrAddress: string, newName: string): Promise<KeyInfo>;
}

export type KeyringBackend = "test" | "file";

export const KEYRING_BACKENDS: readonly KeyringBackend[] = ["test", "file"];
