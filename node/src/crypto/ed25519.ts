import { randomBytes } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519.js";

/** An ed25519 key as CometBFT keeps it: the 32-byte seed is the private key. */
export interface Ed25519Key {
  seed: Uint8Array;
  pubKey: Uint8Array;
}

export function ed25519KeyFromSeed(seed: Uint8Array): Ed25519Key {
  if (seed.length !== 32) throw new Error(`ed25519 seed must be 32 bytes, got ${seed.length}`);
  return { seed, pubKey: ed25519.getPublicKey(seed) };
}

export function generateEd25519Key(): Ed25519Key {
  return ed25519KeyFromSeed(new Uint8Array(randomBytes(32)));
}

/** A 64-byte RFC 8032 signature of the message itself (ed25519 hashes internally). */
export function signEd25519(seed: Uint8Array, message: Uint8Array): Uint8Array {
  return ed25519.sign(message, seed);
}

/** False for malformed keys or signatures, never a throw: callers feed it network input. */
export function verifyEd25519(pubKey: Uint8Array, message: Uint8Array, sig: Uint8Array): boolean {
  if (pubKey?.length !== 32 || sig?.length !== 64) return false;
  try {
    return ed25519.verify(sig, message, pubKey);
  } catch {
    return false;
  }
}
