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
  return new TextEncoder().encode(JSON.stringify(stored));
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
