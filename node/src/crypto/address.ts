import { ripemd160 } from "@noble/hashes/legacy.js";
import { mapKey } from "../store/map-key.js";
import { sha256 } from "./sha256.js";

/** Keys seen recently and their addresses: every tx names its signer's key, and the same few keys sign most. */
const pubKeyAddresses = new Map<string, Uint8Array>();
const PUBKEY_ADDRESSES = 10_000;

/** Account address of a secp256k1 public key: ripemd160(sha256(compressed key)), as Cosmos derives it; a copy. */
export function addressFromPubKey(pubKey33: Uint8Array): Uint8Array {
  const id = mapKey(pubKey33);
  let address = pubKeyAddresses.get(id);
  if (!address) {
    address = ripemd160(sha256(pubKey33));
    if (pubKeyAddresses.size >= PUBKEY_ADDRESSES) pubKeyAddresses.clear();
    pubKeyAddresses.set(id, address);
  }
  return address.slice();
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
