import type { Block } from "@chaind/proto/tendermint/types/block_pb";
import type { TxResult } from "../app/tx-result.js";
import type { BlockResults } from "./block-results.js";
import type { BlockStore, TxLocation } from "./block-store.js";

/** A committed tx as a page shows it: its bytes, its result and its block (for the block's time). */
export interface CommittedTx {
  height: number;
  index: number;
  bytes: Uint8Array;
  result: TxResult;
  block: Block;
}

/**
 * Reads the txs of a search page in the page's order, one block after another: it keeps the last block and its
 * results, so a block is read once for all its txs on the page. (Each tx read its whole block again, so a page
 * of 100 txs from blocks of 20 MB read 2 GB.)
 */
export class CommittedTxReader {
  private last: { height: number; block?: Block; results?: BlockResults } | undefined;

  constructor(private readonly blocks: BlockStore) {}

  /** The tx at `loc`; undefined when the block store does not hold it (pruned, or never committed). */
  async at(loc: TxLocation): Promise<CommittedTx | undefined> {
    if (this.last?.height !== loc.height) {
      // The previous block is let go before the next is read: one block held at a time.
      this.last = undefined;
      const [block, results] = await Promise.all([
        this.blocks.block(loc.height),
        this.blocks.results(loc.height),
      ]);
      this.last = { height: loc.height, block, results };
    }
    const { block, results } = this.last;
    const bytes = block?.data?.txs[loc.index];
    const result = results?.txResults[loc.index];
    if (!block || !bytes || !result) return undefined;
    return { height: loc.height, index: loc.index, bytes, result, block };
  }
}
