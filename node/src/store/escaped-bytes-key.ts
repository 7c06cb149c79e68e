import { decodeExactly, type KeyCodec, malformed } from "./key-codec.js";
import { stringKey } from "./string-key.js";

/**
 * Keys of different lengths share the state store's keyspaces with a height after them, so a raw key
 * followed by a height could sort among another key's versions. Escaping 0x00 as 0x00 0xFF and ending with
 * 0x00 0x00 keeps byte order and prefixes while making every key's versions contiguous.
 */
const ESCAPED_ZERO = 0xff;

function escapeZeros(bytes: Uint8Array, terminate: boolean, lead?: Uint8Array): Uint8Array {
  let zeros = 0;
  for (const b of bytes) if (b === 0) zeros++;
  const leadLength = lead?.length ?? 0;
  // A new array is zero-filled, so the terminator is already there.
  const out = new Uint8Array(leadLength + bytes.length + zeros + (terminate ? 2 : 0));
  if (lead) out.set(lead);
  let at = leadLength;
  for (const b of bytes) {
    out[at++] = b;
    if (b === 0) out[at++] = ESCAPED_ZERO;
  }
  return out;
}

/** The escaped bytes without the terminator: the prefix of every escaped key that starts with `bytes`. */
export const escapeBytes = (bytes: Uint8Array): Uint8Array => escapeZeros(bytes, false);

const escapeTerminated = (bytes: Uint8Array): Uint8Array => escapeZeros(bytes, true);

/** `lead` followed by `bytes` escaped and terminated, in one allocation (a key's records on hot paths). */
export const escapedAfter = (lead: Uint8Array, bytes: Uint8Array): Uint8Array =>
  escapeZeros(bytes, true, lead);

function readEscaped(buf: Uint8Array, at: number): [Uint8Array, number] {
  let zeros = 0;
  for (let i = at; i < buf.length; i++) {
    if (buf[i] !== 0) continue;
    const next = buf[i + 1];
    if (next === 0) {
      const out = new Uint8Array(i - at - zeros);
      let o = 0;
      for (let j = at; j < i; j++) {
        out[o++] = buf[j];
        if (buf[j] === 0) j++;
      }
      return [out, i + 2];
    }
    if (next !== ESCAPED_ZERO)
      throw malformed(
        next === undefined
          ? `escaped segment at offset ${at} has no 0x00 0x00 terminator`
          : `escaped segment at offset ${at} has 0x00 followed by 0x${next.toString(16).padStart(2, "0")}`,
      );
    zeros++;
    i++;
  }
  throw malformed(`escaped segment at offset ${at} has no 0x00 0x00 terminator`);
}

/** Bytes escaped and terminated (the state store's user keys); self-delimiting wherever they stand. */
export const escapedBytesKey: KeyCodec<Uint8Array> = {
  name: "escaped bytes",
  encode: escapeTerminated,
  decode: (bytes) => decodeExactly(escapedBytesKey, bytes),
  encodeNonTerminal: escapeTerminated,
  decodeNonTerminal: readEscaped,
};

/** A UTF-8 string escaped and terminated (the state store's store names). */
export const escapedStringKey: KeyCodec<string> = {
  name: "escaped string",
  encode: (s) => escapeTerminated(stringKey.encode(s)),
  decode: (bytes) => decodeExactly(escapedStringKey, bytes),
  encodeNonTerminal: (s) => escapeTerminated(stringKey.encode(s)),
  decodeNonTerminal(bytes, at) {
    const [raw, end] = readEscaped(bytes, at);
    return [stringKey.decode(raw), end];
  },
};
