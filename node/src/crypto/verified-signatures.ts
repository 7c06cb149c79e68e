import { hash } from "node:crypto";
import { BoundedMap } from "../app/bounded-map.js";
import { verifySecp256k1 } from "./secp256k1.js";

/** One digest of everything a verification's answer depends on: key, signature, signed bytes. */
function answerKey(pubKey33: Uint8Array, signBytes: Uint8Array, sig: Uint8Array): string {
  // One-shot over the three joined: a Hash object per check cost more than the join.
  return hash("sha256", Buffer.concat([pubKey33, sig, signBytes]), "base64");
}

/**
 * secp256k1 verification remembered: a tx's signatures are checked before CheckTx (on another thread) or in it,
 * then again when its block runs and on every mempool recheck, over the same key and bytes. Only successes are
 * kept, keyed by a digest of everything the answer depends on, so a hit is the same pure answer; the oldest are
 * dropped past `capacity`.
 */
export class VerifiedSignatures {
  private readonly seen: BoundedMap<string, true>;

  constructor(capacity = 50_000) {
    this.seen = new BoundedMap(capacity);
  }

  verify(pubKey33: Uint8Array, signBytes: Uint8Array, sig: Uint8Array): boolean {
    const key = answerKey(pubKey33, signBytes, sig);
    if (this.seen.has(key)) return true;
    if (!verifySecp256k1(pubKey33, signBytes, sig)) return false;
    this.seen.set(key, true);
    return true;
  }

  /** A verification this node ran elsewhere (its signature thread) that came out true. */
  remember(pubKey33: Uint8Array, signBytes: Uint8Array, sig: Uint8Array): void {
    this.seen.set(answerKey(pubKey33, signBytes, sig), true);
  }
}
