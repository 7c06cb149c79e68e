import type { DescField } from "@bufbuild/protobuf";

/**
 * Timestamp fields Cosmos declares `(gogoproto.stdtime) = true, (gogoproto.nullable) = false`: Go holds a zero
 * `time.Time` there, never nil, so Cosmos' JSON prints the zero time where protojson leaves the field out.
 */
const NON_NULLABLE_TIMESTAMPS: ReadonlySet<string> = new Set([
  "sdk.upgrade.v1beta1.Plan.time",
  "sdk.gov.v1beta1.Proposal.submit_time",
  "sdk.gov.v1beta1.Proposal.deposit_end_time",
  "sdk.gov.v1beta1.Proposal.voting_start_time",
  "sdk.gov.v1beta1.Proposal.voting_end_time",
]);

export const ZERO_TIME_JSON = "0001-01-01T00:00:00Z";
/** The same instant as Unix seconds, a Timestamp's `seconds`. */
export const ZERO_TIME_SECONDS = -62135596800n;

/** What Cosmos prints for this field when it is unset: the zero time, or `null` for a nullable message. */
export function unsetMessageJson(field: DescField): string | null {
  return NON_NULLABLE_TIMESTAMPS.has(`${field.parent.typeName}.${field.name}`) ? ZERO_TIME_JSON : null;
}
