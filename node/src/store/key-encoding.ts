import { KEYSPACE } from "./keyspaces.js";

/**
 * Keys of different lengths share keyspaces with a height suffix, so raw concatenation could make one key's
 * version sort among another key's. Escaping 0x00 as 0x00 0xFF and ending with 0x00 0x00 keeps order and
 * prefixes intact while making every key's versions contiguous.
 */
const TERM = [0x00, 0x00];

export function escapeBytes(bytes: Uint8Array): number[] {
  const out: number[] = [];
  for (const b of bytes) {
    out.push(b);
    if (b === 0) out.push(0xff);
  }
  return out;
}

/** Reads an escaped, terminated segment at `pos`; returns the raw bytes and the position after it. */
export function unescapeAt(buf: Uint8Array, pos: number): [Uint8Array, number] {
  const out: number[] = [];
  let i = pos;
  while (i < buf.length) {
    const b = buf[i];
    if (b === 0) {
      if (buf[i + 1] === 0) return [Uint8Array.from(out), i + 2];
      out.push(0);
      i += 2;
    } else {
      out.push(b);
      i++;
    }
  }
  throw new Error("corrupt store key: unterminated segment");
}

const text = new TextEncoder();

export function heightBytes(height: number): number[] {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(height));
  return [...b];
}

export function readHeight(buf: Uint8Array, pos: number): number {
  return Number(new DataView(buf.buffer, buf.byteOffset + pos, 8).getBigUint64(0));
}

function storePart(store: string): number[] {
  return [...escapeBytes(text.encode(store)), ...TERM];
}

export function latestKey(store: string, key: Uint8Array): Uint8Array {
  return Uint8Array.from([KEYSPACE.latest, ...storePart(store), ...key]);
}

export function latestStorePrefix(store: string): Uint8Array {
  return Uint8Array.from([KEYSPACE.latest, ...storePart(store)]);
}

/** Prefix of every version of keys starting with `keyPrefix` (unterminated, so longer keys match). */
export function versionsPrefix(store: string, keyPrefix: Uint8Array): Uint8Array {
  return Uint8Array.from([KEYSPACE.versions, ...storePart(store), ...escapeBytes(keyPrefix)]);
}

/** Prefix of every version of exactly `key`. */
export function versionsOfKey(store: string, key: Uint8Array): Uint8Array {
  return Uint8Array.from([KEYSPACE.versions, ...storePart(store), ...escapeBytes(key), ...TERM]);
}

export function versionKey(store: string, key: Uint8Array, height: number): Uint8Array {
  return Uint8Array.from([
    KEYSPACE.versions,
    ...storePart(store),
    ...escapeBytes(key),
    ...TERM,
    ...heightBytes(height),
  ]);
}

/** Splits a versions-keyspace key into its user key (escaped form, for grouping) and height. */
export function parseVersionKey(store: string, full: Uint8Array): { key: Uint8Array; height: number } {
  const start = 1 + storePart(store).length;
  const [key, after] = unescapeAt(full, start);
  return { key, height: readHeight(full, after) };
}

export function changeKey(height: number, store: string, key: Uint8Array): Uint8Array {
  return Uint8Array.from([KEYSPACE.changes, ...heightBytes(height), ...storePart(store), ...key]);
}

export function parseChangeKey(full: Uint8Array): { height: number; store: string; key: Uint8Array } {
  const height = readHeight(full, 1);
  const [storeBytes, after] = unescapeAt(full, 9);
  return { height, store: new TextDecoder().decode(storeBytes), key: full.slice(after) };
}

export function changesUpTo(height: number): { gte: Uint8Array; lt: Uint8Array } {
  return {
    gte: Uint8Array.from([KEYSPACE.changes]),
    lt: Uint8Array.from([KEYSPACE.changes, ...heightBytes(height + 1)]),
  };
}

/** The smallest key greater than every key starting with `prefix`, or undefined when none exists. */
export function prefixEnd(prefix: Uint8Array): Uint8Array | undefined {
  const out = Uint8Array.from(prefix);
  for (let i = out.length - 1; i >= 0; i--) {
    if (out[i] < 0xff) {
      out[i]++;
      return out.slice(0, i + 1);
    }
  }
  return undefined;
}
