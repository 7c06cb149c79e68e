export type KeyringErrorCode =
  | "KEY_NOT_FOUND"
  | "KEY_EXISTS"
  | "INVALID_NAME"
  | "INVALID_MNEMONIC"
  | "WRONG_PASSPHRASE"
  | "PASSPHRASE_REQUIRED"
  | "WEAK_PASSPHRASE"
  | "UNSUPPORTED_BACKEND"
  | "CORRUPT_KEY"
  | "NOT_LOCAL"
  | "INVALID_MULTISIG"
  | "NO_INPUT"
  | "INVALID_ARMOR";

/** An expected keyring failure; the message is fit to show a user as is. */
export class KeyringError extends Error {
  constructor(
    readonly code: KeyringErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "KeyringError";
  }
}
