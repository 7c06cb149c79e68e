import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { type Block, BlockSchema } from "@chaind/proto/tendermint/types/block_pb";
import { type BlockMeta, BlockMetaSchema } from "@chaind/proto/tendermint/types/types_pb";
import { prefixEnd } from "../store/prefix-end.js";
import type { BatchOp, StateStore } from "../store/state-store.js";
import { safeUint64Key } from "../store/uint-keys.js";
import { type BlockResults, decodeBlockResults, encodeBlockResults } from "./block-results.js";
import { BlockStoreKeys, txLocationCodec } from "./block-store-keys.js";

/** Where a committed tx lives. */
export interface TxLocation {
  height: number;
  index: number;
}

const { blocks, blockMetas, blockHashes, results, txIndex, txEvents } = BlockStoreKeys;

const encodeLocation = (l: TxLocation) => txLocationCodec.encode([l.height, l.index]);
function decodeLocation(b: Uint8Array): TxLocation {
  const [height, index] = txLocationCodec.decode(b);
  return { height, index };
}

/**
 * Blocks, their metas, results and the tx-hash index, kept in the state store's LevelDB and written in the
 * same batch as the block's state, so a crash never separates a block from its state.
 */
export class BlockStore {
  constructor(private readonly store: StateStore) {}

  get height(): number {
    return this.store.latestHeight;
  }

  /** The batch operations that record a committed block; the caller hands them to App.commit. */
  ops(block: Block, meta: BlockMeta, res: BlockResults, txHashes: readonly Uint8Array[]): BatchOp[] {
    const h = Number(block.header!.height);
    const ops: BatchOp[] = [
      { type: "put", key: blocks.encode(h), value: toBinary(BlockSchema, block) },
      { type: "put", key: blockMetas.encode(h), value: toBinary(BlockMetaSchema, meta) },
      { type: "put", key: blockHashes.encode(meta.blockId!.hash), value: safeUint64Key.encode(h) },
      { type: "put", key: results.encode(h), value: encodeBlockResults(res) },
    ];
    txHashes.forEach((hash, index) => {
      ops.push({ type: "put", key: txIndex.encode(hash), value: encodeLocation({ height: h, index }) });
      const seen = new Set<string>();
      for (const e of res.txResults[index]?.events ?? []) {
        for (const a of e.attributes) {
          const composite = `${e.type}.${a.key}`;
          if (!a.index || composite.includes("\0") || a.value.includes("\0")) continue;
          const id = `${composite}\0${a.value}`;
          if (seen.has(id)) continue;
          seen.add(id);
          const key = txEvents.encode([composite, a.value, h, index]);
          ops.push({ type: "put", key, value: new Uint8Array() });
        }
      }
    });
    return ops;
  }

  private async raw(key: Uint8Array): Promise<Uint8Array | undefined> {
    const v = await this.store.db.get(key);
    return v === undefined ? undefined : new Uint8Array(v);
  }

  /** Heights no block can have (past 2^53, below 1) are simply absent; a key for them cannot be encoded. */
  private static storable(height: number): boolean {
    return Number.isSafeInteger(height) && height >= 1;
  }

  async block(height: number): Promise<Block | undefined> {
    if (!BlockStore.storable(height)) return undefined;
    const v = await this.raw(blocks.encode(height));
    return v && fromBinary(BlockSchema, v);
  }

  async meta(height: number): Promise<BlockMeta | undefined> {
    if (!BlockStore.storable(height)) return undefined;
    const v = await this.raw(blockMetas.encode(height));
    return v && fromBinary(BlockMetaSchema, v);
  }

  async heightByHash(hash: Uint8Array): Promise<number | undefined> {
    const v = await this.raw(blockHashes.encode(hash));
    return v && safeUint64Key.decode(v);
  }

  async results(height: number): Promise<BlockResults | undefined> {
    if (!BlockStore.storable(height)) return undefined;
    const v = await this.raw(results.encode(height));
    return v && decodeBlockResults(v);
  }

  async txLocation(hash: Uint8Array): Promise<TxLocation | undefined> {
    const v = await this.raw(txIndex.encode(hash));
    return v && decodeLocation(v);
  }

  /** Every committed tx with an indexed event attribute `type.key` equal to `value`, oldest first. */
  async *txsWithEvent(compositeKey: string, value: string): AsyncIterable<TxLocation> {
    // Attributes holding a NUL are never indexed; NUL ends both strings, so every key under this prefix is
    // one of this pair's, followed by its location.
    if (compositeKey.includes("\0") || value.includes("\0")) return;
    const prefix = txEvents.prefixOf(compositeKey, value);
    for await (const k of this.store.db.keys({ gte: prefix, lt: prefixEnd(prefix) }))
      yield decodeLocation(k.subarray(prefix.length));
  }
}
