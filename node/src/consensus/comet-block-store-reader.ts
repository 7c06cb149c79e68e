import { existsSync } from "node:fs";
import { join } from "node:path";
import { fromBinary } from "@bufbuild/protobuf";
import { decodeBlockStoreRange } from "@chaind/core/comet-block-store-state";
import { type BlockMeta, BlockMetaSchema } from "@chaind/proto/tendermint/types/types_pb";
import type { Level } from "level";
import { openLevelDb } from "../store/leveldb-open.js";

const STATE_KEY = new TextEncoder().encode("blockStore");
const metaKey = (height: number) => new TextEncoder().encode(`H:${height}`);

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

  close(): Promise<void> {
    return this.db.close();
  }
}
