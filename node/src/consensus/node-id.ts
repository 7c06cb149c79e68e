import { cometNodeId } from "@chaind/core/comet-address";
import type { ValidatorSigner } from "./validator-signer.js";

/**
 * The node id chaind reports (RPC `status` node_info.id, gRPC GetNodeInfo default_node_id) and `comet
 * show-node-id` prints: the id of its validator key. chaind has no p2p layer and so no node_key.json, whose id a
 * CometBFT node reports instead (visor accepts either).
 */
export function nodeIdOf(signer: ValidatorSigner): string {
  return cometNodeId(signer.pubKey);
}
