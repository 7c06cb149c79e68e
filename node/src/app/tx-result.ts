import type { ChainError } from "../errors/chain-error.js";
import type { AbciEvent } from "./events.js";

/** The outcome of running one tx (ABCI ExecTxResult / ResponseCheckTx shape). */
export interface TxResult {
  code: number;
  codespace: string;
  log: string;
  info: string;
  /** TxMsgData bytes on success. */
  data: Uint8Array;
  gasWanted: bigint;
  gasUsed: bigint;
  events: AbciEvent[];
}

export function errorResult(
  e: ChainError,
  gasWanted: bigint,
  gasUsed: bigint,
  events: AbciEvent[] = [],
): TxResult {
  return {
    code: e.abciCode,
    codespace: e.codespace,
    log: e.message,
    info: "",
    data: new Uint8Array(),
    gasWanted,
    gasUsed,
    events,
  };
}
