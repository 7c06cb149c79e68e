import { existsSync } from "node:fs";
import { join } from "node:path";
import { fromBinary } from "@bufbuild/protobuf";
import { concatBytes } from "@chaind/core/bytes";
import { decodeBlockStoreRange } from "@chaind/core/comet-block-store-state";
import { type Block, BlockSchema } from "@chaind/proto/tendermint/types/block_pb";
import { type BlockMeta, BlockMetaSchema, PartSchema } from "@chaind/proto/tendermint/types/types_pb";
import type { Level } from "level";
import { openLevelDb } from "../store/leveldb-open.js";

const STATE_KEY = new TextEncoder().encode("blockStore");
const metaKey = (height: number) => new TextEncoder().encode(`H:${height}`);
const partKey = (height: number, index: number) => new TextEncoder().encode(`P:${height}:${index}`);

/**
 * CometBFT's block store (data/blockstore.db) of a stopped node, read-only: the saved height range and each
 * block's meta, enough for `chaind status` in a home CometBFT drives. Opening it takes LevelDB's lock, so a
 * running CometBFT is reported as StoreLockedError by open().
 */
export class CometBlockStoreReader {
  private constructor(
    private readonly db: Level<Uint8Array, Uint8Array>,
    readonly base: number,
    readonly height: number,
  ) {}

  /** The store in `<home>/data`, or undefined when CometBFT never ran there. */
  static async open(dataDir: string): Promise<CometBlockStoreReader | undefined> {
    const dir = join(dataDir, "blockstore.db");
    if (!existsSync(join(dir, "CURRENT"))) return undefined;
    const db = await openLevelDb(dir, { createIfMissing: false });
    const raw = await db.get(STATE_KEY);
    const range = raw === undefined ? { base: 0, height: 0 } : decodeBlockStoreRange(raw);
    if (!range) {
      await db.close();
      throw new Error(`${dir}: the blockStore record is not CometBFT's`);
    }
    return new CometBlockStoreReader(db, range.base, range.height);
  }

  async meta(height: number): Promise<BlockMeta | undefined> {
    const raw = await this.db.get(metaKey(height));
    return raw && fromBinary(BlockMetaSchema, raw);
  }

  /** A block, put back together from the parts CometBFT stores it in; undefined when it is not stored. */
  async block(height: number): Promise<Block | undefined> {
    const total = (await this.meta(height))?.blockId?.partSetHeader?.total;
    if (!total) return undefined;
    const parts: Uint8Array[] = [];
    for (let i = 0; i < total; i++) {
      const raw = await this.db.get(partKey(height, i));
      if (!raw) return undefined;
      parts.push(fromBinary(PartSchema, raw).bytes);
    }
    return fromBinary(BlockSchema, concatBytes(...parts));
  }

  close(): Promise<void> {
    return this.db.close();
  }
}
