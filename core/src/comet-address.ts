import { createHash } from "node:crypto";
import { toHex } from "./hex.js";

/** CometBFT's address of an ed25519 public key (a validator's, a node's): the first 20 bytes of its SHA-256. */
export function cometAddress(pubKey: Uint8Array): Uint8Array {
  return new Uint8Array(createHash("sha256").update(pubKey).digest().subarray(0, 20));
}

/** CometBFT's node id: the address of the node key, in lower-case hex. */
export function cometNodeId(pubKey: Uint8Array): string {
  return toHex(cometAddress(pubKey));
}
