/** What the keyring tells about a key; never the private key. */
export interface KeyInfo {
  name: string;
  type: "local";
  /** bech32 account address with the keyring's prefix */
  address: string;
  /** 33-byte compressed secp256k1 public key */
  pubKey: Uint8Array;
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
  add(name: string, opts?: AddKeyOptions): Promise<{ info: KeyInfo; mnemonic: string }>;
  get(nameOrAddress: string): Promise<KeyInfo>;
  /** Sorted by name. */
  list(): Promise<KeyInfo[]>;
  delete(nameOrAddress: string): Promise<void>;
  exists(nameOrAddress: string): Promise<boolean>;
  signer(nameOrAddress: string): Promise<KeySigner>;
}

export type KeyringBackend = "test" | "file";

export const KEYRING_BACKENDS: readonly KeyringBackend[] = ["test", "file"];
