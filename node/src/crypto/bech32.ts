import { bech32 } from "@scure/base";

/** Cosmos addresses may exceed BIP-173's 90-character limit (module and contract addresses). */
const MAX_LENGTH = 1023;

export function encodeBech32(prefix: string, bytes: Uint8Array): string {
  return bech32.encode(prefix, bech32.toWords(bytes), MAX_LENGTH);
}

/** Decodes and checks the prefix; throws an Error that names what is wrong. */
export function decodeBech32(text: string, expectedPrefix?: string): Uint8Array {
  let decoded: { prefix: string; words: number[] };
  try {
    decoded = bech32.decode(text as `${string}1${string}`, MAX_LENGTH);
  } catch (e) {
    throw new Error(`decoding bech32 failed: ${(e as Error).message}`);
  }
  if (expectedPrefix !== undefined && decoded.prefix !== expectedPrefix) {
    throw new Error(`invalid Bech32 prefix; expected ${expectedPrefix}, got ${decoded.prefix}`);
  }
  return bech32.fromWords(decoded.words);
}
