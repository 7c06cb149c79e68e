/** One secp256k1 check: a 64-byte r||s signature over sha256(signBytes) by a 33-byte compressed key. */
export interface SignatureCheck {
  pubKey33: Uint8Array;
  signBytes: Uint8Array;
  sig: Uint8Array;
}

/** To the signature thread: checks packed into one buffer (moved, not copied, between threads). */
export interface VerifyRequest {
  id: number;
  batch: Uint8Array;
}

/** From the signature thread: one byte per check of request `id`, 1 when the signature is valid. */
export interface VerifyAnswer {
  kind: "verdicts";
  id: number;
  verdicts: Uint8Array;
}

/** From the signature thread once it has loaded libsecp256k1. */
export interface SignatureThreadReady {
  kind: "ready";
}

export type FromSignatureThread = VerifyAnswer | SignatureThreadReady;

const KEY = 33;
const SIG = 64;

/** [count u32] then per check [signBytes length u32][key][signature][signBytes]; little-endian. */
export function packChecks(checks: readonly SignatureCheck[]): Uint8Array<ArrayBuffer> {
  let size = 4;
  for (const c of checks) size += 4 + KEY + SIG + c.signBytes.length;
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, checks.length, true);
  let at = 4;
  for (const c of checks) {
    if (c.pubKey33.length !== KEY || c.sig.length !== SIG)
      throw new Error(`a packed check needs a ${KEY}-byte key and a ${SIG}-byte signature`);
    view.setUint32(at, c.signBytes.length, true);
    out.set(c.pubKey33, at + 4);
    out.set(c.sig, at + 4 + KEY);
    out.set(c.signBytes, at + 4 + KEY + SIG);
    at += 4 + KEY + SIG + c.signBytes.length;
  }
  return out;
}

/** The checks of a packed batch, as views into it; throws on a batch that does not parse to its end. */
export function unpackChecks(batch: Uint8Array): SignatureCheck[] {
  const view = new DataView(batch.buffer, batch.byteOffset, batch.byteLength);
  const count = view.getUint32(0, true);
  const checks: SignatureCheck[] = [];
  let at = 4;
  for (let i = 0; i < count; i++) {
    const len = view.getUint32(at, true);
    const end = at + 4 + KEY + SIG + len;
    if (end > batch.length) throw new Error(`packed check ${i} runs past the end of its batch`);
    checks.push({
      pubKey33: batch.subarray(at + 4, at + 4 + KEY),
      sig: batch.subarray(at + 4 + KEY, at + 4 + KEY + SIG),
      signBytes: batch.subarray(at + 4 + KEY + SIG, end),
    });
    at = end;
  }
  if (at !== batch.length) throw new Error("a packed batch has bytes after its last check");
  return checks;
}
