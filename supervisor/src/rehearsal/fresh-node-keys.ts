import { createHash, generateKeyPairSync } from "node:crypto";

/** A new ed25519 key as CometBFT's key files hold it: the 32-byte seed, then the public key. */
function newEd25519(): { pub: Buffer; priv: Buffer } {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const pub = Buffer.from(publicKey.export({ format: "jwk" }).x as string, "base64url");
  const seed = Buffer.from(privateKey.export({ format: "jwk" }).d as string, "base64url");
  return { pub, priv: Buffer.concat([seed, pub]) };
}

/**
 * `priv_validator_key.json` and `node_key.json` of a new identity, so a rehearsal's copy never holds the live
 * validator's key: what the copy signs, for its own chain id, is signed by a key nothing else trusts.
 */
export function freshNodeKeys(): { privValidatorKey: string; nodeKey: string } {
  const validator = newEd25519();
  const address = createHash("sha256").update(validator.pub).digest().subarray(0, 20);
  const privValidatorKey = {
    address: address.toString("hex").toUpperCase(),
    pub_key: { type: "tendermint/PubKeyEd25519", value: validator.pub.toString("base64") },
    priv_key: { type: "tendermint/PrivKeyEd25519", value: validator.priv.toString("base64") },
  };
  const node = {
    priv_key: { type: "tendermint/PrivKeyEd25519", value: newEd25519().priv.toString("base64") },
  };
  return {
    privValidatorKey: `${JSON.stringify(privValidatorKey, null, 2)}\n`,
    nodeKey: `${JSON.stringify(node)}\n`,
  };
}
