import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { BinaryReader } from "@bufbuild/protobuf/wire";
import { concatBytes } from "@chaind/core/bytes";
import { type Block, BlockSchema } from "@chaind/proto/tendermint/types/block_pb";
import { type BlockMeta, BlockMetaSchema } from "@chaind/proto/tendermint/types/types_pb";
import { txHash } from "../app/tx-hash.js";
import { prefixEnd } from "../store/prefix-end.js";
import type { BatchOp, StateStore } from "../store/state-store.js";
import { stringKey } from "../store/string-key.js";
import { safeUint64Key, uint32Key, writeUint32 } from "../store/uint-keys.js";
import { type BlockResults, decodeBlockResults, encodeBlockResults } from "./block-results.js";
import { BlockStoreKeys, txLocationCodec } from "./block-store-keys.js";

/** Where a committed tx lives. */
export interface TxLocation {
  height: number;
  index: number;
}

const { blocks, blockMetas, blockHashes, results, txIndex, txEvents } = BlockStoreKeys;

/** The event index key's leading part for one `type.key`, cached: a block repeats the same few many times. */
const eventKeyPrefixes = new Map<string, Uint8Array>();
function eventKeyPrefix(composite: string): Uint8Array {
  let prefix = eventKeyPrefixes.get(composite);
  if (!prefix) {
    prefix = txEvents.prefixOf(composite);
    if (eventKeyPrefixes.size < 4096) eventKeyPrefixes.set(composite, prefix);
  }
  return prefix;
}

/** A block's own records: the block, its meta and its hash index. */
function blockOps(
  block: Block,
  meta: BlockMeta,
  blockBytes: Uint8Array = toBinary(BlockSchema, block),
): BatchOp[] {
  const h = Number(block.header!.height);
  return [
    { type: "put", key: blocks.encode(h), value: blockBytes },
    { type: "put", key: blockMetas.encode(h), value: toBinary(BlockMetaSchema, meta) },
    { type: "put", key: blockHashes.encode(meta.blockId!.hash), value: safeUint64Key.encode(h) },
  ];
}

const HEIGHT_BYTES = safeUint64Key.encode(0).length;
const INDEX_BYTES = uint32Key.encode(0).length;

/** One indexed `type.key` = value pair of a block, and the indexes of its txs carrying it, ascending. */
interface AttributeGroup {
  composite: string;
  value: string;
  indexes: number[];
}

/** One `type.key` of a block's events and its groups by value. */
interface CompositeGroups {
  composite: string;
  byValue: Map<string, AttributeGroup>;
}

/**
 * A block's indexed tx event attributes, one group per pair: a block repeats most pairs (action, module, fee,
 * sender) in many txs, so the index writes one record per pair and block rather than one per tx.
 */
function indexedAttributes(res: BlockResults, txCount: number): Iterable<AttributeGroup> {
  // type -> key -> value -> group: no string is built for an attribute already seen.
  const groups = new Map<string, Map<string, CompositeGroups>>();
  // Every "type.key" named so far: a second type and key naming one of them too needs the merge below.
  const named = new Set<string>();
  let shared = false;
  const all: AttributeGroup[] = [];
  for (let index = 0; index < txCount; index++) {
    for (const e of res.txResults[index]?.events ?? []) {
      let byKey = groups.get(e.type);
      if (!byKey) {
        byKey = new Map();
        groups.set(e.type, byKey);
      }
      for (const a of e.attributes) {
        if (!a.index) continue;
        let c = byKey.get(a.key);
        if (!c) {
          const composite = `${e.type}.${a.key}`;
          c = { composite, byValue: new Map() };
          byKey.set(a.key, c);
          if (named.has(composite)) shared = true;
          else named.add(composite);
        }
        const g = c.byValue.get(a.value);
        if (g) {
          if (g.indexes[g.indexes.length - 1] !== index) g.indexes.push(index);
          continue;
        }
        // NUL ends the key's strings; such attributes are left out of the index.
        if (c.composite.includes("\0") || a.value.includes("\0")) continue;
        const group = { composite: c.composite, value: a.value, indexes: [index] };
        c.byValue.set(a.value, group);
        all.push(group);
      }
    }
  }
  if (!shared) return all;
  // Type "a.b" with key "c" and type "a" with key "b.c" name the same "a.b.c": one record, both groups' txs.
  const byRecord = new Map<string, AttributeGroup>();
  for (const g of all) {
    const id = `${g.composite}\0${g.value}`;
    const same = byRecord.get(id);
    if (!same) byRecord.set(id, g);
    else same.indexes = [...new Set([...same.indexes, ...g.indexes])].sort((x, y) => x - y);
  }
  return byRecord.values();
}

/** `height`: safeUint64Key's bytes of the block's height, encoded once for all its groups. */
function eventGroupKey(g: AttributeGroup, height: Uint8Array): Uint8Array {
  return concatBytes(eventKeyPrefix(g.composite), stringKey.encodeNonTerminal(g.value), height);
}

/** The indexes as 4-byte big-endian numbers, uint32Key's layout. */
function packIndexes(indexes: readonly number[]): Uint8Array {
  const out = new Uint8Array(indexes.length * INDEX_BYTES);
  for (let i = 0; i < indexes.length; i++) writeUint32(out, i * INDEX_BYTES, indexes[i]);
  return out;
}

/** BlockMeta's `num_txs` (field 4), read past the header rather than decoding it: a fifth of the cost. */
function metaTxCount(meta: Uint8Array): number {
  const r = new BinaryReader(meta);
  while (r.pos < r.len) {
    const [field, wireType] = r.tag();
    if (field === 4) return Number(r.int64());
    r.skip(wireType);
  }
  return 0;
}

const encodeLocation = (l: TxLocation) => txLocationCodec.encode([l.height, l.index]);
function decodeLocation(b: Uint8Array): TxLocation {
  const [height, index] = txLocationCodec.decode(b);
  return { height, index };
}

/**
 * Blocks, their metas, results and the tx-hash index, kept in the state store's LevelDB. As in CometBFT, a
 * block is saved before the app executes it; its results and indexes are written in the same batch as its
 * state. So the store holds at most one block the app has not applied (after a halt or a crash in it), and the
 * node hands that block to the app again before making a new one.
 */
export class BlockStore {
  private constructor(
    private readonly store: StateStore,
    private saved: number,
    /** The lowest stored block (CometBFT's base): 1, genesis initial_height, or a restored snapshot's height. */
    private first: number,
  ) {}

  /** Finds the last saved block: the committed height, or one above it when that block was never applied. */
  static async open(store: StateStore): Promise<BlockStore> {
    const edge = async (reverse: boolean) => {
      for await (const k of store.db.keys({
        gte: blocks.prefix,
        lt: prefixEnd(blocks.prefix),
        reverse,
        limit: 1,
      }))
        return blocks.decode(k);
      return 0;
    };
    const saved = await edge(true);
    const committed = store.latestHeight;
    // Before the first commit, the one saved block is the chain's first, at whatever height genesis starts.
    if (committed > 0 && saved !== committed && saved !== committed + 1)
      throw new Error(
        `block store holds blocks up to ${saved} but the state is at height ${committed}; the database is damaged`,
      );
    return new BlockStore(store, Math.max(saved, committed), await edge(false));
  }

  /**
   * The records a node restored from a snapshot starts from (CometBFT's `bootstrap-state`): the last block, its
   * meta and hash index, and its results, so the next block can name it and its results. Written with the
   * restored state's commit meta, in the same batch.
   */
  static bootstrapOps(block: Block, meta: BlockMeta, res: BlockResults): BatchOp[] {
    const h = Number(block.header!.height);
    return [
      ...blockOps(block, meta),
      { type: "put", key: results.encode(h), value: encodeBlockResults(res) },
    ];
  }

  /** The last saved block (CometBFT's block store height): while the node is halted in a block, that block. */
  get height(): number {
    return this.saved;
  }

  /** The first saved block (CometBFT's block store base): 1, genesis initial_height or a restored snapshot's height; 0 before any. */
  get base(): number {
    return this.first;
  }

  /** The height of the next block to save: one past the last, or where genesis starts the chain. */
  get nextHeight(): number {
    return this.saved > 0 ? this.saved + 1 : this.store.nextHeight;
  }

  /** The saved block the app has not applied yet, if any. */
  get unappliedHeight(): number | undefined {
    return this.saved > this.store.latestHeight ? this.saved : undefined;
  }

  /**
   * Saves the next block (header, txs, meta, hash index) in one write, before the app executes it; `blockBytes`:
   * the block encoded, when the caller has encoded it already.
   */
  async save(block: Block, meta: BlockMeta, blockBytes?: Uint8Array): Promise<void> {
    const h = Number(block.header!.height);
    if (h !== this.nextHeight)
      throw new Error(`cannot save block ${h}: the next block is ${this.nextHeight}`);
    await this.store.db.batch(
      blockOps(block, meta, blockBytes),
      // Synced before the app runs it, as CometBFT's block store is: a restart finds the block it executed.
      { sync: true },
    );
    this.saved = h;
    if (this.first === 0) this.first = h;
  }

  /** The batch operations that record an executed block's results and tx indexes; the caller hands them to App.commit. */
  ops(res: BlockResults, txHashes: readonly Uint8Array[]): BatchOp[] {
    const h = res.height;
    const ops: BatchOp[] = [{ type: "put", key: results.encode(h), value: encodeBlockResults(res) }];
    txHashes.forEach((hash, index) => {
      ops.push({ type: "put", key: txIndex.encode(hash), value: encodeLocation({ height: h, index }) });
    });
    const height = safeUint64Key.encode(h);
    for (const g of indexedAttributes(res, txHashes.length))
      ops.push({ type: "put", key: eventGroupKey(g, height), value: packIndexes(g.indexes) });
    return ops;
  }

  /**
   * The batch operations that undo what `ops` recorded for an executed block (its results, tx-hash and event
   * indexes), for a rollback; derived from its stored results, so they name exactly the keys written, in either
   * event index layout.
   */
  async recordsRemovalOps(height: number): Promise<BatchOp[]> {
    const [res, block] = await Promise.all([this.results(height), this.block(height)]);
    if (!res) return [];
    const hashes = (block?.data?.txs ?? []).map(txHash);
    const ops: BatchOp[] = this.ops(res, hashes).map((op) => ({ type: "del", key: op.key }));
    const heightBytes = safeUint64Key.encode(height);
    for (const g of indexedAttributes(res, hashes.length))
      for (const index of g.indexes)
        ops.push({ type: "del", key: concatBytes(eventGroupKey(g, heightBytes), uint32Key.encode(index)) });
    return ops;
  }

  /** The batch operations that remove a saved block (header, txs, meta, hash index), for a rollback. */
  async blockRemovalOps(height: number): Promise<BatchOp[]> {
    const meta = await this.meta(height);
    const ops: BatchOp[] = [
      { type: "del", key: blocks.encode(height) },
      { type: "del", key: blockMetas.encode(height) },
    ];
    if (meta?.blockId) ops.push({ type: "del", key: blockHashes.encode(meta.blockId.hash) });
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

  /**
   * Every committed tx with an indexed event attribute `type.key` equal to `value`, in heights `from` to `to`,
   * oldest first (newest first when `reverse`). Walked on LevelDB's iterator, so a caller that stops early reads
   * only what it used.
   */
  async *txsWithEvent(
    compositeKey: string,
    value: string,
    range: { from: number; to: number; reverse?: boolean } = { from: 1, to: Number.MAX_SAFE_INTEGER - 1 },
  ): AsyncIterable<TxLocation> {
    // Attributes holding a NUL are never indexed; NUL ends both strings, so every key under this prefix is
    // one of this pair's, followed by its height (and, in the layout before grouping, the tx's index).
    if (compositeKey.includes("\0") || value.includes("\0")) return;
    const from = Math.max(range.from, 1);
    if (from > range.to) return;
    const prefix = txEvents.prefixOf(compositeKey, value);
    const at = (h: number) => concatBytes(prefix, safeUint64Key.encode(h));
    const reverse = range.reverse ?? false;
    for await (const [k, v] of this.store.db.iterator({ gte: at(from), lt: at(range.to + 1), reverse })) {
      const rest = k.subarray(prefix.length);
      if (rest.length === HEIGHT_BYTES + INDEX_BYTES) {
        yield decodeLocation(rest);
        continue;
      }
      const height = safeUint64Key.decode(rest);
      const count = Math.floor(v.length / INDEX_BYTES);
      for (let i = 0; i < count; i++) {
        const offset = (reverse ? count - 1 - i : i) * INDEX_BYTES;
        yield { height, index: uint32Key.decode(v.subarray(offset, offset + INDEX_BYTES)) };
      }
    }
  }

  /**
   * How many txs each stored block from `from` to `to` holds, from the block metas, oldest first (newest first
   * when `reverse`): what a search over every tx in a height range counts without reading a block.
   */
  async *txCounts(range: {
    from: number;
    to: number;
    reverse?: boolean;
  }): AsyncIterable<{ height: number; txs: number }> {
    const from = Math.max(range.from, 1);
    if (from > range.to || !BlockStore.storable(range.to)) return;
    for await (const [k, v] of this.store.db.iterator({
      gte: blockMetas.encode(from),
      lte: blockMetas.encode(range.to),
      reverse: range.reverse ?? false,
    }))
      yield { height: blockMetas.decode(k), txs: metaTxCount(v) };
  }
}
