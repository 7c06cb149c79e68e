import type { Timestamp } from "@bufbuild/protobuf/wkt";

/** A block time as Go prints time.Time (RFC 3339 with nanoseconds, trailing zeros trimmed), in UTC. */
export function rfc3339(ts: Timestamp | undefined): string {
  const seconds = Number(ts?.seconds ?? 0n);
  const nanos = ts?.nanos ?? 0;
  const base = new Date(seconds * 1000).toISOString().slice(0, 19);
  const frac = nanos ? `.${String(nanos).padStart(9, "0").replace(/0+$/, "")}` : "";
  return `${base}${frac}Z`;
}
