import { type DescField, getOption, ScalarType } from "@bufbuild/protobuf";
import { scalar } from "@chaind/proto/sdk/scalar/v1/scalar_pb";
import { formatDec } from "./dec.js";

/**
 * A field marked `sdk.LegacyDec` holds a decimal's digits scaled by 10^18 (as text, or as the ASCII bytes of
 * that text), as gogoproto writes a LegacyDec custom type; Cosmos gateways print it as the decimal.
 */
export function isLegacyDecField(f: DescField): boolean {
  return getOption(f, scalar) === "sdk.LegacyDec";
}

/** The protojson of such a field (plain text, or base64 for bytes) as the decimal it holds. */
export function legacyDecJson(f: DescField, json: string): string {
  const digits =
    f.fieldKind === "scalar" && f.scalar === ScalarType.BYTES ? Buffer.from(json, "base64").toString() : json;
  // Go's zero LegacyDec (nil) prints as 0.
  return /^\d*$/.test(digits) ? formatDec(BigInt(digits || "0")) : json;
}
