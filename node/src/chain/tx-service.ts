import { create, fromBinary } from "@bufbuild/protobuf";
import { toHexUpper } from "@chaind/core/hex";
import { TxMsgDataSchema } from "@chaind/proto/sdk/base/abci/v1beta1/abci_pb";
import {
  BroadcastMode,
  BroadcastTxResponseSchema,
  GetTxResponseSchema,
  GetTxsEventResponseSchema,
  OrderBy,
  Service,
  SimulateResponseSchema,
} from "@chaind/proto/sdk/tx/v1beta1/service_pb";
import type { App } from "../app/app.js";
import type { ServiceRegistrar } from "../app/service-registrar.js";
import type { BlockProducer } from "../consensus/block-producer.js";
import type { BlockStore } from "../consensus/block-store.js";
import type { Mempool } from "../consensus/mempool.js";
import { parseTxQuery, searchTxs } from "../consensus/tx-search.js";
import { sha256 } from "../crypto/sha256.js";
import { ChainError } from "../errors/chain-error.js";
import { GrpcCode } from "../errors/grpc-code.js";
import { SdkErrors } from "../errors/sdk-errors.js";
import { committedTxResponse, eventsProto, txOfRaw, txResponse } from "./tx-response.js";

/**
 * `sdk.tx.v1beta1.Service`, served through the App's query router so gRPC, REST and RPC `abci_query`
 * (CosmJS simulates there) all reach it.
 */
export function registerTxService(
  registrar: ServiceRegistrar,
  deps: { app: App; blocks: BlockStore; mempool: Mempool; producer: BlockProducer },
): void {
  const { app, blocks, mempool, producer } = deps;
  registrar.queryService(Service, {
    simulate: async (_ctx, req) => {
      if (req.txBytes.length === 0)
        throw ChainError.wrap(SdkErrors.InvalidRequest, "empty txBytes is not allowed");
      const { result } = await app.simulate(req.txBytes);
      if (result.code !== 0)
        throw new ChainError(result.codespace, result.code, GrpcCode.INVALID_ARGUMENT, result.log);
      const data = result.data.length ? fromBinary(TxMsgDataSchema, result.data) : undefined;
      return create(SimulateResponseSchema, {
        gasInfo: { gasWanted: result.gasWanted, gasUsed: result.gasUsed },
        result: {
          log: result.log,
          events: eventsProto(result.events),
          msgResponses: data?.msgResponses ?? [],
        },
      });
    },
    getTx: async (_ctx, req) => {
      if (!/^[0-9A-Fa-f]{64}$/.test(req.hash))
        throw ChainError.wrap(
          SdkErrors.InvalidRequest,
          `tx hash must be 64 hex characters, got ${JSON.stringify(req.hash)}`,
        );
      const loc = await blocks.txLocation(Buffer.from(req.hash, "hex"));
      const resp = loc && (await committedTxResponse(blocks, loc.height, loc.index));
      if (!loc || !resp) throw ChainError.wrap(SdkErrors.NotFound, `tx not found: ${req.hash.toUpperCase()}`);
      return create(GetTxResponseSchema, {
        tx: txOfRaw((await blocks.block(loc.height))!.data!.txs[loc.index]),
        txResponse: resp,
      });
    },
    broadcastTx: async (_ctx, req) => {
      if (req.txBytes.length === 0) throw ChainError.wrap(SdkErrors.InvalidRequest, "invalid empty tx");
      if (req.mode !== BroadcastMode.SYNC && req.mode !== BroadcastMode.ASYNC)
        throw ChainError.wrap(
          SdkErrors.InvalidRequest,
          "supported broadcast modes are BROADCAST_MODE_SYNC and BROADCAST_MODE_ASYNC",
        );
      if (req.mode === BroadcastMode.ASYNC) {
        void mempool.add(req.txBytes).then(() => producer.notifyTxs());
        return create(BroadcastTxResponseSchema, {
          txResponse: { txhash: toHexUpper(sha256(req.txBytes)) },
        });
      }
      const check = await mempool.add(req.txBytes);
      if (check.code === 0) producer.notifyTxs();
      return create(BroadcastTxResponseSchema, { txResponse: txResponse(req.txBytes, check) });
    },
    getTxsEvent: async (_ctx, req) => {
      const limit = Number(req.limit || 100n);
      const page = Number(req.page || 1n);
      if (limit > 100) throw ChainError.wrap(SdkErrors.InvalidRequest, "limit must not exceed 100");
      const found = await searchTxs(blocks, parseTxQuery(req.query), {
        page,
        perPage: limit,
        order: req.orderBy === OrderBy.DESC ? "desc" : "asc",
      });
      const responses = [];
      for (const l of found.locations) {
        const r = await committedTxResponse(blocks, l.height, l.index);
        if (r) responses.push(r);
      }
      return create(GetTxsEventResponseSchema, {
        txs: await Promise.all(
          found.locations.map(async (l) => txOfRaw((await blocks.block(l.height))!.data!.txs[l.index])),
        ),
        txResponses: responses,
        total: BigInt(found.total),
      });
    },
  });
}
