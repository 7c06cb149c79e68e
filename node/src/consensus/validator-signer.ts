/** The key the embedded producer signs its blocks with (CometBFT's priv_validator_key). */
export interface ValidatorSigner {
  /** sha256(pubkey)[:20], as CometBFT derives validator addresses. */
  readonly address: Uint8Array;
  readonly pubKey: Uint8Array;
  sign(bytes: Uint8Array): Uint8Array;
}
