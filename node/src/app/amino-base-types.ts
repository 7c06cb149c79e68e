import type { Message } from "@bufbuild/protobuf";
import type { AminoType } from "./amino-types.js";

/** A public key prints as its key bytes alone (the SDK's `key_field` message encoding); no key: null. */
const keyField = (message: Message) => {
  const key = (message as unknown as { key: Uint8Array }).key;
  return key.length === 0 ? null : Buffer.from(key).toString("base64");
};

/** Amino JSON of the types every app has: coins and the public keys of accounts and validators. */
export const BASE_AMINO_TYPES: readonly AminoType[] = [
  { typeName: "sdk.base.v1beta1.Coin", fields: { amount: { dontOmitEmpty: true, encoding: "cosmos_int" } } },
  {
    typeName: "sdk.base.v1beta1.DecCoin",
    fields: { amount: { dontOmitEmpty: true, encoding: "cosmos_dec" } },
  },
  { typeName: "sdk.crypto.secp256k1.PubKey", aminoName: "tendermint/PubKeySecp256k1", encode: keyField },
  { typeName: "sdk.crypto.ed25519.PubKey", aminoName: "tendermint/PubKeyEd25519", encode: keyField },
];
