import { hash } from "node:crypto";
import { verifySecp256k1 } from "./secp256k1.js";

/**
 * secp256k1 verification remembered: a tx's signatures are checked in CheckTx, then again when its block runs
 * and on every mempool recheck, over the same key and bytes. Only successes are kept, keyed by a digest of
 * everything the answer depends on (key, signature, signed bytes), so a hit is the same pure answer; the oldest
 * are dropped past `capacity`.
 */
export class VerifiedSignatures {
  private readonly seen = new Set<string>();

  constructor(private readonly capacity = 50_000) {}

  verify(pubKey33: Uint8Array, signBytes: Uint8Array, sig: Uint8Array): boolean {
    // One-shot over the three joined: a Hash object per check cost more than the join.
    const key = hash("sha256", Buffer.concat([pubKey33, sig, signBytes]), "base64");
    if (this.seen.has(key)) return true;
    if (!verifySecp256k1(pubKey33, signBytes, sig)) return false;
    if (this.seen.size >= this.capacity) this.seen.delete(this.seen.values().next().value as string);
    this.seen.add(key);
    return true;
  }
}
