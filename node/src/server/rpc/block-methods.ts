import type { ChainNode } from "../../chain/chain-node.js";
import {
  base64,
  base64Length,
  blockIdJson,
  blockJson,
  blockMetaJson,
  commitJson,
  eventsJson,
  headerJson,
  txResultJson,
} from "./comet-json.js";
import { JsonRpcError } from "./json-rpc-error.js";
import type { RpcCall, RpcMethod } from "./json-rpc-server.js";
import { hashParam, heightParam, optInt } from "./rpc-params.js";

/** `block`, `block_by_hash`, `header`, `header_by_hash`, `block_results`, `commit` and `blockchain`: the block store's. */
export function blockMethods(node: ChainNode): Record<string, RpcMethod> {
  const { blocks, store } = node;

  async function blockAt(height: number, call: RpcCall) {
    const [block, meta] = await Promise.all([blocks.block(height), blocks.meta(height)]);
    if (!block || !meta) throw JsonRpcError.internal(`block ${height} is not available`);
    // Judged before the JSON is built: the txs, as base64, are nearly all of it.
    const txsJson = (block.data?.txs ?? []).reduce((n, tx) => n + base64Length(tx.length) + 3, 0);
    if (txsJson > call.maxResultBytes)
      throw JsonRpcError.internal(
        `block ${height} cannot be sent: its txs alone take ${txsJson} bytes of JSON, more than max_response_bytes (${call.maxResultBytes}) in config.toml [rpc]`,
      );
    return { block_id: blockIdJson(meta.blockId), block: blockJson(block) };
  }

  return {
    block: {
      params: ["height"],
      large: true,
      run: async (p, call) => blockAt(heightParam(p, blocks.height), call),
    },
    block_by_hash: {
      params: ["hash"],
      large: true,
      run: async (p, call) => {
        const h = await blocks.heightByHash(hashParam(p));
        if (h === undefined) return { block_id: blockIdJson(undefined), block: null };
        return blockAt(h, call);
      },
    },
    header: {
      params: ["height"],
      run: async (p) => {
        const meta = await blocks.meta(heightParam(p, blocks.height));
        return { header: meta ? headerJson(meta.header) : null };
      },
    },
    header_by_hash: {
      params: ["hash"],
      run: async (p) => {
        const h = await blocks.heightByHash(hashParam(p));
        const meta = h === undefined ? undefined : await blocks.meta(h);
        return { header: meta ? headerJson(meta.header) : null };
      },
    },
    block_results: {
      params: ["height"],
      large: true,
      run: async (p) => {
        const height = heightParam(p, blocks.height);
        const r = await blocks.results(height);
        if (!r) throw JsonRpcError.internal(`results for height ${height} are not available`);
        return {
          height: String(height),
          txs_results: r.txResults.map(txResultJson),
          finalize_block_events: eventsJson(r.events),
          validator_updates: [],
          consensus_param_updates: null,
          app_hash: base64((await blocks.meta(height + 1))?.header?.appHash ?? store.latestAppHash),
        };
      },
    },
    commit: {
      params: ["height"],
      run: async (p) => {
        const height = heightParam(p, blocks.height);
        const meta = await blocks.meta(height);
        if (!meta) throw JsonRpcError.internal(`block ${height} is not available`);
        // A block's commit is in the next block; the latest one's is the validator's own precommit.
        const next = await blocks.block(height + 1);
        const commit = next?.lastCommit ?? (await node.producer.seenCommit(height));
        if (!commit) throw JsonRpcError.internal(`the commit of block ${height} is not available`);
        return {
          signed_header: { header: headerJson(meta.header), commit: commitJson(commit) },
          canonical: next !== undefined,
        };
      },
    },
    blockchain: {
      params: ["minHeight", "maxHeight"],
      run: async (p) => {
        const latest = blocks.height;
        const max = Math.min(optInt(p, "maxHeight") || latest, latest);
        const min = Math.max(optInt(p, "minHeight") || 1, 1, max - 19);
        if (min > max)
          throw JsonRpcError.invalidParams(`min height ${min} can't be greater than max height ${max}`);
        const metas = [];
        for (let h = max; h >= min; h--) {
          const m = await blocks.meta(h);
          if (m) metas.push(blockMetaJson(m));
        }
        return { last_height: String(latest), block_metas: metas };
      },
    },
  };
}
