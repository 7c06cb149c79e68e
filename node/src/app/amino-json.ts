import { ZERO_TIME_SECONDS } from "./zero-timestamps.js";

/**
 * Canonical amino JSON text: keys sorted at every level, no whitespace, and strings escaped as Go's
 * encoding/json escapes them (`<`, `>`, `&`, U+2028 and U+2029 as \uXXXX), so the bytes equal the SDK's
 * sign bytes. JSON.stringify already escapes quotes, backslashes and control characters as Go does.
 */
export function canonicalAminoJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)).replace(/[<>&\u2028\u2029]/g, escapeChar);
}

function escapeChar(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[k];
    if (v !== undefined) out[k] = sortKeys(v);
  }
  return out;
}

/**
 * A Timestamp as Go's time.RFC3339 (whole seconds) or RFC3339Nano (trailing zeros of the fraction cut), in
 * UTC; Go's zero time, which gogoproto writes for an unset non-nullable time, is `0001-01-01T00:00:00Z`.
 */
export function aminoTime(seconds: bigint, nanos: number): string {
  if (seconds < ZERO_TIME_SECONDS || seconds > 253402300799n || nanos < 0 || nanos > 999_999_999)
    throw new Error(`timestamp ${seconds}s ${nanos}ns is outside years 1 to 9999`);
  const iso = new Date(Number(seconds) * 1000).toISOString();
  // toISOString prints years 1 to 9999 with four digits: cut off its milliseconds and "Z".
  const base = iso.slice(0, 19);
  if (nanos === 0) return `${base}Z`;
  return `${base}.${nanos.toString().padStart(9, "0").replace(/0+$/, "")}Z`;
}
