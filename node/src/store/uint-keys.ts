import { decodeExactly, type KeyCodec, malformed, unencodable } from "./key-codec.js";

const MAX_UINT64 = 2n ** 64n - 1n;

/** `n` (0 ..= 2^32 - 1) big-endian at `at`. */
export function writeUint32(out: Uint8Array, at: number, n: number): void {
  out[at] = n >>> 24;
  out[at + 1] = (n >>> 16) & 0xff;
  out[at + 2] = (n >>> 8) & 0xff;
  out[at + 3] = n & 0xff;
}

/** A fixed-width part is the same whether or not it ends the key. */
function fixedWidth<T>(
  name: string,
  width: number,
  write: (out: Uint8Array, value: T) => void,
  read: (view: DataView) => T,
): KeyCodec<T> {
  const codec: KeyCodec<T> = {
    name,
    encode(value) {
      const out = new Uint8Array(width);
      write(out, value);
      return out;
    },
    decode: (bytes) => decodeExactly(codec, bytes),
    encodeNonTerminal: (value) => codec.encode(value),
    decodeNonTerminal(bytes, at) {
      if (bytes.length - at < width)
        throw malformed(`${name} needs ${width} bytes at offset ${at}, only ${bytes.length - at} remain`);
      return [read(new DataView(bytes.buffer, bytes.byteOffset + at, width)), at + width];
    },
  };
  return codec;
}

/** Big-endian uint64, so that byte order is numeric order: ids, heights, times. */
export const uint64Key: KeyCodec<bigint> = fixedWidth(
  "uint64",
  8,
  (out, n) => {
    if (typeof n !== "bigint" || n < 0n || n > MAX_UINT64) throw unencodable(`uint64 out of range: ${n}`);
    new DataView(out.buffer).setBigUint64(0, n);
  },
  (view) => view.getBigUint64(0),
);

/** A big-endian uint64 read as a JS number: heights and millisecond times, never past 2^53 - 1. */
export const safeUint64Key: KeyCodec<number> = fixedWidth(
  "uint64",
  8,
  (out, n) => {
    if (!Number.isSafeInteger(n) || n < 0) throw unencodable(`uint64 not a safe non-negative integer: ${n}`);
    // Byte by byte, without a BigInt or a DataView: the high 21 bits, then the low 32.
    writeUint32(out, 0, Math.floor(n / 2 ** 32));
    writeUint32(out, 4, n >>> 0);
  },
  (view) => {
    const n = view.getBigUint64(0);
    if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw malformed(`uint64 ${n} is beyond 2^53 - 1`);
    return Number(n);
  },
);

/** Big-endian uint32 (a tx's index in its block). */
export const uint32Key: KeyCodec<number> = fixedWidth(
  "uint32",
  4,
  (out, n) => {
    if (!Number.isInteger(n) || n < 0 || n > 0xffff_ffff) throw unencodable(`uint32 out of range: ${n}`);
    writeUint32(out, 0, n);
  },
  (view) => view.getUint32(0),
);
