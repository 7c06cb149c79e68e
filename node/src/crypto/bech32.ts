import { bech32 } from "@scure/base";

/** Cosmos addresses may exceed BIP-173's 90-character limit (module and contract addresses). */
const MAX_LENGTH = 1023;

export function encodeBech32(prefix: string, bytes: Uint8Array): string {
  return bech32.encode(prefix, bech32.toWords(bytes), MAX_LENGTH);
}

/**
 * Decodes and checks the prefix; throws an Error that names what is wrong (bad checksum, wrong prefix,
 * bad length, bad characters, empty data).
 */
export function decodeBech32(text: string, expectedPrefix?: string): Uint8Array {
  if (typeof text !== "string" || text.length === 0) throw new Error("decoding bech32 failed: empty string");
  if (text.length < 8 || text.length > MAX_LENGTH) {
    throw new Error(
      `decoding bech32 failed: invalid length ${text.length}, expected 8..${MAX_LENGTH} characters`,
    );
  }
  let decoded: { prefix: string; words: number[] };
  try {
    decoded = bech32.decode(text as `${string}1${string}`, MAX_LENGTH);
  } catch (e) {
    const msg = (e as Error).message;
    // @scure/base says "Invalid checksum in <string>"; keep our message short and uniform.
    if (/checksum/i.test(msg)) throw new Error(`decoding bech32 failed: invalid checksum in ${text}`);
    throw new Error(`decoding bech32 failed: ${msg}`);
  }
  if (expectedPrefix !== undefined && decoded.prefix !== expectedPrefix) {
    throw new Error(`invalid Bech32 prefix; expected ${expectedPrefix}, got ${decoded.prefix}`);
  }
  let bytes: Uint8Array;
  try {
    bytes = bech32.fromWords(decoded.words);
  } catch (e) {
    throw new Error(`decoding bech32 failed: invalid data padding (${(e as Error).message})`);
  }
  if (bytes.length === 0) throw new Error("decoding bech32 failed: empty data");
  return bytes;
}
