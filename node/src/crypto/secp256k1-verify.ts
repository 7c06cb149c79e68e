import type { Secp256k1Binding } from "./secp256k1-binding.js";
import { sha256 } from "./sha256.js";

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
  if (
    !(sig instanceof Uint8Array) ||
    !(pubKey33 instanceof Uint8Array) ||
    !(signBytes instanceof Uint8Array)
  ) {
    return false;
  }
  if (sig.length !== 64 || pubKey33.length !== 33) return false;
  try {
    return binding.ecdsaVerify(sig, sha256(signBytes), pubKey33);
  } catch {
    return false;
  }
}
