/**
 * Bytes as a Map key: one latin1 character per byte, read in place, so distinct bytes give distinct keys, string
 * order is byte order, and no hex text or copy is made on hot paths (every store read and write goes through one).
 */
export function mapKey(bytes: Uint8Array): string {
  // Keys are short: one call, without the Buffer a latin1 decode would allocate.
  if (bytes.length <= 256) return String.fromCharCode.apply(null, bytes as unknown as number[]);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
}
