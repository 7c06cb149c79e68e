import type { AbciEvent } from "../app/events.js";
import type { TxResult } from "../app/tx-result.js";

/** What executing a block produced: per-tx results and the block-level events. */
export interface BlockResults {
  height: number;
  txResults: TxResult[];
  events: AbciEvent[];
}

interface StoredTxResult extends Omit<TxResult, "data" | "gasWanted" | "gasUsed"> {
  data: string;
  gasWanted: string;
  gasUsed: string;
}

export function encodeBlockResults(r: BlockResults): Uint8Array {
  const stored = {
    height: r.height,
    events: r.events,
    txResults: r.txResults.map(
      (t): StoredTxResult => ({
        ...t,
        data: Buffer.from(t.data).toString("base64"),
        gasWanted: t.gasWanted.toString(),
        gasUsed: t.gasUsed.toString(),
      }),
    ),
  };
  // Node's UTF-8 encoder takes about half TextEncoder's time on a block's results (megabytes for a full block);
  // handed on as a plain Uint8Array view of its bytes.
  const b = Buffer.from(JSON.stringify(stored), "utf8");
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

export function decodeBlockResults(bytes: Uint8Array): BlockResults {
  const s = JSON.parse(new TextDecoder().decode(bytes)) as {
    height: number;
    events: AbciEvent[];
    txResults: StoredTxResult[];
  };
  return {
    height: s.height,
    events: s.events,
    txResults: s.txResults.map((t) => ({
      ...t,
      data: new Uint8Array(Buffer.from(t.data, "base64")),
      gasWanted: BigInt(t.gasWanted),
      gasUsed: BigInt(t.gasUsed),
    })),
  };
}
