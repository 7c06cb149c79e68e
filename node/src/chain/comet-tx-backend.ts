import { NodeCallError, type NodeRpcClient } from "@chaind/core/comet-rpc-client";
import { ChainError } from "../errors/chain-error.js";
import { SdkErrors } from "../errors/sdk-errors.js";
import { cometTxFromJson, txResultFromJson } from "./comet-rpc-json.js";
import type { ServedTx, TxBackend } from "./tx-service.js";

/** A block's time by height, remembered: a page of txs names few blocks, and a block's time never changes. */
class BlockTimes {
  private readonly times = new Map<number, string>();
  constructor(private readonly rpc: NodeRpcClient) {}

  async at(height: number): Promise<string> {
    let t = this.times.get(height);
    if (t === undefined) {
      const r = await this.rpc.call<{ block?: { header?: { time?: string } } }>("block", {
        height: String(height),
      });
      t = r.block?.header?.time ?? "";
      if (this.times.size > 1000) this.times.clear();
      this.times.set(height, t);
    }
    return t;
  }
}

/** The node's call to CometBFT failed: the client gets a coded error, not a crash. */
function unavailable(e: unknown): never {
  if (e instanceof NodeCallError)
    throw ChainError.wrap(SdkErrors.InvalidRequest, `CometBFT answered: ${e.message}`);
  throw e;
}

/**
 * The tx service's committed txs and broadcasts when CometBFT makes the blocks, as the SDK serves them there:
 * through CometBFT's RPC (`tx`, `tx_search`, `broadcast_tx_sync|async`), which indexes and keeps the txs.
 */
export function cometTxBackend(rpc: NodeRpcClient): TxBackend {
  const times = new BlockTimes(rpc);
  const served = async (json: unknown): Promise<ServedTx> => {
    const t = cometTxFromJson(json);
    return { bytes: t.bytes, result: t.result, height: t.height, time: await times.at(t.height) };
  };
  return {
    tx: async (hash) => {
      try {
        return await served(await rpc.call("tx", { hash: Buffer.from(hash).toString("base64") }));
      } catch (e) {
        if (e instanceof NodeCallError && /not found/.test(e.message)) return undefined;
        return unavailable(e);
      }
    },
    broadcast: async (bytes, mode) => {
      try {
        const r = await rpc.call<Record<string, unknown>>(
          mode === "sync" ? "broadcast_tx_sync" : "broadcast_tx_async",
          {
            tx: Buffer.from(bytes).toString("base64"),
          },
        );
        return mode === "sync" ? txResultFromJson(r) : undefined;
      } catch (e) {
        return unavailable(e);
      }
    },
    search: async (query, page, perPage, order) => {
      try {
        const r = await rpc.call<{ txs?: unknown[]; total_count?: string }>("tx_search", {
          query,
          page: String(page),
          per_page: String(perPage),
          order_by: order,
        });
        const txs = [];
        for (const t of r.txs ?? []) txs.push(await served(t));
        return { txs, total: Number(r.total_count ?? 0) };
      } catch (e) {
        return unavailable(e);
      }
    },
  };
}
