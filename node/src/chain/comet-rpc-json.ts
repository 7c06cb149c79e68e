import { create } from "@bufbuild/protobuf";
import { type Block, BlockSchema } from "@chaind/proto/tendermint/types/block_pb";
import type { BlockID } from "@chaind/proto/tendermint/types/types_pb";
import { BlockIDSchema } from "@chaind/proto/tendermint/types/types_pb";
import type { AbciEvent } from "../app/events.js";
import type { TxResult } from "../app/tx-result.js";
import { commitFromJson, headerFromJson } from "../consensus/light-block-json.js";

/**
 * Readers of CometBFT RPC answers chaind's services pass on when CometBFT makes the blocks: a committed tx's
 * result (`tx`, `tx_search`) and a block (`block`). Header and commit are read as the light client reads them.
 */
type Json = Record<string, unknown>;

const b64 = (v: unknown) => new Uint8Array(Buffer.from(typeof v === "string" ? v : "", "base64"));
const int = (v: unknown) => BigInt(typeof v === "string" || typeof v === "number" ? v : 0);

function eventsFromJson(v: unknown): AbciEvent[] {
  return (Array.isArray(v) ? v : []).map((e: Json) => ({
    type: String(e.type ?? ""),
    attributes: (Array.isArray(e.attributes) ? e.attributes : []).map((a: Json) => ({
      key: String(a.key ?? ""),
      value: String(a.value ?? ""),
      index: a.index === true,
    })),
  }));
}

/** `tx_result` of CometBFT's `tx` and `tx_search` answers (ExecTxResult as JSON). */
export function txResultFromJson(v: unknown): TxResult {
  const r = (v ?? {}) as Json;
  return {
    code: Number(r.code ?? 0),
    codespace: String(r.codespace ?? ""),
    log: String(r.log ?? ""),
    info: String(r.info ?? ""),
    data: b64(r.data),
    gasWanted: int(r.gas_wanted),
    gasUsed: int(r.gas_used),
    events: eventsFromJson(r.events),
  };
}

/** A committed tx as `tx` and `tx_search` list it. */
export interface CometTx {
  height: number;
  index: number;
  bytes: Uint8Array;
  result: TxResult;
}

export function cometTxFromJson(v: unknown): CometTx {
  const t = (v ?? {}) as Json;
  return {
    height: Number(t.height ?? 0),
    index: Number(t.index ?? 0),
    bytes: b64(t.tx),
    result: txResultFromJson(t.tx_result),
  };
}

/** A `block` answer: the block id and the block (header, txs, last commit; evidence is not read). */
export function blockFromJson(v: unknown): { blockId: BlockID; block: Block } {
  const answer = (v ?? {}) as Json;
  const b = (answer.block ?? {}) as Json;
  const id = (answer.block_id ?? {}) as Json;
  const parts = (id.parts ?? {}) as Json;
  const data = (b.data ?? {}) as Json;
  return {
    blockId: create(BlockIDSchema, {
      hash: new Uint8Array(Buffer.from(String(id.hash ?? ""), "hex")),
      partSetHeader: {
        total: Number(parts.total ?? 0),
        hash: new Uint8Array(Buffer.from(String(parts.hash ?? ""), "hex")),
      },
    }),
    block: create(BlockSchema, {
      header: headerFromJson(b.header),
      data: { txs: (Array.isArray(data.txs) ? data.txs : []).map(b64) },
      evidence: {},
      lastCommit: commitFromJson(b.last_commit),
    }),
  };
}
