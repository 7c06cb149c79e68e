import { mapKey } from "./map-key.js";
import type { IterateOptions } from "./multi-store.js";

/**
 * Names of reads for the state store's read caches. Each variable part stands behind its length and an absent
 * one is "-", so distinct reads never share a name: a range's prefix with a NUL appended must not name the
 * range whose start begins with that NUL.
 */
const part = (s: string) => `${s.length}:${s}`;
const optional = (b: Uint8Array | undefined) => (b ? part(mapKey(b)) : "-");

/** A key's value in `store`, the latest one or the one at `height`. */
export function valueReadId(store: string, key: Uint8Array, height?: number): string {
  return `${height ?? "-"}:${part(store)}${mapKey(key)}`;
}

/** A range of `store` in its direction, at the latest height or at `height`. */
export function rangeReadId(store: string, opts: IterateOptions, height?: number): string {
  return `${height ?? "-"}:${part(store)}${optional(opts.prefix)}${optional(opts.start)}${optional(opts.end)}${opts.reverse ? "r" : "f"}`;
}
