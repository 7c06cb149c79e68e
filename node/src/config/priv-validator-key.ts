import { readFileSync, writeFileSync } from "node:fs";
import { cometAddress } from "@chaind/core/comet-address";
import type { ValidatorSigner } from "../consensus/validator-signer.js";
import { ed25519KeyFromSeed, generateEd25519Key, signEd25519 } from "../crypto/ed25519.js";

/** CometBFT's priv_validator_key.json: an ed25519 key in Amino-JSON wrapping. */
interface PrivValidatorKeyFile {
  address: string;
  pub_key: { type: "tendermint/PubKeyEd25519"; value: string };
  priv_key: { type: "tendermint/PrivKeyEd25519"; value: string };
}

function signerFromSeed(seed: Uint8Array): ValidatorSigner {
  const { pubKey } = ed25519KeyFromSeed(seed);
  return { pubKey, address: cometAddress(pubKey), sign: (bytes) => signEd25519(seed, bytes) };
}

/** Creates a new validator key file (mode 0600). */
export function writeNewPrivValidatorKey(path: string): ValidatorSigner {
  const { seed } = generateEd25519Key();
  const signer = signerFromSeed(seed);
  const priv = new Uint8Array(64);
  priv.set(seed);
  priv.set(signer.pubKey, 32);
  const file: PrivValidatorKeyFile = {
    address: Buffer.from(signer.address).toString("hex").toUpperCase(),
    pub_key: { type: "tendermint/PubKeyEd25519", value: Buffer.from(signer.pubKey).toString("base64") },
    priv_key: { type: "tendermint/PrivKeyEd25519", value: Buffer.from(priv).toString("base64") },
  };
  writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  return signer;
}

export function readPrivValidatorKey(path: string): ValidatorSigner {
  let file: PrivValidatorKeyFile;
  try {
    file = JSON.parse(readFileSync(path, "utf8")) as PrivValidatorKeyFile;
  } catch (e) {
    throw new Error(`cannot read validator key ${path}: ${(e as Error).message}`);
  }
  const priv = Buffer.from(file.priv_key?.value ?? "", "base64");
  if (file.priv_key?.type !== "tendermint/PrivKeyEd25519" || priv.length !== 64) {
    throw new Error(`validator key ${path} does not hold a 64-byte ed25519 private key`);
  }
  const signer = signerFromSeed(new Uint8Array(priv.subarray(0, 32)));
  if (Buffer.compare(Buffer.from(signer.pubKey), priv.subarray(32)) !== 0) {
    throw new Error(`validator key ${path} is corrupt: its public half does not match the private half`);
  }
  return signer;
}
