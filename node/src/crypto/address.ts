import { ripemd160 } from "@noble/hashes/legacy.js";
import { sha256 } from "./sha256.js";

/** Account address of a secp256k1 public key: ripemd160(sha256(compressed key)), as Cosmos derives it. */
export function addressFromPubKey(pubKey33: Uint8Array): Uint8Array {
  return ripemd160(sha256(pubKey33));
}

const moduleAddresses = new Map<string, Uint8Array>();

/** A module account's address: sha256(name)[:20]; a copy each time, from a cache (the fee collector's is read for every tx). */
export function moduleAddress(name: string): Uint8Array {
  let address = moduleAddresses.get(name);
  if (!address) {
    address = sha256(new TextEncoder().encode(name)).slice(0, 20);
    moduleAddresses.set(name, address);
  }
  return address.slice();
}
