import { createPrivateKey, createPublicKey, type KeyObject, randomBytes, sign, verify } from "node:crypto";

/** An ed25519 key as CometBFT keeps it: the 32-byte seed is the private key. */
export interface Ed25519Key {
  seed: Uint8Array;
  pubKey: Uint8Array;
}

/** DER of an SPKI ed25519 public key, up to its 32 bytes. */
const SPKI_ED25519_PREFIX = Buffer.from("302a300506032b6570032100", "hex");
/** DER of a PKCS#8 ed25519 private key, up to its 32-byte seed. */
const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

// OpenSSL's ed25519, not @noble/curves': noble builds its base-point tables on first use, which cost a
// start-up about 100 ms before the first block could be signed. Both follow RFC 8032, so keys and signatures
// are the same bytes.
function privateKeyOf(seed: Uint8Array): KeyObject {
  if (seed.length !== 32) throw new Error(`ed25519 seed must be 32 bytes, got ${seed.length}`);
  return createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]),
    format: "der",
    type: "pkcs8",
  });
}

export function ed25519KeyFromSeed(seed: Uint8Array): Ed25519Key {
  const spki = createPublicKey(privateKeyOf(seed)).export({ format: "der", type: "spki" });
  return { seed, pubKey: new Uint8Array(spki.subarray(-32)) };
}

export function generateEd25519Key(): Ed25519Key {
  return ed25519KeyFromSeed(new Uint8Array(randomBytes(32)));
}

// OpenSSL takes about 1.5 ms to decode a key and 0.1 ms to sign with it; a validator signs with the same seed
// several times a block. Keyed by the seed's array, so a key is forgotten with the key file that held it.
const signingKeys = new WeakMap<Uint8Array, KeyObject>();

/** A 64-byte RFC 8032 signature of the message itself (ed25519 hashes internally). */
export function signEd25519(seed: Uint8Array, message: Uint8Array): Uint8Array {
  let key = signingKeys.get(seed);
  if (!key) {
    key = privateKeyOf(seed);
    signingKeys.set(seed, key);
  }
  return new Uint8Array(sign(null, message, key));
}

/** Whether `signature` is `pubKey`'s RFC 8032 signature of `message`; a malformed key or signature is false. */
export function verifyEd25519(pubKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (pubKey.length !== 32 || signature.length !== 64) return false;
  try {
    const key = createPublicKey({
      key: Buffer.concat([SPKI_ED25519_PREFIX, pubKey]),
      format: "der",
      type: "spki",
    });
    return verify(null, message, key, signature);
  } catch {
    return false;
  }
}
