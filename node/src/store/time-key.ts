import type { KeyCodec } from "./key-codec.js";
import { malformed, unencodable } from "./key-codec.js";
import { safeUint64Key } from "./uint-keys.js";

/** The furthest time a Date holds, in ms since the epoch (ECMAScript's limit). */
const MAX_DATE_MS = 8.64e15;

const toMs = (d: Date): number => {
  const ms = d.getTime();
  if (!(ms >= 0))
    throw unencodable(`time ${Number.isNaN(ms) ? "Invalid Date" : d.toISOString()} is before 1970`);
  return ms;
};

const toDate = (ms: number): Date => {
  if (ms > MAX_DATE_MS) throw malformed(`time ${ms} ms is past the last representable date`);
  return new Date(ms);
};

/** A point in time as big-endian uint64 milliseconds since the epoch, so that keys sort by time (queues). */
export const timeKey: KeyCodec<Date> = {
  name: "time",
  encode: (d) => safeUint64Key.encode(toMs(d)),
  decode: (bytes) => toDate(safeUint64Key.decode(bytes)),
  encodeNonTerminal: (d) => safeUint64Key.encodeNonTerminal(toMs(d)),
  decodeNonTerminal(bytes, at) {
    const [ms, end] = safeUint64Key.decodeNonTerminal(bytes, at);
    return [toDate(ms), end];
  },
};
