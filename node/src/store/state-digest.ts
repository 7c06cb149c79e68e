import { createHash } from "node:crypto";

/** 4096 bits: 128 little-endian 32-bit limbs. */
const LIMBS = 128;
export const STATE_DIGEST_BYTES = LIMBS * 4;
const DOMAIN = new TextEncoder().encode("chaind state entry v1\0");
const utf8 = new TextEncoder();

/** An entry's encoding: store and key behind their lengths, then the value, so no two entries encode alike. */
function entryBytes(store: string, key: Uint8Array, value: Uint8Array): Uint8Array {
  const name = utf8.encode(store);
  const out = new Uint8Array(DOMAIN.length + 8 + name.length + key.length + value.length);
  const view = new DataView(out.buffer);
  let at = 0;
  out.set(DOMAIN, at);
  at += DOMAIN.length;
  view.setUint32(at, name.length);
  out.set(name, at + 4);
  at += 4 + name.length;
  view.setUint32(at, key.length);
  out.set(key, at + 4);
  at += 4 + key.length;
  out.set(value, at);
  return out;
}

/** The entry's 4096-bit element: SHAKE256 of its encoding, read as 128 little-endian limbs. */
function element(store: string, key: Uint8Array, value: Uint8Array): Uint32Array {
  const d = createHash("shake256", { outputLength: STATE_DIGEST_BYTES })
    .update(entryBytes(store, key, value))
    .digest();
  return new Uint32Array(d.buffer, d.byteOffset, LIMBS);
}

/**
 * A commitment to a whole state, kept up to date by its changes alone: the sum modulo 2^4096 of one 4096-bit
 * hash per (store, key, value) entry (Bellare and Micciancio's AdHash). A write subtracts the entry it replaces
 * and adds the new one, so a block costs what it changes, not the state's size; the same set of entries gives
 * the same digest whatever order they came in, so a snapshot's restored state is checked by summing its entries.
 * At 4096 bits, finding another set of entries with the same sum (Wagner's generalized birthday) costs about
 * 2^128 work.
 */
export class StateDigest {
  private constructor(private readonly limbs: Uint32Array) {}

  static empty(): StateDigest {
    return new StateDigest(new Uint32Array(LIMBS));
  }

  static fromBytes(bytes: Uint8Array): StateDigest {
    if (bytes.length !== STATE_DIGEST_BYTES)
      throw new Error(`a state digest is ${STATE_DIGEST_BYTES} bytes, got ${bytes.length}`);
    const limbs = new Uint32Array(LIMBS);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let i = 0; i < LIMBS; i++) limbs[i] = view.getUint32(i * 4, true);
    return new StateDigest(limbs);
  }

  clone(): StateDigest {
    return new StateDigest(this.limbs.slice());
  }

  add(store: string, key: Uint8Array, value: Uint8Array): void {
    const e = element(store, key, value);
    let carry = 0;
    for (let i = 0; i < LIMBS; i++) {
      const s = this.limbs[i] + e[i] + carry;
      this.limbs[i] = s;
      carry = s > 0xffffffff ? 1 : 0;
    }
  }

  remove(store: string, key: Uint8Array, value: Uint8Array): void {
    const e = element(store, key, value);
    let borrow = 0;
    for (let i = 0; i < LIMBS; i++) {
      const d = this.limbs[i] - e[i] - borrow;
      this.limbs[i] = d;
      borrow = d < 0 ? 1 : 0;
    }
  }

  bytes(): Uint8Array {
    const out = new Uint8Array(STATE_DIGEST_BYTES);
    const view = new DataView(out.buffer);
    for (let i = 0; i < LIMBS; i++) view.setUint32(i * 4, this.limbs[i], true);
    return out;
  }

  equals(other: StateDigest): boolean {
    return this.limbs.every((v, i) => v === other.limbs[i]);
  }
}
