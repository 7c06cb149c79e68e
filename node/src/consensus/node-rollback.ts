import { silentLogger } from "@chaind/core/logger";
import { PRUNING_NOTHING } from "../store/pruning.js";
import { stateRollbackOps } from "../store/state-rollback.js";
import { StateStore } from "../store/state-store.js";
import { BlockStore } from "./block-store.js";

export interface NodeRollbackResult {
  /** The height the state is at now. */
  height: number;
  /** Its app hash. */
  appHash: Uint8Array;
}

/**
 * Undoes the last block's state on a stopped node's database, with CometBFT's rules for `rollback`:
 * - state and block store both at H: the state goes back to H-1 (its app hash is the one block H's header
 *   carries) and block H's results and indexes go, so the next start executes the saved block H again and,
 *   with the same binary, reaches the same app hash. `removeBlock` removes block H too; the next start then
 *   makes a new block H.
 * - block store one ahead (the node stopped in block H+1 before applying it, as at an upgrade halt): the state
 *   is already the one before that block and stays; `removeBlock` removes the saved block.
 * Everything is written in one LevelDB batch. Opening the database takes its lock, so a running node's is refused
 * (StoreLockedError).
 */
export async function rollbackNode(
  dbDir: string,
  opts: { removeBlock: boolean },
): Promise<NodeRollbackResult> {
  // Nothing is committed through the store here, so pruning never runs: its settings do not matter.
  const store = await StateStore.open({ dir: dbDir, pruning: PRUNING_NOTHING }, { logger: silentLogger });
  try {
    return await rollbackOpenStore(store, opts);
  } finally {
    await store.close();
  }
}

async function rollbackOpenStore(
  store: StateStore,
  opts: { removeBlock: boolean },
): Promise<NodeRollbackResult> {
  const blocks = await BlockStore.open(store);
  const unapplied = blocks.unappliedHeight;
  if (unapplied !== undefined) {
    if (opts.removeBlock) await store.db.batch(await blocks.blockRemovalOps(unapplied), { sync: true });
    return { height: store.latestHeight, appHash: store.latestAppHash };
  }
  const height = store.latestHeight;
  const meta = height > 0 ? await blocks.meta(height) : undefined;
  // Heights 0 and 1 are refused by the state rollback; a missing block above them is a damaged store.
  if (height > 1 && !meta?.header)
    throw new Error(`block ${height} is missing from the block store; cannot tell the app hash before it`);
  const appHashBefore = meta?.header?.appHash ?? new Uint8Array();
  const ops = [
    ...(await stateRollbackOps(store, appHashBefore)),
    ...(await blocks.recordsRemovalOps(height)),
    ...(opts.removeBlock ? await blocks.blockRemovalOps(height) : []),
  ];
  await store.db.batch(ops, { sync: true });
  return { height: height - 1, appHash: appHashBefore };
}
