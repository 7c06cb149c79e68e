import { createRequire } from "node:module";

/** What chaind uses of the `secp256k1` package's API (its libsecp256k1 binding). */
export interface Secp256k1Binding {
  publicKeyCreate(seckey: Uint8Array, compressed: boolean): Uint8Array;
  ecdsaSign(msg32: Uint8Array, seckey: Uint8Array): { signature: Uint8Array; recid: number };
  /** Throws on an unparsable signature or key; false on a wrong or high-S signature. */
  ecdsaVerify(sig: Uint8Array, msg32: Uint8Array, pubkey: Uint8Array): boolean;
}

/**
 * libsecp256k1 through the `secp256k1` package's prebuilt binding, never its pure-JS fallback (elliptic), so a
 * missing binary shows as an error here. A release replaces this file with a loader of the binary it embeds
 * (scripts/release.ts).
 */
export function loadSecp256k1Binding(): Secp256k1Binding {
  return createRequire(import.meta.url)("secp256k1/bindings.js") as Secp256k1Binding;
}
