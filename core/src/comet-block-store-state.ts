import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";

/** A non-negative safe integer from a JSON number or string; null otherwise. */
export function heightValue(v: unknown): number | null {
  const n = typeof v === "string" && /^\d+$/.test(v) ? Number(v) : v;
  return typeof n === "number" && Number.isSafeInteger(n) && n >= 0 ? n : null;
}

/** The heights a CometBFT block store holds: `base` (the first kept) to `height` (the last saved). */
export interface BlockStoreRange {
  base: number;
  height: number;
}

/**
 * CometBFT's `blockStore` record (key "blockStore" in data/blockstore.db): JSON `{"base":"1","height":"N"}` in
 * Tendermint (amino JSON quotes int64), protobuf `BlockStoreState{int64 base = 1; int64 height = 2}` since.
 */
export function decodeBlockStoreRange(raw: Uint8Array): BlockStoreRange | null {
  const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  if (bytes.toString("latin1").trimStart().startsWith("{")) {
    try {
      const doc = JSON.parse(bytes.toString("utf8")) as Record<string, unknown>;
      const height = heightValue(doc.height ?? doc.Height);
      const base = heightValue(doc.base ?? doc.Base ?? 0);
      return height === null || base === null ? null : { base, height };
    } catch {
      return null;
    }
  }
  const r = new BinaryReader(raw);
  const range = { base: 0, height: 0 };
  try {
    while (r.pos < r.len) {
      const [field, wire] = r.tag();
      if ((field === 1 || field === 2) && wire === WireType.Varint) {
        const v = BigInt(r.int64());
        if (v < 0n || v > BigInt(Number.MAX_SAFE_INTEGER)) return null;
        range[field === 1 ? "base" : "height"] = Number(v);
      } else r.skip(wire, field);
    }
  } catch {
    return null;
  }
  return range;
}

/** The last saved height of a `blockStore` record; null when it is not one. */
export function decodeBlockStoreState(raw: Uint8Array): number | null {
  return decodeBlockStoreRange(raw)?.height ?? null;
}
