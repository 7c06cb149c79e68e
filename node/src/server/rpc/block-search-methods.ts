import { TurnTaker } from "../../app/event-loop-turn.js";
import type { ChainNode } from "../../chain/chain-node.js";
import { flatAttributes } from "./comet-events.js";
import { base64Length, blockIdJson, blockJson } from "./comet-json.js";
import { EventQuery, EventQueryError } from "./event-query.js";
import { JsonRpcError } from "./json-rpc-error.js";
import { JsonText, type RpcMethod } from "./json-rpc-server.js";
import { pageWithin, perPageParam, str } from "./rpc-params.js";

/**
 * `block_search`: blocks whose FinalizeBlock events match a query in CometBFT's language (the subscriptions'
 * parser), `block.height` included. CometBFT keeps an index of those events; here each block's stored results
 * are read over the heights the query allows, so a query bounded by `block.height` reads only that range.
 */
export function blockSearchMethods(node: ChainNode): Record<string, RpcMethod> {
  const { blocks } = node;
  return {
    block_search: {
      params: ["query", "page", "per_page", "order_by"],
      large: true,
      run: async (p, call) => {
        let query: EventQuery;
        try {
          query = EventQuery.parse(str(p, "query"));
        } catch (e) {
          if (e instanceof EventQueryError)
            throw JsonRpcError.internal(`failed to parse query: ${e.message}`);
          throw e;
        }
        const order = str(p, "order_by", false);
        if (order !== "" && order !== "asc" && order !== "desc")
          throw JsonRpcError.internal("expected order_by to be either `asc` or `desc` or empty");
        const perPage = perPageParam(p);
        // A block saved but not yet applied has no results yet.
        const applied = blocks.unappliedHeight === undefined ? blocks.height : blocks.height - 1;
        const { min, max } = query.range("block.height", Math.max(blocks.base, 1), applied);
        const heightsOnly = query.onlyOn("block.height");
        const turns = new TurnTaker(call.signal);
        const found: number[] = [];
        for (let h = min; h <= max; h++) {
          await turns.step();
          const results = heightsOnly ? undefined : await blocks.results(h);
          const events = { ...flatAttributes(results?.events ?? []), "block.height": [String(h)] };
          if (query.matches(events)) found.push(h);
        }
        // CometBFT lists the newest first unless asked otherwise.
        if (order !== "asc") found.reverse();
        const page = pageWithin(p, perPage, found.length);
        const parts: string[] = [];
        let size = 0;
        for (const h of found.slice((page - 1) * perPage, page * perPage)) {
          await turns.step();
          const [block, meta] = await Promise.all([blocks.block(h), blocks.meta(h)]);
          if (!block || !meta) continue;
          // Judged on the txs before the JSON is built: they are nearly all of it.
          const txsJson = (block.data?.txs ?? []).reduce((n, tx) => n + base64Length(tx.length) + 3, 0);
          if (size + txsJson > call.maxResultBytes)
            throw JsonRpcError.internal(
              `the blocks of this page exceed max_response_bytes (${call.maxResultBytes}) at block ${h}; ask for fewer per page (per_page)`,
            );
          const text = JSON.stringify({ block_id: blockIdJson(meta.blockId), block: blockJson(block) });
          size += Buffer.byteLength(text);
          parts.push(text);
        }
        return new JsonText(`{"blocks":[${parts.join(",")}],"total_count":"${found.length}"}`);
      },
    },
  };
}
