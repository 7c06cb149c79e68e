import { fromBinary } from "@bufbuild/protobuf";
import { toHexUpper } from "@chaind/core/hex";
import { BlockSchema } from "@chaind/proto/tendermint/types/block_pb";
import { BlockStoreKeys } from "../consensus/block-store-keys.js";
import { prefixEnd } from "../store/prefix-end.js";
import { parseCommitMeta, type StateStore } from "../store/state-store.js";
import { META_KEY, StateStoreKeys } from "../store/state-store-keys.js";
import { SnapshotError } from "./snapshot-error.js";
import type { LastBlockRecords, SnapshotBootstrap, SnapshotItem } from "./snapshot-stream.js";

/** The state and last block at one height, as a snapshot takes them, read from one unchanging view. */
export interface SnapshotSource {
  bootstrap: SnapshotBootstrap;
  items: AsyncIterable<SnapshotItem>;
  /** Lets go of the LevelDB snapshot it reads from; call it when done (or on failure). */
  close(): Promise<void>;
}

type Snapshot = ReturnType<StateStore["db"]["snapshot"]>;

async function lastBlockRecords(
  state: StateStore,
  height: number,
  snapshot?: Snapshot,
): Promise<LastBlockRecords> {
  const read = async (key: Uint8Array, what: string) => {
    const v = await state.db.get(key, { snapshot });
    if (v === undefined)
      throw new SnapshotError(`cannot snapshot height ${height}: the block store has no ${what} for it`);
    return new Uint8Array(v);
  };
  return {
    block: await read(BlockStoreKeys.blocks.encode(height), "block"),
    blockMeta: await read(BlockStoreKeys.blockMetas.encode(height), "block meta"),
    blockResults: await read(BlockStoreKeys.results.encode(height), "block results"),
  };
}

/**
 * The latest committed height, read through a LevelDB snapshot taken before this function first awaits: a
 * caller that calls it right after a commit gets that commit's state however many blocks land meanwhile. With
 * `withLastBlock` (the embedded engine's format 1) the last block's records come too; under CometBFT, which
 * keeps the blocks, the state alone (format 2).
 */
export async function latestSnapshotSource(
  state: StateStore,
  chainId: string,
  withLastBlock = true,
): Promise<SnapshotSource> {
  const snapshot = state.db.snapshot();
  try {
    const raw = await state.db.get(META_KEY, { snapshot });
    if (!raw) throw new SnapshotError("cannot snapshot: no block has been committed yet");
    const meta = parseCommitMeta(raw);
    const lastBlock = withLastBlock ? await lastBlockRecords(state, meta.height, snapshot) : undefined;
    const latest = StateStoreKeys.latest;
    async function* items(): AsyncIterable<SnapshotItem> {
      for await (const [k, v] of state.db.iterator({
        gte: latest.prefix,
        lt: prefixEnd(latest.prefix),
        snapshot,
      })) {
        const [store, key] = latest.decode(k);
        yield { store, key: new Uint8Array(key), value: new Uint8Array(v) };
      }
    }
    return {
      bootstrap: {
        header: { chain_id: chainId, height: meta.height, app_hash: meta.appHash.toUpperCase() },
        lastBlock,
      },
      items: items(),
      close: () => snapshot.close(),
    };
  } catch (e) {
    await snapshot.close();
    throw e;
  }
}

/** The names of the stores that ever held a key, in key order, from the versions keyspace. */
async function storeNames(state: StateStore): Promise<string[]> {
  const versions = StateStoreKeys.versions;
  const end = prefixEnd(versions.prefix);
  const names: string[] = [];
  let from = versions.prefix;
  for (;;) {
    let found: Uint8Array | undefined;
    for await (const k of state.db.keys({ gte: from, lt: end, limit: 1 })) found = k;
    if (!found) return names;
    const [store] = versions.decode(found);
    names.push(store);
    from = prefixEnd(versions.prefixOf(store))!;
  }
}

/**
 * A retained height below the latest, read from its versions; for a node that is stopped, so nothing prunes
 * it meanwhile. Its app hash is the one the next block's header carries.
 */
export async function retainedSnapshotSource(
  state: StateStore,
  chainId: string,
  height: number,
): Promise<SnapshotSource> {
  try {
    state.checkHeight(height);
  } catch (e) {
    throw new SnapshotError(`cannot snapshot height ${height}: ${(e as Error).message}`);
  }
  if (height === state.latestHeight) return latestSnapshotSource(state, chainId);
  const next = await state.db.get(BlockStoreKeys.blocks.encode(height + 1));
  if (!next) throw new SnapshotError(`cannot snapshot height ${height}: block ${height + 1} is not stored`);
  const appHash = fromBinary(BlockSchema, next).header?.appHash ?? new Uint8Array();
  const lastBlock = await lastBlockRecords(state, height);
  const names = await storeNames(state);
  async function* items(): AsyncIterable<SnapshotItem> {
    for (const store of names)
      for await (const [key, value] of state.iterate(store, { height })) yield { store, key, value };
  }
  return {
    bootstrap: { header: { chain_id: chainId, height, app_hash: toHexUpper(appHash) }, lastBlock },
    items: items(),
    close: async () => {},
  };
}
