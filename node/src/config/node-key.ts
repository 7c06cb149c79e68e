import { readFileSync, writeFileSync } from "node:fs";
import { ed25519KeyFromSeed, generateEd25519Key } from "../crypto/ed25519.js";

/**
 * CometBFT's `config/node_key.json`: the ed25519 key a node is known by on the p2p network (its node id is the
 * key's address), seed then public half, base64.
 */
interface NodeKeyFile {
  priv_key: { type: "tendermint/PrivKeyEd25519"; value: string };
}

/** Creates a node key file (mode 0600), as `cometbft init` does; answers its public key. */
export function writeNewNodeKey(path: string): Uint8Array {
  const { seed, pubKey } = generateEd25519Key();
  const file: NodeKeyFile = {
    priv_key: { type: "tendermint/PrivKeyEd25519", value: Buffer.concat([seed, pubKey]).toString("base64") },
  };
  writeFileSync(path, `${JSON.stringify(file)}\n`, { mode: 0o600 });
  return pubKey;
}

/** The public key of a node key file, checked against its private half. */
export function readNodeKey(path: string): Uint8Array {
  let file: NodeKeyFile;
  try {
    file = JSON.parse(readFileSync(path, "utf8")) as NodeKeyFile;
  } catch (e) {
    throw new Error(`cannot read node key ${path}: ${(e as Error).message}`);
  }
  const priv = Buffer.from(file.priv_key?.value ?? "", "base64");
  if (file.priv_key?.type !== "tendermint/PrivKeyEd25519" || priv.length !== 64)
    throw new Error(`node key ${path} does not hold a 64-byte ed25519 private key`);
  const { pubKey } = ed25519KeyFromSeed(new Uint8Array(priv.subarray(0, 32)));
  if (Buffer.compare(Buffer.from(pubKey), priv.subarray(32)) !== 0)
    throw new Error(`node key ${path} is corrupt: its public half does not match the private half`);
  return pubKey;
}
