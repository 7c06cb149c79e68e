import { concatBytes } from "@chaind/core/bytes";
import { type KeyCodec, malformed } from "./key-codec.js";
import { type LeadingParts, TupleKey } from "./tuple-key.js";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

/**
 * A key layout: fixed prefix byte(s) naming the kind of record, then the key's parts. Decoding refuses a
 * key of another prefix instead of reading it as this one.
 */
export class PrefixedKey<T> implements KeyCodec<T> {
  readonly name: string;

  constructor(
    readonly prefix: Uint8Array,
    readonly inner: KeyCodec<T>,
  ) {
    this.name = `0x${hex(prefix)} ${inner.name}`;
  }

  encode(value: T): Uint8Array {
    return concatBytes(this.prefix, this.inner.encode(value));
  }

  decode(bytes: Uint8Array): T {
    this.checkPrefix(bytes, 0);
    return this.inner.decode(bytes.subarray(this.prefix.length));
  }

  encodeNonTerminal(value: T): Uint8Array {
    return concatBytes(this.prefix, this.inner.encodeNonTerminal(value));
  }

  decodeNonTerminal(bytes: Uint8Array, at: number): [T, number] {
    this.checkPrefix(bytes, at);
    return this.inner.decodeNonTerminal(bytes, at + this.prefix.length);
  }

  /** The prefix followed by leading parts of a tuple key: the range of keys that share them. */
  prefixOf<P extends readonly unknown[]>(this: PrefixedKey<P>, ...leading: LeadingParts<P>): Uint8Array {
    if (!(this.inner instanceof TupleKey)) throw new Error(`${this.name} is not a tuple key`);
    return concatBytes(this.prefix, (this.inner as TupleKey<P>).prefixOf(...leading));
  }

  private checkPrefix(bytes: Uint8Array, at: number): void {
    const p = this.prefix;
    for (let i = 0; i < p.length; i++) {
      if (bytes[at + i] !== p[i]) {
        const got = bytes.subarray(at, at + p.length);
        throw malformed(
          got.length < p.length && hex(got) === hex(p.subarray(0, got.length))
            ? `key of ${bytes.length} bytes is cut short inside its 0x${hex(p)} prefix`
            : `expected prefix 0x${hex(p)} (${this.inner.name}), got 0x${hex(got)}`,
        );
      }
    }
  }
}

export function prefixedKey<T>(prefix: number | Uint8Array, inner: KeyCodec<T>): PrefixedKey<T> {
  return new PrefixedKey(typeof prefix === "number" ? Uint8Array.of(prefix) : Uint8Array.from(prefix), inner);
}
