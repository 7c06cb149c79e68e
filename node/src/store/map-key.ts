/**
 * Node's latin1 decoder, applied to a Uint8Array in place: Buffer#toString("latin1") without the Buffer, about a
 * third of the cost of `String.fromCharCode.apply` on store-key sizes. Not in Node's typings, so looked up.
 */
const latin1Slice = (
  Buffer.prototype as unknown as { latin1Slice?: (this: Uint8Array, start: number, end: number) => string }
).latin1Slice;

/**
 * Bytes as a Map key: one latin1 character per byte, read in place, so distinct bytes give distinct keys, string
 * order is byte order, and no hex text or copy is made on hot paths (every store read and write goes through one).
 */
export function mapKey(bytes: Uint8Array): string {
  if (latin1Slice) return latin1Slice.call(bytes, 0, bytes.length);
  if (bytes.length <= 256) return String.fromCharCode.apply(null, bytes as unknown as number[]);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
}
