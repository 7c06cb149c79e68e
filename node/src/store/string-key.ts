import { type KeyCodec, malformed, unencodable } from "./key-codec.js";
import { utf8Bytes } from "./utf8-bytes.js";

/** Strict, and keeps a leading U+FEFF: a key decodes to the very string that was encoded, or fails. */
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw malformed(`string part is not valid UTF-8 (${bytes.length} bytes)`);
  }
}

/**
 * UTF-8 text (Cosmos' StringKey): as it is when it ends the key (a denom, an upgrade name), ended by a 0x00
 * byte when more parts follow (the block store's event index), so such a string may not hold U+0000.
 */
export const stringKey: KeyCodec<string> = {
  name: "string",
  encode: (s) => utf8Bytes(s),
  decode: decodeUtf8,
  encodeNonTerminal(s) {
    if (s.includes("\0"))
      throw unencodable(`string ${JSON.stringify(s)} holds a NUL, which would end it early`);
    return utf8Bytes(s, 1);
  },
  decodeNonTerminal(bytes, at) {
    const end = bytes.indexOf(0, at);
    if (end < 0) throw malformed(`string at offset ${at} has no 0x00 terminator`);
    return [decodeUtf8(bytes.subarray(at, end)), end + 1];
  },
};
