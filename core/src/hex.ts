/** Lower-case hex of bytes: node ids, keys and digests in files and logs. */
export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

/** Upper-case hex, as CometBFT prints tx hashes, block hashes and validator addresses. */
export function toHexUpper(bytes: Uint8Array): string {
  return toHex(bytes).toUpperCase();
}
