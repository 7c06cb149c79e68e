import { existsSync } from "node:fs";
import { join } from "node:path";
import { decodeBlockStoreState, heightValue } from "@chaind/core/comet-block-store-state";
import { VisorError } from "../errors/visor-error.js";
import { readSnapshotKey } from "./leveldb-snapshot.js";

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

/**
 * The last height the home itself committed, read from its own database while the node runs (through a
 * snapshot, see leveldb-snapshot.ts): what decides that a height-triggered upgrade is due, whatever a server on
 * the node's port claims. `scratch` is a folder visor may fill and remove, on the databases' file system.
 */
export async function readHomeHeight(
  home: string,
  scratch: string,
): Promise<{ height: number; from: string }> {
  const tried: string[] = [];
  for (const store of STORES) {
    const dir = join(home, "data", store.dir);
    if (!existsSync(join(dir, "CURRENT"))) continue;
    let failure: string;
    try {
      const raw = await readSnapshotKey(dir, store.key, scratch);
      const height = raw === undefined ? null : store.decode(raw);
      if (height !== null) return { height, from: `${store.what} (${dir})` };
      failure = raw === undefined ? "no height recorded" : "the height record is not one visor reads";
    } catch (e) {
      failure = (e as Error).message;
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
