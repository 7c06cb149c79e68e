import { existsSync } from "node:fs";
import { join } from "node:path";
import { readSnapshotKey } from "./leveldb-snapshot.js";
import { VisorError } from "./visor-error.js";

/** A non-negative safe integer from a JSON number or string; null otherwise. */
function heightValue(v: unknown): number | null {
  const n = typeof v === "string" && /^\d+$/.test(v) ? Number(v) : v;
  return typeof n === "number" && Number.isSafeInteger(n) && n >= 0 ? n : null;
}

/**
 * CometBFT's `blockStore` record: JSON `{"base":"1","height":"N"}` in Tendermint (amino JSON quotes int64),
 * protobuf `BlockStoreState{int64 base = 1; int64 height = 2}` since.
 */
export function decodeBlockStoreState(raw: Uint8Array): number | null {
  const bytes = Buffer.from(raw);
  if (bytes.toString("latin1").trimStart().startsWith("{")) {
    try {
      const doc = JSON.parse(bytes.toString("utf8")) as { height?: unknown; Height?: unknown };
      return heightValue(doc.height ?? doc.Height);
    } catch {
      return null;
    }
  }
  let at = 0;
  const varint = (): bigint | null => {
    let v = 0n;
    for (let shift = 0n; at < bytes.length && shift < 70n; shift += 7n) {
      const b = bytes[at++];
      v |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return v;
    }
    return null;
  };
  let height: number | null = 0;
  while (at < bytes.length) {
    const tag = varint();
    if (tag === null) return null;
    const wire = Number(tag & 7n);
    if (wire === 0) {
      const v = varint();
      if (v === null) return null;
      if (tag >> 3n === 2n) height = v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : null;
    } else if (wire === 2) {
      const len = varint();
      if (len === null) return null;
      at += Number(len);
    } else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else return null;
    if (at > bytes.length) return null;
  }
  return height;
}

/** chaind's commit record: key 0x00 "commit", JSON `{"height", "appHash", "earliest"}`. */
function decodeChaindCommit(raw: Uint8Array): number | null {
  try {
    return heightValue((JSON.parse(Buffer.from(raw).toString("utf8")) as { height?: unknown }).height);
  } catch {
    return null;
  }
}

/** The databases a home keeps its committed height in, in the order they are looked for. */
const STORES = [
  {
    dir: "blockstore.db",
    what: "CometBFT's block store",
    key: new TextEncoder().encode("blockStore"),
    decode: decodeBlockStoreState,
  },
  {
    dir: "application.db",
    what: "chaind's state store",
    key: Uint8Array.from([0x00, ...new TextEncoder().encode("commit")]),
    decode: decodeChaindCommit,
  },
];

/** A snapshot can lose a race with a compaction; a few tries settle it. */
const ATTEMPTS = 3;

/**
 * The last height the home itself committed, read from its own database while the node runs (through a
 * snapshot, see leveldb-snapshot.ts): what decides that a height-triggered upgrade is due, whatever a server on
 * the node's port claims. `scratch` is a folder visor may use and remove (on the home's file system).
 */
export async function readHomeHeight(
  home: string,
  scratch: string,
): Promise<{ height: number; from: string }> {
  const tried: string[] = [];
  for (const store of STORES) {
    const dir = join(home, "data", store.dir);
    if (!existsSync(join(dir, "CURRENT"))) continue;
    let failure = "";
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      try {
        const raw = await readSnapshotKey(dir, store.key, scratch);
        if (raw === undefined) {
          failure = "no height recorded";
          break;
        }
        const height = store.decode(raw);
        if (height === null) {
          failure = "the height record is not one visor reads";
          break;
        }
        return { height, from: `${store.what} (${dir})` };
      } catch (e) {
        failure = (e as Error).message;
      }
    }
    tried.push(`${store.what} (${dir}): ${failure}`);
  }
  throw new VisorError(
    "HOME_HEIGHT",
    tried.length
      ? `cannot read the home's own height: ${tried.join("; ")}`
      : `cannot read the home's own height: no LevelDB block store in ${join(home, "data")} (blockstore.db, application.db)`,
  );
}
