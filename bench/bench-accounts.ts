import { sha256 } from "@noble/hashes/sha2.js";
import { AddressCodec } from "chaind/app/address-codec";
import type { DirectSigner } from "chaind/client/direct-signing";
import { addressFromPubKey } from "chaind/crypto/address";
import { secp256k1PublicKey, signSecp256k1 } from "chaind/crypto/secp256k1";

const codec = new AddressCodec("sdk");

/** An account with a real secp256k1 key, derived from a seed so runs are repeatable. */
export interface BenchAccount {
  address: string;
  priv: Uint8Array;
  pub: Uint8Array;
  signer(accountNumber: bigint, sequence: bigint): DirectSigner;
}

export function benchAccount(seed: string): BenchAccount {
  const priv = sha256(new TextEncoder().encode(seed));
  const pub = secp256k1PublicKey(priv);
  return {
    address: codec.toString(addressFromPubKey(pub)),
    priv,
    pub,
    signer: (accountNumber, sequence) => ({
      pubKey: pub,
      accountNumber,
      sequence,
      sign: (b) => signSecp256k1(priv, b),
    }),
  };
}

/** An address nobody holds a key for: enough to fill a genesis with many funded accounts cheaply. */
export function fillerAddress(i: number): string {
  return codec.toString(sha256(new TextEncoder().encode(`filler-${i}`)).slice(0, 20));
}
