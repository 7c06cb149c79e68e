import { createHash } from "node:crypto";
import type { StateDigest } from "./state-digest.js";

const DOMAIN = new TextEncoder().encode("chaind app hash v2\0");

/**
 * The app hash of a state: SHA-256 over its digest (state-digest.ts), so it commits to every entry of the state
 * and to nothing else. A snapshot's state is checked against an app hash by recomputing it from the entries.
 */
export function appHashOf(digest: StateDigest): Uint8Array {
  const d = createHash("sha256").update(DOMAIN).update(digest.bytes()).digest();
  return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
}
