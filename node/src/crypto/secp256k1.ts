import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";

/** The 33-byte compressed public key of a 32-byte private key; throws if the key is out of range. */
export function secp256k1PublicKey(priv: Uint8Array): Uint8Array {
  return secp256k1.getPublicKey(priv, true);
}

/** Signs sha256(signBytes); 64 bytes r||s with low S, as Cosmos requires. */
export function signSecp256k1(priv: Uint8Array, signBytes: Uint8Array): Uint8Array {
  return secp256k1.sign(sha256(signBytes), priv, { prehash: false, lowS: true, format: "compact" });
}

/** Verifies a 64-byte r||s signature over sha256(signBytes); high-S and malformed input are false, never a throw. */
export function verifySecp256k1(pubKey33: Uint8Array, signBytes: Uint8Array, sig: Uint8Array): boolean {
  if (
    !(sig instanceof Uint8Array) ||
    !(pubKey33 instanceof Uint8Array) ||
    !(signBytes instanceof Uint8Array)
  ) {
    return false;
  }
  if (sig.length !== 64 || pubKey33.length !== 33) return false;
  try {
    return secp256k1.verify(sig, sha256(signBytes), pubKey33, {
      prehash: false,
      lowS: true,
      format: "compact",
    });
  } catch {
    return false;
  }
}
