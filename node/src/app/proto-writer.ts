/**
 * Protobuf wire bytes written by hand into one buffer of a size worked out beforehand, for the few records on
 * every tx's path (stored accounts, sign docs, tx results) where protobuf-es' reflective writer, which grows
 * its buffer as it goes, was a visible share of the CPU. Callers write fields as protobuf-es does: in field
 * order, leaving out fields that hold their default value; tests compare them with protobuf-es.
 */
export class ProtoWriter {
  private readonly out: Uint8Array;
  private at = 0;

  constructor(size: number) {
    this.out = new Uint8Array(size);
  }

  byte(b: number): void {
    this.out[this.at++] = b;
  }

  varint(n: bigint | number): void {
    if (n < 0x1_0000_0000) {
      // Lengths and most counters: number arithmetic, no bigint steps.
      let v = Number(n);
      while (v >= 0x80) {
        this.out[this.at++] = (v & 0x7f) | 0x80;
        v >>>= 7;
      }
      this.out[this.at++] = v;
      return;
    }
    let v = BigInt(n);
    while (v >= 0x80n) {
      this.out[this.at++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.out[this.at++] = Number(v);
  }

  /** Text known to be ASCII: one byte per character. */
  ascii(s: string): void {
    for (let i = 0; i < s.length; i++) this.out[this.at++] = s.charCodeAt(i);
  }

  bytes(b: Uint8Array): void {
    this.out.set(b, this.at);
    this.at += b.length;
  }

  /** A length-delimited field: tag, length, bytes. */
  lengthDelimited(tag: number, b: Uint8Array): void {
    this.byte(tag);
    this.varint(b.length);
    this.bytes(b);
  }

  /** The buffer, which must be exactly full: a size worked out wrong is a bug, not a shorter record. */
  done(): Uint8Array {
    if (this.at !== this.out.length)
      throw new Error(`protobuf record sized ${this.out.length}, wrote ${this.at}`);
    return this.out;
  }
}

/** The bytes a varint of `n` (non-negative, below 2^64) takes. */
export function varintSize(n: bigint | number): number {
  let size = 1;
  if (n < 0x1_0000_0000) {
    for (let v = Number(n); v >= 0x80; v >>>= 7) size++;
    return size;
  }
  for (let v = BigInt(n); v >= 0x80n; v >>= 7n) size++;
  return size;
}

/** The size of a length-delimited field of `len` bytes; 0 when it is empty, as protobuf-es leaves it out. */
export function lengthDelimitedSize(len: number): number {
  return len === 0 ? 0 : 1 + varintSize(len) + len;
}
