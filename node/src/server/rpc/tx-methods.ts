import { TurnTaker } from "../../app/event-loop-turn.js";
import { txHash } from "../../app/tx-hash.js";
import type { ChainNode } from "../../chain/chain-node.js";
import { type CommittedTx, CommittedTxReader } from "../../consensus/committed-tx-reader.js";
import { parseTxQuery, searchTxs } from "../../consensus/tx-search.js";
import { base64, base64Length, hexUpper, txResultJson } from "./comet-json.js";
import { JsonRpcError } from "./json-rpc-error.js";
import { JsonText, type RpcMethod } from "./json-rpc-server.js";
import { hashParam, paging, str } from "./rpc-params.js";

/** A committed tx as CometBFT's ResultTx prints it. */
function txJson(t: CommittedTx) {
  return {
    hash: hexUpper(txHash(t.bytes)),
    height: String(t.height),
    index: t.index,
    tx_result: txResultJson(t.result),
    tx: base64(t.bytes),
  };
}

/** `tx` and `tx_search`: committed txs by hash and by event query. */
export function txMethods(node: ChainNode): Record<string, RpcMethod> {
  const { blocks } = node;
  const missing = (height: number, index: number) =>
    JsonRpcError.internal(`tx ${height}/${index} is missing from the block store`);

  return {
    tx: {
      params: ["hash", "prove"],
      run: async (p) => {
        const hash = hashParam(p);
        const loc = await blocks.txLocation(hash);
        if (!loc) throw JsonRpcError.internal(`tx (${hexUpper(hash)}) not found`);
        const t = await new CommittedTxReader(blocks).at(loc);
        if (!t) throw missing(loc.height, loc.index);
        return txJson(t);
      },
    },
    tx_search: {
      params: ["query", "prove", "page", "per_page", "order_by"],
      large: true,
      run: async (p, call) => {
        const order = str(p, "order_by", false) || "asc";
        if (order !== "asc" && order !== "desc")
          throw JsonRpcError.invalidParams(`order_by must be "asc" or "desc", got ${JSON.stringify(order)}`);
        let conditions: ReturnType<typeof parseTxQuery>;
        try {
          conditions = parseTxQuery(str(p, "query"));
        } catch (e) {
          throw JsonRpcError.invalidParams((e as Error).message);
        }
        const found = await searchTxs(blocks, conditions, { ...paging(p), order, signal: call.signal });
        // The page is built a tx at a time and measured as it grows: one that would pass the answer cap stops
        // there, before the rest is read. An error, not a shorter page: pages are positional (page 2 starts at
        // per_page), so a client given fewer would skip the txs left out.
        const reader = new CommittedTxReader(blocks);
        const turns = new TurnTaker(call.signal);
        const parts: string[] = [];
        let size = 0;
        for (const [i, loc] of found.locations.entries()) {
          await turns.step();
          const t = await reader.at(loc);
          if (!t) throw missing(loc.height, loc.index);
          // txJson's fields in its order; the tx's base64 is measured before it is encoded, and spliced in
          // rather than copied again by JSON.stringify.
          const head = `{"hash":"${hexUpper(txHash(t.bytes))}","height":"${t.height}","index":${t.index},"tx_result":${JSON.stringify(txResultJson(t.result))},"tx":"`;
          size += Buffer.byteLength(head) + base64Length(t.bytes.length) + 3;
          if (size > call.maxResultBytes)
            throw JsonRpcError.internal(
              `the txs of this page exceed max_response_bytes (${call.maxResultBytes}) at tx ${i + 1} of ${found.locations.length}; ask for fewer per page (per_page)`,
            );
          parts.push(`${head}${base64(t.bytes)}"}`);
        }
        return new JsonText(`{"txs":[${parts.join(",")}],"total_count":"${found.total}"}`);
      },
    },
  };
}
