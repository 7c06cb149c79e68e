/**
 * Padded standard base64 (Go's StdEncoding) decoded, or undefined when `text` is anything else: Node's own
 * decoder skips what it cannot read, so a typo would otherwise give other bytes silently.
 */
export function strictBase64(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return undefined;
  return Uint8Array.from(Buffer.from(text, "base64"));
}
