import { toHex } from "@chaind/core/hex";
import type { ChainNode } from "../../chain/chain-node.js";
import { COMET_CHANNELS, COMET_PROTOCOL, COMET_VERSION } from "../../consensus/comet-version.js";
import { rfc3339 } from "../../consensus/rfc3339.js";
import { hexUpper, pubKeyJson, validatorJson } from "./comet-json.js";
import type { RpcMethod } from "./json-rpc-server.js";
import { heightParam, paging } from "./rpc-params.js";

/** `health`, `status` and `validators`: the node, its sync state and its (one) validator. */
export function statusMethods(node: ChainNode): Record<string, RpcMethod> {
  const { app, blocks, store, signer, chainId } = node;
  const nodeId = toHex(signer.address);
  return {
    health: { params: [], run: async () => ({}) },
    status: {
      params: [],
      run: async () => {
        const latest = blocks.height;
        const [meta, first] = await Promise.all([
          latest > 0 ? blocks.meta(latest) : undefined,
          latest > 0 ? blocks.meta(1) : undefined,
        ]);
        return {
          node_info: {
            protocol_version: {
              p2p: String(COMET_PROTOCOL.p2p),
              block: String(COMET_PROTOCOL.block),
              app: String(app.info().appVersion),
            },
            id: nodeId,
            listen_addr: node.nodeConfig.rpc.laddr,
            network: chainId,
            version: COMET_VERSION,
            channels: COMET_CHANNELS,
            moniker: node.nodeConfig.moniker,
            other: { tx_index: "on", rpc_address: node.nodeConfig.rpc.laddr },
          },
          sync_info: {
            latest_block_hash: hexUpper(meta?.blockId?.hash),
            latest_app_hash: hexUpper(store.latestAppHash),
            latest_block_height: String(latest),
            latest_block_time: rfc3339(meta?.header?.time),
            earliest_block_hash: hexUpper(first?.blockId?.hash),
            earliest_app_hash: hexUpper(first?.header?.appHash),
            earliest_block_height: String(first ? 1 : 0),
            earliest_block_time: rfc3339(first?.header?.time),
            catching_up: false,
          },
          validator_info: {
            address: hexUpper(signer.address),
            pub_key: pubKeyJson(signer.pubKey),
            voting_power: String(node.votingPower()),
          },
        };
      },
    },
    validators: {
      params: ["height", "page", "per_page"],
      run: async (p) => {
        const height = heightParam(p, blocks.height);
        const { page } = paging(p);
        return {
          block_height: String(height),
          validators: page === 1 ? [validatorJson(signer, node.votingPower())] : [],
          count: page === 1 ? "1" : "0",
          total: "1",
        };
      },
    },
  };
}
