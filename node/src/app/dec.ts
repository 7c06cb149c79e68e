import { ChainError } from "../errors/chain-error.js";
import { SdkErrors } from "../errors/sdk-errors.js";

/** Cosmos' LegacyDec: a fixed-point decimal with 18 places, held as a bigint scaled by 10^18. */
export const DEC_ONE = 10n ** 18n;

export function parseDec(text: string, what = "decimal"): bigint {
  const m = /^(-?)(\d+)(?:\.(\d{1,18}))?$/.exec(text.trim());
  if (!m) throw ChainError.wrap(SdkErrors.InvalidRequest, `invalid ${what} ${JSON.stringify(text)}`);
  const v = BigInt(m[2]) * DEC_ONE + BigInt((m[3] ?? "").padEnd(18, "0") || "0");
  return m[1] ? -v : v;
}

/** Always with 18 decimals, as Cosmos prints Dec values ("0.334000000000000000"). */
export function formatDec(v: bigint): string {
  const neg = v < 0n;
  const a = neg ? -v : v;
  return `${neg ? "-" : ""}${a / DEC_ONE}.${(a % DEC_ONE).toString().padStart(18, "0")}`;
}

/** A LegacyDec as gogoproto puts it on the wire and in state: the scaled digits ("100000000000000000" is 0.1). */
export function formatDecWire(v: bigint): string {
  return v.toString();
}

/**
 * A LegacyDec field from the wire or from state: the scaled digits, or decimal text (what state written by
 * earlier versions of this node holds, and what genesis JSON carries). Empty is Go's nil Dec, zero.
 */
export function parseDecWire(text: string, what = "decimal"): bigint {
  if (text === "") return 0n;
  if (/^-?\d{1,60}$/.test(text)) return BigInt(text);
  return parseDec(text, what);
}
