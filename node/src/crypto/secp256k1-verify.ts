import type { Secp256k1Binding } from "./secp256k1-binding.js";
import { sha256 } from "./sha256.js";

/** A compressed secp256k1 public key's size. */
export const SECP256K1_PUBKEY_BYTES = 33;
/** An r||s secp256k1 signature's size, the only one Cosmos accepts. */
export const SECP256K1_SIGNATURE_BYTES = 64;

/** Whether a key and a signature have the only sizes a secp256k1 check accepts. */
export function secp256k1Shaped(pubKey33: unknown, sig: unknown): boolean {
  return (
    pubKey33 instanceof Uint8Array &&
    sig instanceof Uint8Array &&
    pubKey33.length === SECP256K1_PUBKEY_BYTES &&
    sig.length === SECP256K1_SIGNATURE_BYTES
  );
}

/**
 * A 64-byte r||s signature over sha256(signBytes) checked through `binding`; high-S and malformed input are false,
 * never a throw. Apart from secp256k1.ts, so the signature thread loads the binding alone, without noble.
 */
export function verifyWithBinding(
  binding: Secp256k1Binding,
  pubKey33: Uint8Array,
  signBytes: Uint8Array,
  sig: Uint8Array,
): boolean {
  if (!secp256k1Shaped(pubKey33, sig) || !(signBytes instanceof Uint8Array)) return false;
  try {
    return binding.ecdsaVerify(sig, sha256(signBytes), pubKey33);
  } catch {
    return false;
  }
}
