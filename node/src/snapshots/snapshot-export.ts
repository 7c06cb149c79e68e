import type { StateStore } from "../store/state-store.js";
import { SnapshotError } from "./snapshot-error.js";
import type { SnapshotMetadata } from "./snapshot-metadata.js";
import { latestSnapshotSource, retainedSnapshotSource, type SnapshotSource } from "./snapshot-source.js";
import { type SnapshotStore, snapshotName } from "./snapshot-store.js";
import { BLOCK_SNAPSHOT_FORMAT, encodeSnapshotStream, formatOf } from "./snapshot-stream.js";

/** Streams a source into the snapshot store as chunks of its format, then lets go of the source. */
export async function writeSnapshot(
  source: SnapshotSource,
  snapshots: SnapshotStore,
  chunkBytes?: number,
): Promise<SnapshotMetadata> {
  try {
    const { header } = source.bootstrap;
    return await snapshots.save(
      {
        height: header.height,
        format: formatOf(source.bootstrap),
        chain_id: header.chain_id,
        app_hash: header.app_hash,
      },
      encodeSnapshotStream(source.bootstrap, source.items),
      chunkBytes,
    );
  } finally {
    await source.close();
  }
}

/** `snapshots export`: a snapshot of the latest height, or of a retained one, from a stopped node's store. */
export async function exportSnapshot(
  state: StateStore,
  snapshots: SnapshotStore,
  chainId: string,
  height?: number,
): Promise<SnapshotMetadata> {
  const at = height ?? state.latestHeight;
  if (at === 0) throw new SnapshotError("cannot export a snapshot: no block has been committed yet");
  if (snapshots.get(at, BLOCK_SNAPSHOT_FORMAT))
    throw new SnapshotError(`snapshot ${snapshotName(at, BLOCK_SNAPSHOT_FORMAT)} already exists`);
  const source =
    height === undefined
      ? await latestSnapshotSource(state, chainId)
      : await retainedSnapshotSource(state, chainId, height);
  return writeSnapshot(source, snapshots);
}
