import { create, fromBinary } from "@bufbuild/protobuf";
import { SimulationResponseSchema, TxMsgDataSchema } from "@chaind/proto/sdk/base/abci/v1beta1/abci_pb";
import type { App } from "../app/app.js";
import { toProtoJson } from "../app/proto-json.js";
import { eventsProto } from "../chain/tx-response.js";
import { ChainError, toChainError } from "../errors/chain-error.js";
import { GrpcCode, grpcCodeName } from "../errors/grpc-code.js";
import { SdkErrors } from "../errors/sdk-errors.js";
import type { StateStore } from "../store/state-store.js";
import { StoreHeightError } from "../store/store-errors.js";

/** An ABCI Query answer, as ResponseQuery carries it (and RPC `abci_query` prints it). */
export interface AbciQueryAnswer {
  code: number;
  log: string;
  key: Uint8Array;
  value: Uint8Array;
  height: number;
  codespace: string;
}

const utf8 = new TextEncoder();

/**
 * ABCI Query as the Cosmos SDK's BaseApp answers it, for CometBFT's ABCI connection and RPC `abci_query` alike:
 * `/app/simulate` (a tx's gas and result, as the SDK's SimulationResponse JSON), `/app/version`, `store/<name>/key`
 * (a raw value of a module store) and every query service path (`/cosmos.bank.v1beta1.Query/Balance`, or `/sdk.`).
 * A failure is the answer's code, codespace and log (`rpc error: code = ... desc = ...`, which CosmJS reads).
 */
export async function abciQuery(
  deps: { app: App; store: StateStore },
  req: { path: string; data: Uint8Array; height: number },
): Promise<AbciQueryAnswer> {
  const { app, store } = deps;
  const ok = (value: Uint8Array, height: number, key: Uint8Array = new Uint8Array()): AbciQueryAnswer => ({
    code: 0,
    log: "",
    key,
    value,
    height,
    codespace: "",
  });
  try {
    if (req.path === "/app/version") return ok(utf8.encode(app.info().version), store.latestHeight);
    if (req.path === "/app/simulate") {
      const { result } = await app.simulate(req.data);
      if (result.code !== 0)
        throw new ChainError(result.codespace, result.code, GrpcCode.INVALID_ARGUMENT, result.log);
      const data = result.data.length ? fromBinary(TxMsgDataSchema, result.data) : undefined;
      const response = create(SimulationResponseSchema, {
        gasInfo: { gasWanted: result.gasWanted, gasUsed: result.gasUsed },
        result: {
          log: result.log,
          events: eventsProto(result.events),
          msgResponses: data?.msgResponses ?? [],
        },
      });
      const json = JSON.stringify(toProtoJson(SimulationResponseSchema, response, app.types));
      return ok(utf8.encode(json), store.latestHeight);
    }
    const raw = /^\/?store\/([^/]+)\/key$/.exec(req.path);
    if (raw) {
      const height = req.height || store.latestHeight;
      const value = await store.get(raw[1], req.data, height);
      return ok(value ?? new Uint8Array(), height, req.data);
    }
    if (/^\/?store\//.test(req.path))
      throw ChainError.wrap(
        SdkErrors.UnknownRequest,
        `unknown query path ${req.path}: only store/<name>/key`,
      );
    const r = await app.query(req.path, req.data, req.height);
    return ok(r.value, r.height);
  } catch (e) {
    const ce = toChainError(e);
    return {
      code: ce.abciCode,
      log: `rpc error: code = ${grpcCodeName(ce.grpcCode)} desc = ${ce.message}`,
      key: new Uint8Array(),
      value: new Uint8Array(),
      height: e instanceof StoreHeightError ? 0 : req.height || store.latestHeight,
      codespace: ce.codespace,
    };
  }
}
