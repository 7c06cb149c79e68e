import { fromBinary } from "@bufbuild/protobuf";
import { toHexUpper } from "@chaind/core/hex";
import { type Block, BlockSchema } from "@chaind/proto/tendermint/types/block_pb";
import { type BlockID, type BlockMeta, BlockMetaSchema } from "@chaind/proto/tendermint/types/types_pb";
import { type BlockResults, decodeBlockResults } from "../consensus/block-results.js";
import { BlockStore } from "../consensus/block-store.js";
import { StateHashMismatchError, type StateStore } from "../store/state-store.js";
import { SnapshotError } from "./snapshot-error.js";
import type { SnapshotMetadata } from "./snapshot-metadata.js";
import { type SnapshotStore, snapshotName } from "./snapshot-store.js";
import {
  BLOCK_SNAPSHOT_FORMAT,
  decodeSnapshotStream,
  type SnapshotBootstrap,
  type SnapshotItem,
  type SnapshotRecord,
  STATE_SNAPSHOT_FORMAT,
} from "./snapshot-stream.js";

/** Who restores: the home's chain (genesis chain id) and its validator, which must be the one that goes on. */
export interface RestoreTarget {
  chainId: string;
  validatorAddress: Uint8Array;
}

/**
 * What the restored state is checked against: an app hash the operator trusts for the snapshot's height, where
 * it came from (for the errors), and, when a verified header gave it, the id of the block at that height.
 */
export interface RestoreTrust {
  appHash: Uint8Array;
  source: string;
  blockId?: BlockID;
}

function decodeProto<T>(what: string, decode: () => T): T {
  try {
    return decode();
  } catch (e) {
    throw new SnapshotError(`the snapshot's ${what} cannot be decoded: ${(e as Error).message}`);
  }
}

/** Checks the bootstrap record against the metadata and the home, and decodes the last block's records. */
function checkBootstrap(
  b: SnapshotBootstrap,
  meta: SnapshotMetadata,
  target: RestoreTarget,
): { block: Block; blockMeta: BlockMeta; results: BlockResults; appHash: Uint8Array } {
  const name = snapshotName(meta.height, meta.format);
  const { header } = b;
  if (header.height !== meta.height || header.app_hash !== meta.app_hash)
    throw new SnapshotError(
      `snapshot ${name}: its stream and its metadata disagree on the height or app hash`,
    );
  if (header.chain_id !== target.chainId)
    throw new SnapshotError(
      `snapshot ${name} is of chain ${header.chain_id}, but this home's genesis is of chain ${target.chainId}`,
    );
  const { lastBlock } = b;
  if (!lastBlock) throw new SnapshotError(`snapshot ${name} carries no last block`);
  const block = decodeProto("last block", () => fromBinary(BlockSchema, lastBlock.block));
  const blockMeta = decodeProto("last block meta", () => fromBinary(BlockMetaSchema, lastBlock.blockMeta));
  const results = decodeProto("last block results", () => decodeBlockResults(lastBlock.blockResults));
  if (Number(block.header?.height) !== meta.height || Number(blockMeta.header?.height) !== meta.height)
    throw new SnapshotError(`snapshot ${name}: its last block is not block ${meta.height}`);
  const proposer = block.header?.proposerAddress ?? new Uint8Array();
  // The embedded producer signs every block with this home's key: a node with another key would fork the chain.
  if (Buffer.compare(proposer, target.validatorAddress) !== 0)
    throw new SnapshotError(
      `snapshot ${name} was produced by validator ${toHexUpper(proposer)}, but this home's priv_validator_key.json ` +
        `is validator ${toHexUpper(target.validatorAddress)}; restore into a home with the chain's validator key`,
    );
  return { block, blockMeta, results, appHash: new Uint8Array(Buffer.from(header.app_hash, "hex")) };
}

/** The state items after the bootstrap record. */
export async function* stateItemsOf(records: AsyncIterator<SnapshotRecord>): AsyncIterable<SnapshotItem> {
  for (let r = await records.next(); !r.done; r = await records.next()) {
    if (r.value.kind !== "item")
      throw new SnapshotError("the snapshot stream holds a second bootstrap record");
    yield r.value;
  }
}

/**
 * `snapshots restore`: checks the app hash the snapshot claims against the one the operator trusts, verifies
 * every chunk (a corrupted one is refused by name before anything is written), then imports the state and the
 * last block into an empty store, recomputing the app hash from the entries as they come. A failure while
 * importing (a state whose entries hash to another app hash among them) clears the store again, so the home
 * stays fresh and the restore can be retried.
 */
export async function restoreSnapshot(
  state: StateStore,
  snapshots: SnapshotStore,
  meta: SnapshotMetadata,
  target: RestoreTarget,
  trust: RestoreTrust,
): Promise<{ items: number; appHash: Uint8Array }> {
  const name = snapshotName(meta.height, meta.format);
  if (meta.app_hash !== toHexUpper(trust.appHash))
    throw new SnapshotError(
      `snapshot ${name} claims app hash ${meta.app_hash} at height ${meta.height}, but ${trust.source} says it is ${toHexUpper(trust.appHash)}`,
    );
  if (meta.format === STATE_SNAPSHOT_FORMAT)
    throw new SnapshotError(
      `snapshot ${name} is of format ${STATE_SNAPSHOT_FORMAT}, taken under CometBFT: CometBFT restores it (state sync, config.toml [statesync])`,
    );
  if (meta.format !== BLOCK_SNAPSHOT_FORMAT)
    throw new SnapshotError(
      `snapshot format ${meta.format} is not supported (this node restores format ${BLOCK_SNAPSHOT_FORMAT})`,
    );
  if (!(await state.isEmpty()))
    throw new SnapshotError(
      `cannot restore into ${state.dir}: it already holds a chain; restore into a fresh home (or remove the data folder's application.db)`,
    );
  await snapshots.verify(meta);
  const records = decodeSnapshotStream(meta.format, snapshots.verifiedChunks(meta))[Symbol.asyncIterator]();
  try {
    const first = await records.next();
    if (first.done || first.value.kind !== "bootstrap")
      throw new SnapshotError("the snapshot stream does not start with its bootstrap record");
    const { block, blockMeta, results, appHash } = checkBootstrap(first.value.bootstrap, meta, target);
    const want = trust.blockId?.hash;
    if (want && Buffer.compare(blockMeta.blockId?.hash ?? new Uint8Array(), want) !== 0)
      throw new SnapshotError(
        `snapshot ${name} brings block ${toHexUpper(blockMeta.blockId?.hash ?? new Uint8Array())} at height ${meta.height}, but ${trust.source} says it is ${toHexUpper(want)}`,
      );
    const items = await state.importState(
      meta.height,
      appHash,
      stateItemsOf(records),
      BlockStore.bootstrapOps(block, blockMeta, results),
    );
    return { items, appHash };
  } catch (e) {
    await state.db.clear();
    if (e instanceof StateHashMismatchError)
      throw new SnapshotError(`snapshot ${name} is not the state it claims: ${e.message} (${trust.source})`);
    throw e;
  }
}
