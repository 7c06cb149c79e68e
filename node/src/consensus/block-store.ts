import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { type Block, BlockSchema } from "@chaind/proto/tendermint/types/block_pb";
import { type BlockMeta, BlockMetaSchema } from "@chaind/proto/tendermint/types/types_pb";
import { BLOCK_STORE_KEYSPACES } from "../store/keyspaces.js";
import type { BatchOp, StateStore } from "../store/state-store.js";
import { type BlockResults, decodeBlockResults, encodeBlockResults } from "./block-results.js";

/** Where a committed tx lives. */
export interface TxLocation {
  height: number;
  index: number;
}

const { blocks, blockMetas, blockHashes, results, txIndex, txEvents } = BLOCK_STORE_KEYSPACES;
const utf8 = new TextEncoder();

/** The event-index prefix of one `type.key = value` pair; NUL bytes never occur inside either part. */
function eventPrefix(compositeKey: string, value: string): Uint8Array {
  const k = utf8.encode(compositeKey);
  const v = utf8.encode(value);
  const out = new Uint8Array(1 + k.length + 1 + v.length + 1);
  out[0] = txEvents;
  out.set(k, 1);
  out.set(v, k.length + 2);
  return out;
}

function location(height: number, index: number): Uint8Array {
  const loc = new Uint8Array(12);
  const view = new DataView(loc.buffer);
  view.setBigUint64(0, BigInt(height));
  view.setUint32(8, index);
  return loc;
}

function readLocation(b: Uint8Array, at = 0): TxLocation {
  const view = new DataView(b.buffer, b.byteOffset + at, 12);
  return { height: Number(view.getBigUint64(0)), index: view.getUint32(8) };
}

function heightKey(prefix: number, height: number): Uint8Array {
  const k = new Uint8Array(9);
  k[0] = prefix;
  new DataView(k.buffer).setBigUint64(1, BigInt(height));
  return k;
}

function hashKey(prefix: number, hash: Uint8Array): Uint8Array {
  const k = new Uint8Array(1 + hash.length);
  k[0] = prefix;
  k.set(hash, 1);
  return k;
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
      { type: "put", key: heightKey(blocks, h), value: toBinary(BlockSchema, block) },
      { type: "put", key: heightKey(blockMetas, h), value: toBinary(BlockMetaSchema, meta) },
      { type: "put", key: hashKey(blockHashes, meta.blockId!.hash), value: heightKey(0, h).subarray(1) },
      { type: "put", key: heightKey(results, h), value: encodeBlockResults(res) },
    ];
    txHashes.forEach((hash, index) => {
      ops.push({ type: "put", key: hashKey(txIndex, hash), value: location(h, index) });
      const seen = new Set<string>();
      for (const e of res.txResults[index]?.events ?? []) {
        for (const a of e.attributes) {
          const composite = `${e.type}.${a.key}`;
          if (!a.index || composite.includes("\0") || a.value.includes("\0")) continue;
          const id = `${composite}\0${a.value}`;
          if (seen.has(id)) continue;
          seen.add(id);
          const prefix = eventPrefix(composite, a.value);
          const key = new Uint8Array(prefix.length + 12);
          key.set(prefix);
          key.set(location(h, index), prefix.length);
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

  async block(height: number): Promise<Block | undefined> {
    const v = await this.raw(heightKey(blocks, height));
    return v && fromBinary(BlockSchema, v);
  }

  async meta(height: number): Promise<BlockMeta | undefined> {
    const v = await this.raw(heightKey(blockMetas, height));
    return v && fromBinary(BlockMetaSchema, v);
  }

  async heightByHash(hash: Uint8Array): Promise<number | undefined> {
    const v = await this.raw(hashKey(blockHashes, hash));
    return v && Number(new DataView(v.buffer, v.byteOffset, 8).getBigUint64(0));
  }

  async results(height: number): Promise<BlockResults | undefined> {
    const v = await this.raw(heightKey(results, height));
    return v && decodeBlockResults(v);
  }

  async txLocation(hash: Uint8Array): Promise<TxLocation | undefined> {
    const v = await this.raw(hashKey(txIndex, hash));
    return v && readLocation(v);
  }

  /** Every committed tx with an indexed event attribute `type.key` equal to `value`, oldest first. */
  async *txsWithEvent(compositeKey: string, value: string): AsyncIterable<TxLocation> {
    const prefix = eventPrefix(compositeKey, value);
    const end = Uint8Array.from(prefix);
    end[end.length - 1] = 0x01;
    for await (const k of this.store.db.keys({ gte: prefix, lt: end })) {
      if (k.length === prefix.length + 12) yield readLocation(k, prefix.length);
    }
  }
}
