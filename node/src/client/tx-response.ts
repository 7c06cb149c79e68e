/** An ABCI event as CometBFT's RPC writes it. */
interface RpcEvent {
  type: string;
  attributes: { key: string; value: string }[];
}

/**
 * The SDK's TxResponse (sdk.base.abci.v1beta1) as `tx ...` commands print it, every field present as the SDK's
 * JSON has them, so scripts that read `.code`, `.txhash` or `.gas_used` read ours alike. `tx` stays null: the
 * SDK fills it only when it queries the tx (`query tx`).
 */
export interface TxResponseJson {
  height: string;
  txhash: string;
  codespace: string;
  code: number;
  data: string;
  raw_log: string;
  logs: never[];
  info: string;
  gas_wanted: string;
  gas_used: string;
  tx: null;
  timestamp: string;
  events: RpcEvent[];
}

/** What a broadcast answers before the tx is in a block: its CheckTx result, height 0. */
export function broadcastTxResponse(
  txhash: string,
  r: { code: number; codespace?: string; log?: string; data?: string },
): TxResponseJson {
  return {
    height: "0",
    txhash,
    codespace: r.codespace ?? "",
    code: r.code,
    data: r.data ?? "",
    raw_log: r.log ?? "",
    logs: [],
    info: "",
    gas_wanted: "0",
    gas_used: "0",
    tx: null,
    timestamp: "",
    events: [],
  };
}

/** A committed tx, from CometBFT's `tx` answer and its block's time. */
export function committedTxResponse(
  txhash: string,
  done: {
    height: string;
    tx_result: {
      code: number;
      codespace?: string;
      log?: string;
      data?: string | null;
      info?: string;
      gas_wanted?: string;
      gas_used?: string;
      events?: RpcEvent[];
    };
  },
  timestamp: string,
): TxResponseJson {
  const r = done.tx_result;
  return {
    height: done.height,
    txhash,
    codespace: r.codespace ?? "",
    code: r.code,
    // CometBFT writes data as base64; the SDK's TxResponse carries it as hex.
    data: r.data ? Buffer.from(r.data, "base64").toString("hex").toUpperCase() : "",
    raw_log: r.log ?? "",
    logs: [],
    info: r.info ?? "",
    gas_wanted: r.gas_wanted ?? "0",
    gas_used: r.gas_used ?? "0",
    tx: null,
    timestamp,
    events: r.events ?? [],
  };
}
