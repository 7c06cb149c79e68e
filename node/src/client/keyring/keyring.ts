/** What the keyring tells about a key; the private key never leaves it except through `signer`. */
export interface KeyInfo {
  name: string;
  type: "local";
  address: string;
  /** 33-byte compressed secp256k1 public key. */
  pubKey: Uint8Array;
}

export interface KeySigner {
  address: string;
  pubKey: Uint8Array;
  sign(signBytes: Uint8Array): Uint8Array;
}

export interface Keyring {
  /** Creates a key from a new mnemonic, or from the one given (recover). */
  add(name: string, opts: { mnemonic?: string; account?: number; index?: number }): Promise<{ info: KeyInfo; mnemonic: string }>;
  /** By name or by bech32 address. */
  get(nameOrAddress: string): Promise<KeyInfo>;
  exists(name: string): Promise<boolean>;
  list(): Promise<KeyInfo[]>;
  delete(name: string): Promise<void>;
  signer(nameOrAddress: string): Promise<KeySigner>;
}

export class KeyringError extends Error {
  constructor(
    readonly code: "KEY_NOT_FOUND" | "KEY_EXISTS" | "BAD_NAME" | "WRONG_PASSWORD" | "BAD_BACKEND",
    message: string,
  ) {
    super(message);
    this.name = "KeyringError";
  }
}
