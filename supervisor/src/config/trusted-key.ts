/** A VISOR_TRUSTED_KEYS entry as its 32 bytes (64 hex digits or base64), or null when it is not one. */
export function trustedKeyBytes(k: string): Uint8Array | null {
  const bytes = /^[0-9a-fA-F]{64}$/.test(k) ? Buffer.from(k, "hex") : Buffer.from(k, "base64");
  return bytes.length === 32 ? bytes : null;
}
