import { txHash } from "../../app/tx-hash.js";
import type { ChainNode } from "../../chain/chain-node.js";
import { parseTxQuery, searchTxs } from "../../consensus/tx-search.js";
import { base64, hexUpper, txResultJson } from "./comet-json.js";
import { JsonRpcError } from "./json-rpc-error.js";
import type { RpcMethod } from "./json-rpc-server.js";
import { hashParam, paging, str } from "./rpc-params.js";

/** `tx` and `tx_search`: committed txs by hash and by event query. */
export function txMethods(node: ChainNode): Record<string, RpcMethod> {
  const { blocks } = node;

  async function txAt(height: number, index: number) {
    const [block, results] = await Promise.all([blocks.block(height), blocks.results(height)]);
    const tx = block?.data?.txs[index];
    const result = results?.txResults[index];
    if (!tx || !result) throw JsonRpcError.internal(`tx ${height}/${index} is missing from the block store`);
    return {
      hash: hexUpper(txHash(tx)),
      height: String(height),
      index,
      tx_result: txResultJson(result),
      tx: base64(tx),
    };
  }

  return {
    tx: {
      params: ["hash", "prove"],
      run: async (p) => {
        const hash = hashParam(p);
        const loc = await blocks.txLocation(hash);
        if (!loc) throw JsonRpcError.internal(`tx (${hexUpper(hash)}) not found`);
        return txAt(loc.height, loc.index);
      },
    },
    tx_search: {
      params: ["query", "prove", "page", "per_page", "order_by"],
      run: async (p) => {
        const order = str(p, "order_by", false) || "asc";
        if (order !== "asc" && order !== "desc")
          throw JsonRpcError.invalidParams(`order_by must be "asc" or "desc", got ${JSON.stringify(order)}`);
        let conditions: ReturnType<typeof parseTxQuery>;
        try {
          conditions = parseTxQuery(str(p, "query"));
        } catch (e) {
          throw JsonRpcError.invalidParams((e as Error).message);
        }
        const found = await searchTxs(blocks, conditions, { ...paging(p), order });
        return {
          txs: await Promise.all(found.locations.map((l) => txAt(l.height, l.index))),
          total_count: String(found.total),
        };
      },
    },
  };
}
