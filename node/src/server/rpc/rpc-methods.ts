import type { ChainNode } from "../../chain/chain-node.js";
import { abciMethods } from "./abci-methods.js";
import { blockMethods } from "./block-methods.js";
import { blockSearchMethods } from "./block-search-methods.js";
import { consensusMethods } from "./consensus-methods.js";
import { genesisMethods } from "./genesis-methods.js";
import type { RpcMethod } from "./json-rpc-server.js";
import { mempoolMethods } from "./mempool-methods.js";
import { netMethods } from "./net-methods.js";
import { statusMethods } from "./status-methods.js";
import { txMethods } from "./tx-methods.js";

/** Each area of CometBFT's RPC the node answers, one file each. */
const AREAS: readonly ((node: ChainNode) => Record<string, RpcMethod>)[] = [
  statusMethods,
  abciMethods,
  mempoolMethods,
  txMethods,
  blockMethods,
  blockSearchMethods,
  genesisMethods,
  consensusMethods,
  netMethods,
];

/** Every method the node answers, keyed by CometBFT's name. */
export function rpcMethods(node: ChainNode): Map<string, RpcMethod> {
  const methods = new Map<string, RpcMethod>();
  for (const area of AREAS)
    for (const [name, method] of Object.entries(area(node))) {
      if (methods.has(name)) throw new Error(`RPC method ${name} is defined by two areas`);
      methods.set(name, method);
    }
  return methods;
}
