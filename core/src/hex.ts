/** Lower-case hex of bytes: node ids, keys and digests in files and logs. */
export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

/** Upper-case hex, as CometBFT prints tx hashes, block hashes and validator addresses. */
export function toHexUpper(bytes: Uint8Array): string {
  return toHex(bytes).toUpperCase();
}

/** Bytes of hex text; refuses odd lengths and non-hex characters instead of silently truncating. */
export function fromHex(text: string): Uint8Array {
  if (text.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(text))
    throw new Error(`invalid hex ${JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text)}`);
  return new Uint8Array(Buffer.from(text, "hex"));
}
