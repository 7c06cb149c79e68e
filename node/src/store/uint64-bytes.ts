/** Big-endian uint64, the way store keys hold heights, ids and times so that byte order is numeric order. */
export function uint64Bytes(n: bigint): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, n);
  return b;
}

export function readUint64(b: Uint8Array, at = 0): bigint {
  return new DataView(b.buffer, b.byteOffset + at, 8).getBigUint64(0);
}
