import { decodeExactly, type KeyCodec, malformed, unencodable } from "./key-codec.js";

/** A length byte caps a length-prefixed part, as Cosmos caps addresses (MaxAddrLen). */
const MAX_PREFIXED_LENGTH = 255;

function lengthPrefixed(name: string, bytes: Uint8Array): Uint8Array {
  if (bytes.length > MAX_PREFIXED_LENGTH)
    throw unencodable(`${name} of ${bytes.length} bytes is longer than its length byte allows (255)`);
  const out = new Uint8Array(1 + bytes.length);
  out[0] = bytes.length;
  out.set(bytes, 1);
  return out;
}

function readLengthPrefixed(name: string, bytes: Uint8Array, at: number): [Uint8Array, number] {
  if (at >= bytes.length) throw malformed(`${name} is missing its length byte at offset ${at}`);
  const end = at + 1 + bytes[at];
  if (end > bytes.length)
    throw malformed(`${name} says ${bytes[at]} bytes at offset ${at}, only ${bytes.length - at - 1} remain`);
  return [bytes.slice(at + 1, end), end];
}

/**
 * Raw bytes (Cosmos' BytesKey): as they are when they end the key (an account address after its prefix),
 * with a length byte in front when more parts follow (bank's address before the denom).
 */
export const bytesKey: KeyCodec<Uint8Array> = {
  name: "bytes",
  encode: (bytes) => new Uint8Array(bytes),
  decode: (bytes) => new Uint8Array(bytes),
  encodeNonTerminal: (bytes) => lengthPrefixed("bytes", bytes),
  decodeNonTerminal: (bytes, at) => readLengthPrefixed("bytes", bytes, at),
};

/**
 * Bytes with a length byte in front wherever they stand, as Cosmos keys addresses
 * (`address.MustLengthPrefix`): staking's validator and delegation keys.
 */
export const lengthPrefixedBytesKey: KeyCodec<Uint8Array> = {
  name: "length-prefixed bytes",
  encode: (bytes) => lengthPrefixed("length-prefixed bytes", bytes),
  decode: (bytes) => decodeExactly(lengthPrefixedBytesKey, bytes),
  encodeNonTerminal: (bytes) => lengthPrefixed("length-prefixed bytes", bytes),
  decodeNonTerminal: (bytes, at) => readLengthPrefixed("length-prefixed bytes", bytes, at),
};
