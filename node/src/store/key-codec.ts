import { KeyCodecError } from "./store-errors.js";

/**
 * A two-way codec for one part of a store key, in the manner of the Cosmos SDK's collections. The terminal
 * form is used when the part ends the key and may run to its end; the non-terminal form when more parts
 * follow, so it must say where it stops (a length byte, a terminator, or a fixed width).
 */
export interface KeyCodec<T> {
  /** What the part holds ("uint64", "bytes", ...), for error messages. */
  readonly name: string;
  encode(value: T): Uint8Array;
  /** The value of exactly these bytes: a short read or bytes left over is a KeyCodecError. */
  decode(bytes: Uint8Array): T;
  encodeNonTerminal(value: T): Uint8Array;
  /** Reads the part starting at `at`; answers the value and the offset just past it. */
  decodeNonTerminal(bytes: Uint8Array, at: number): [T, number];
}

export const malformed = (detail: string) => new KeyCodecError("MALFORMED_KEY", detail);
export const unencodable = (detail: string) => new KeyCodecError("UNENCODABLE_KEY", detail);

/** Decodes a whole key with a non-terminal reader, refusing anything after the part. */
export function decodeExactly<T>(codec: KeyCodec<T>, bytes: Uint8Array): T {
  const [value, end] = codec.decodeNonTerminal(bytes, 0);
  if (end !== bytes.length)
    throw malformed(`${bytes.length - end} byte(s) left over after ${codec.name} (${bytes.length} bytes)`);
  return value;
}
