import { existsSync } from "node:fs";
import { cometNodeId } from "@chaind/core/comet-address";
import type { HomeLayout } from "../config/home-layout.js";
import { readNodeKey } from "../config/node-key.js";
import type { ValidatorSigner } from "./validator-signer.js";

/**
 * The node id chaind reports (RPC `status` node_info.id, gRPC GetNodeInfo default_node_id) and `comet
 * show-node-id` prints: the id of `config/node_key.json`, as CometBFT's; a home made before chaind wrote one
 * reports its validator key's id (visor accepts either).
 */
export function nodeIdOf(layout: HomeLayout, signer: ValidatorSigner): string {
  return cometNodeId(existsSync(layout.nodeKey) ? readNodeKey(layout.nodeKey) : signer.pubKey);
}
