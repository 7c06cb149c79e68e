import { hash } from "node:crypto";
import { BoundedMap } from "../app/bounded-map.js";
import { verifySecp256k1 } from "./secp256k1.js";
import { secp256k1Shaped } from "./secp256k1-verify.js";

/**
 * What a verification's answer depends on, as one byte string: key, signature, then signed bytes, each of the
 * first two behind its length. Distinct triples never give the same bytes, whatever their lengths: without the
 * lengths, a signature with the start of its signed bytes appended, over the rest, would read as the original.
 */
export function verificationPreimage(pubKey: Uint8Array, signBytes: Uint8Array, sig: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(8 + pubKey.length + sig.length + signBytes.length);
  out.writeUInt32BE(pubKey.length, 0);
  out.set(pubKey, 4);
  out.writeUInt32BE(sig.length, 4 + pubKey.length);
  out.set(sig, 8 + pubKey.length);
  out.set(signBytes, 8 + pubKey.length + sig.length);
  return out;
}

/** One digest of the preimage: a Hash object per check cost more than one buffer. */
function answerKey(pubKey33: Uint8Array, signBytes: Uint8Array, sig: Uint8Array): string {
  return hash("sha256", verificationPreimage(pubKey33, signBytes, sig), "base64");
}

/**
 * secp256k1 verification remembered: a tx's signatures are checked before CheckTx (on another thread) or in it,
 * then again when its block runs and on every mempool recheck, over the same key and bytes. Only successes are
 * kept, keyed by a digest of everything the answer depends on, so a hit is the same pure answer; the oldest are
 * dropped past `capacity`. A key or signature of the wrong size is refused before the lookup.
 */
export class VerifiedSignatures {
  private readonly seen: BoundedMap<string, true>;

  constructor(capacity = 50_000) {
    this.seen = new BoundedMap(capacity);
  }

  verify(pubKey33: Uint8Array, signBytes: Uint8Array, sig: Uint8Array): boolean {
    if (!secp256k1Shaped(pubKey33, sig) || !(signBytes instanceof Uint8Array)) return false;
    const key = answerKey(pubKey33, signBytes, sig);
    if (this.seen.has(key)) return true;
    if (!verifySecp256k1(pubKey33, signBytes, sig)) return false;
    this.seen.set(key, true);
    return true;
  }

  /** A verification this node ran elsewhere (its signature thread) that came out true. */
  remember(pubKey33: Uint8Array, signBytes: Uint8Array, sig: Uint8Array): void {
    if (!secp256k1Shaped(pubKey33, sig)) return;
    this.seen.set(answerKey(pubKey33, signBytes, sig), true);
  }
}
