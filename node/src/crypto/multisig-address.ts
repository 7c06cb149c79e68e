import { concatBytes } from "@chaind/core/bytes";
import { sha256 } from "./sha256.js";

// Amino's registered-type prefixes of tendermint/PubKeyMultisigThreshold and tendermint/PubKeySecp256k1.
const MULTISIG_AMINO_PREFIX = Uint8Array.of(0x22, 0xc1, 0xf7, 0xe2);
const SECP256K1_AMINO_PREFIX = Uint8Array.of(0xeb, 0x5a, 0xe9, 0x87);

/** A k-of-n key of 33-byte secp256k1 keys, in the key's own order. */
export interface MultisigKey {
  threshold: number;
  keys: Uint8Array[];
}

/** The account address of a multisig key: sha256 of its amino encoding, first 20 bytes, as Cosmos and CosmJS. */
export function multisigAddress(m: MultisigKey): Uint8Array {
  const parts: Uint8Array[] = [MULTISIG_AMINO_PREFIX, Uint8Array.of(0x08), uvarint(m.threshold)];
  for (const key of m.keys) {
    const inner = concatBytes(SECP256K1_AMINO_PREFIX, Uint8Array.of(key.length), key);
    parts.push(Uint8Array.of(0x12), uvarint(inner.length), inner);
  }
  return sha256(concatBytes(...parts)).slice(0, 20);
}

function uvarint(n: number): Uint8Array {
  const out: number[] = [];
  let v = n;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return Uint8Array.from(out);
}
