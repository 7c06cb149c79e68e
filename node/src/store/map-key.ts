/**
 * Bytes as a Map key: one latin1 character per byte, read in place, so string order is byte order and no hex
 * text or copy is made on hot paths (every store read and write of a block goes through one).
 */
export function mapKey(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
}
