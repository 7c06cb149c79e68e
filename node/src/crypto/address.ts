import { ripemd160 } from "@noble/hashes/legacy.js";
import { sha256 } from "@noble/hashes/sha2.js";

/** Account address of a secp256k1 public key: ripemd160(sha256(compressed key)), as Cosmos derives it. */
export function addressFromPubKey(pubKey33: Uint8Array): Uint8Array {
  return ripemd160(sha256(pubKey33));
}

/** A module account's address: sha256(name)[:20]. */
export function moduleAddress(name: string): Uint8Array {
  return sha256(new TextEncoder().encode(name)).slice(0, 20);
}
