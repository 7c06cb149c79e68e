import type { ChainNode } from "../../chain/chain-node.js";
import type { BlockStore } from "../../consensus/block-store.js";
import { COMET_CHANNELS, COMET_PROTOCOL, COMET_VERSION } from "../../consensus/comet-version.js";
import { rfc3339 } from "../../consensus/rfc3339.js";
import type { ValidatorSigner } from "../../consensus/validator-signer.js";
import { hexUpper, pubKeyJson, validatorJson } from "./comet-json.js";
import type { RpcMethod } from "./json-rpc-server.js";
import { heightParam, pageWithin, perPageParam } from "./rpc-params.js";

/** What CometBFT's `status` is made of; the RPC method and an offline `chaind status` both fill it in. */
export interface StatusSource {
  /** chaind's block store, or CometBFT's (comet-block-store-reader.ts) in a stopped home CometBFT drives. */
  blocks: Pick<BlockStore, "height" | "base" | "meta">;
  appVersion: number;
  chainId: string;
  moniker: string;
  rpcAddress: string;
  /** node_info.id: the node key's id (consensus/node-id.ts). */
  nodeId: string;
  signer: ValidatorSigner;
  votingPower: bigint;
}

/**
 * CometBFT's status, read from the block store as CometBFT does: the latest block is the last one saved, so a
 * node halted in block H (saved, not applied) reports H, and the app hash is the one that block's header carries.
 */
export async function cometStatus(s: StatusSource) {
  const { blocks, signer } = s;
  const latest = blocks.height;
  const [meta, first] = await Promise.all([
    latest > 0 ? blocks.meta(latest) : undefined,
    blocks.base > 0 ? blocks.meta(blocks.base) : undefined,
  ]);
  return {
    node_info: {
      protocol_version: {
        p2p: String(COMET_PROTOCOL.p2p),
        block: String(COMET_PROTOCOL.block),
        app: String(s.appVersion),
      },
      id: s.nodeId,
      listen_addr: s.rpcAddress,
      network: s.chainId,
      version: COMET_VERSION,
      channels: COMET_CHANNELS,
      moniker: s.moniker,
      other: { tx_index: "on", rpc_address: s.rpcAddress },
    },
    sync_info: {
      latest_block_hash: hexUpper(meta?.blockId?.hash),
      latest_app_hash: hexUpper(meta?.header?.appHash),
      latest_block_height: String(latest),
      latest_block_time: rfc3339(meta?.header?.time),
      earliest_block_hash: hexUpper(first?.blockId?.hash),
      earliest_app_hash: hexUpper(first?.header?.appHash),
      earliest_block_height: String(first ? blocks.base : 0),
      earliest_block_time: rfc3339(first?.header?.time),
      catching_up: false,
    },
    validator_info: {
      address: hexUpper(signer.address),
      pub_key: pubKeyJson(signer.pubKey),
      voting_power: String(s.votingPower),
    },
  };
}

/** `health`, `status` and `validators`: the node, its sync state and its (one) validator. */
export function statusMethods(node: ChainNode): Record<string, RpcMethod> {
  const { app, blocks, signer, chainId } = node;
  return {
    health: { params: [], run: async () => ({}) },
    status: {
      params: [],
      run: () =>
        cometStatus({
          blocks,
          appVersion: app.info().appVersion,
          chainId,
          moniker: node.nodeConfig.moniker,
          rpcAddress: node.nodeConfig.rpc.laddr,
          nodeId: node.nodeId,
          signer,
          votingPower: node.votingPower(),
        }),
    },
    validators: {
      params: ["height", "page", "per_page"],
      run: async (p) => {
        const height = heightParam(p, blocks.height);
        // One validator: page 1 holds it whatever per_page is; CometBFT refuses any later page.
        pageWithin(p, perPageParam(p), 1);
        return {
          block_height: String(height),
          validators: [validatorJson(signer, node.votingPower())],
          count: "1",
          total: "1",
        };
      },
    },
  };
}
