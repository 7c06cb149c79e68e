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
import type { TxResult } from "../app/tx-result.js";
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
import { blockWithTxs } from "./block-with-txs.js";
import type { TendermintBackend } from "./tendermint-service.js";
import { eventsProto, txOfRaw, txResponse } from "./tx-response.js";

/**
 * GetTxsEvent searches that run at once, and how many more may wait; the next is refused as "too many tx
 * searches in flight" (gRPC RESOURCE_EXHAUSTED, HTTP 429). A page holds up to 100 txs of up to a MiB, read and
 * decoded on the node's thread: two at a time bound that memory and leave the thread to block production.
 */
const TX_SEARCH_CONCURRENCY: ConcurrencyGateOptions = { running: 2, waiting: 16 };

/** A committed tx as the service answers it: its bytes and result, its block's height and time. */
export interface ServedTx {
  bytes: Uint8Array;
  result: TxResult;
  height: number;
  /** The block's time, RFC 3339. */
  time: string;
}

/**
 * Where the tx service finds committed txs and sends new ones: the embedded engine's block store and mempool
 * (embeddedTxBackend), or CometBFT's RPC (comet-tx-backend.ts).
 */
export interface TxBackend {
  tx(hash: Uint8Array): Promise<ServedTx | undefined>;
  /** Puts a tx into the mempool; `sync` answers its CheckTx, `async` nothing. */
  broadcast(bytes: Uint8Array, mode: "sync" | "async"): Promise<TxResult | undefined>;
  /** One page of the txs a query matches (CometBFT's tx_search), and how many match in all. */
  search(
    query: string,
    page: number,
    perPage: number,
    order: "asc" | "desc",
  ): Promise<{ txs: ServedTx[]; total: number }>;
}

/** The embedded engine's: its block store, mempool and producer. */
export function embeddedTxBackend(deps: {
  blocks: BlockStore;
  mempool: Mempool;
  producer: BlockProducer;
}): TxBackend {
  const { blocks, mempool, producer } = deps;
  return {
    tx: async (hash) => {
      const loc = await blocks.txLocation(hash);
      const t = loc && (await new CommittedTxReader(blocks).at(loc));
      return t
        ? { bytes: t.bytes, result: t.result, height: t.height, time: rfc3339(t.block.header?.time) }
        : undefined;
    },
    broadcast: async (bytes, mode) => {
      if (mode === "async") {
        void mempool.add(bytes).then(() => producer.notifyTxs());
        return undefined;
      }
      const check = await mempool.add(bytes);
      if (check.code === 0) producer.notifyTxs();
      return check;
    },
    search: async (query, page, perPage, order) => {
      const found = await searchTxs(blocks, parseTxQuery(query), { page, perPage, order });
      // A tx at a time, a block read once for its txs, letting block production in between.
      const reader = new CommittedTxReader(blocks);
      const turns = new TurnTaker();
      const txs: ServedTx[] = [];
      for (const loc of found.locations) {
        await turns.step();
        const t = await reader.at(loc);
        if (t)
          txs.push({
            bytes: t.bytes,
            result: t.result,
            height: t.height,
            time: rfc3339(t.block.header?.time),
          });
      }
      return { txs, total: found.total };
    },
  };
}

/**
 * `sdk.tx.v1beta1.Service`, served through the App's query router so gRPC, REST and RPC `abci_query`
 * (CosmJS simulates there) all reach it.
 */
export function registerTxService(
  registrar: ServiceRegistrar,
  deps: { app: App; backend: TxBackend; blocks: Pick<TendermintBackend, "block"> },
): void {
  const { app, backend } = deps;
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
      // As Cosmos SDK 0.50's tx service: gRPC Unknown (HTTP 500 at the gateway, ABCI "unknown request"), the
      // failure's text followed by the gas figures, which clients read to size a retry.
      if (result.code !== 0)
        throw new ChainError(
          SdkErrors.UnknownRequest.codespace,
          SdkErrors.UnknownRequest.code,
          GrpcCode.UNKNOWN,
          `${result.log} With gas wanted: '${result.gasWanted}' and gas used: '${result.gasUsed}' `,
        );
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
      const t = await backend.tx(Buffer.from(req.hash, "hex"));
      if (!t) throw ChainError.wrap(SdkErrors.NotFound, `tx not found: ${req.hash.toUpperCase()}`);
      return create(GetTxResponseSchema, {
        tx: txOfRaw(t.bytes),
        txResponse: txResponse(t.bytes, t.result, t),
      });
    },
    broadcastTx: async (_ctx, req) => {
      if (req.txBytes.length === 0) throw ChainError.wrap(SdkErrors.InvalidRequest, "invalid empty tx");
      if (req.mode !== BroadcastMode.SYNC && req.mode !== BroadcastMode.ASYNC)
        throw ChainError.wrap(
          SdkErrors.InvalidRequest,
          "supported broadcast modes are BROADCAST_MODE_SYNC and BROADCAST_MODE_ASYNC",
        );
      const check = await backend.broadcast(req.txBytes, req.mode === BroadcastMode.ASYNC ? "async" : "sync");
      return create(BroadcastTxResponseSchema, {
        txResponse: check ? txResponse(req.txBytes, check) : { txhash: toHexUpper(sha256(req.txBytes)) },
      });
    },
    getBlockWithTxs: async (ctx, req) =>
      blockWithTxs(deps.blocks, req.height, ctx.block.height, req.pagination),
    getTxsEvent: async (_ctx, req) => {
      // As the SDK on CometBFT: page 0 is the first, limit 0 is 100, and a larger limit gets CometBFT's page
      // of 100 (its per_page cap), counted in pages of 100.
      const limit = Math.min(Number(req.limit) || MAX_TX_SEARCH_PER_PAGE, MAX_TX_SEARCH_PER_PAGE);
      const page = Number(req.page) || 1;
      // The query is checked here, whichever engine searches.
      parseTxQuery(req.query);
      return searches.run(async () => {
        const found = await backend.search(
          req.query,
          page,
          limit,
          req.orderBy === OrderBy.DESC ? "desc" : "asc",
        );
        return create(GetTxsEventResponseSchema, {
          txs: found.txs.map((t) => txOfRaw(t.bytes)),
          txResponses: found.txs.map((t) => txResponse(t.bytes, t.result, t)),
          total: BigInt(found.total),
        });
      });
    },
  });
}
