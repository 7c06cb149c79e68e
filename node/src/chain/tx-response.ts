import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { type Any, AnySchema } from "@bufbuild/protobuf/wkt";
import { toHexUpper } from "@chaind/core/hex";
import { type TxResponse, TxResponseSchema } from "@chaind/proto/sdk/base/abci/v1beta1/abci_pb";
import {
  AuthInfoSchema,
  type Tx,
  TxBodySchema,
  TxRawSchema,
  TxSchema,
} from "@chaind/proto/sdk/tx/v1beta1/tx_pb";
import type { AbciEvent } from "../app/events.js";
import { txHash } from "../app/tx-hash.js";
import type { TxResult } from "../app/tx-result.js";

export function eventsProto(events: readonly AbciEvent[]) {
  return events.map((e) => ({
    type: e.type,
    attributes: e.attributes.map((a) => ({ key: a.key, value: a.value, index: a.index })),
  }));
}

/** The decoded Tx of raw bytes (bodies and auth infos unpacked from TxRaw). */
export function txOfRaw(bytes: Uint8Array): Tx {
  const raw = fromBinary(TxRawSchema, bytes);
  return create(TxSchema, {
    body: fromBinary(TxBodySchema, raw.bodyBytes),
    authInfo: fromBinary(AuthInfoSchema, raw.authInfoBytes),
    signatures: raw.signatures,
  });
}

/** The Cosmos TxResponse of a tx: a CheckTx answer (height 0) or a committed one with its block time. */
export function txResponse(
  bytes: Uint8Array,
  result: TxResult,
  committed?: { height: number; time: string },
): TxResponse {
  let tx: Any | undefined;
  try {
    // Cosmos puts the decoded Tx (not the TxRaw) in TxResponse.tx.
    tx = create(AnySchema, { typeUrl: "/sdk.tx.v1beta1.Tx", value: toBinary(TxSchema, txOfRaw(bytes)) });
  } catch {
    tx = undefined;
  }
  return create(TxResponseSchema, {
    height: BigInt(committed?.height ?? 0),
    txhash: toHexUpper(txHash(bytes)),
    codespace: result.codespace,
    code: result.code,
    data: toHexUpper(result.data),
    rawLog: result.log,
    info: result.info,
    gasWanted: result.gasWanted,
    gasUsed: result.gasUsed,
    tx,
    timestamp: committed?.time ?? "",
    events: eventsProto(result.events),
  });
}
