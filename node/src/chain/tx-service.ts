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
import { ConcurrencyGate, type ConcurrencyGateOptions } from "../app/concurrency-gate.js";
import { TurnTaker } from "../app/event-loop-turn.js";
import type { ServiceRegistrar } from "../app/service-registrar.js";
import type { BlockProducer } from "../consensus/block-producer.js";
import type { BlockStore } from "../consensus/block-store.js";
import { CommittedTxReader } from "../consensus/committed-tx-reader.js";
import type { Mempool } from "../consensus/mempool.js";
import { rfc3339 } from "../consensus/rfc3339.js";
import { MAX_TX_SEARCH_PER_PAGE, parseTxQuery, searchTxs } from "../consensus/tx-search.js";
import { sha256 } from "../crypto/sha256.js";
import { ChainError } from "../errors/chain-error.js";
import { GrpcCode } from "../errors/grpc-code.js";
import { SdkErrors } from "../errors/sdk-errors.js";
import { committedTxResponse, eventsProto, txOfRaw, txResponse } from "./tx-response.js";

/**
 * GetTxsEvent searches that run at once, and how many more may wait; the next is refused as "too many tx
 * searches in flight" (gRPC RESOURCE_EXHAUSTED, HTTP 429). A page holds up to 100 txs of up to a MiB, read and
 * decoded on the node's thread: two at a time bound that memory and leave the thread to block production.
 */
const TX_SEARCH_CONCURRENCY: ConcurrencyGateOptions = { running: 2, waiting: 16 };

/**
 * `sdk.tx.v1beta1.Service`, served through the App's query router so gRPC, REST and RPC `abci_query`
 * (CosmJS simulates there) all reach it.
 */
export function registerTxService(
  registrar: ServiceRegistrar,
  deps: { app: App; blocks: BlockStore; mempool: Mempool; producer: BlockProducer },
): void {
  const { app, blocks, mempool, producer } = deps;
  const searches = new ConcurrencyGate(
    TX_SEARCH_CONCURRENCY,
    ({ running, waiting }) =>
      new ChainError(
        SdkErrors.InvalidRequest.codespace,
        SdkErrors.InvalidRequest.code,
        GrpcCode.RESOURCE_EXHAUSTED,
        `too many tx searches in flight (${running} running, ${waiting} waiting); try again shortly`,
      ),
  );
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
      // As the SDK on CometBFT: page 0 is the first, limit 0 is 100, and a larger limit gets CometBFT's page
      // of 100 (its per_page cap), counted in pages of 100.
      const limit = Math.min(Number(req.limit) || MAX_TX_SEARCH_PER_PAGE, MAX_TX_SEARCH_PER_PAGE);
      const page = Number(req.page) || 1;
      const conditions = parseTxQuery(req.query);
      return searches.run(async () => {
        const found = await searchTxs(blocks, conditions, {
          page,
          perPage: limit,
          order: req.orderBy === OrderBy.DESC ? "desc" : "asc",
        });
        // A tx at a time, a block read once for its txs, letting block production in between.
        const reader = new CommittedTxReader(blocks);
        const turns = new TurnTaker();
        const txs = [];
        const txResponses = [];
        for (const loc of found.locations) {
          await turns.step();
          const t = await reader.at(loc);
          if (!t) continue;
          txs.push(txOfRaw(t.bytes));
          txResponses.push(
            txResponse(t.bytes, t.result, { height: t.height, time: rfc3339(t.block.header?.time) }),
          );
        }
        return create(GetTxsEventResponseSchema, { txs, txResponses, total: BigInt(found.total) });
      });
    },
  });
}
