import type { ChainNode } from "../../chain/chain-node.js";
import { JsonRpcError } from "./json-rpc-error.js";
import type { RpcMethod } from "./json-rpc-server.js";

/** CometBFT's unsafe routes, served only with `rpc.unsafe = true`; the embedded engine has none of them. */
const UNSAFE_METHODS = ["dial_seeds", "dial_peers", "unsafe_flush_mempool"] as const;

/**
 * `net_info` and `broadcast_evidence`, and CometBFT's unsafe routes: the embedded engine runs one validator with
 * no peer-to-peer layer, so it has no listener, no peers, and no evidence pool to add to.
 */
export function netMethods(_node: ChainNode): Record<string, RpcMethod> {
  const methods: Record<string, RpcMethod> = {
    net_info: {
      params: [],
      run: async () => ({ listening: false, listeners: [], n_peers: "0", peers: [] }),
    },
    broadcast_evidence: {
      params: ["evidence"],
      run: async (p) => {
        if (p.evidence === undefined || p.evidence === null)
          throw JsonRpcError.internal("no evidence was provided");
        throw JsonRpcError.internal(
          "failed to add evidence: this node runs the embedded engine, one validator with no peers and no evidence pool",
        );
      },
    },
  };
  // As CometBFT without rpc.unsafe: "Method not found", left out of the method list, but saying why.
  for (const name of UNSAFE_METHODS)
    methods[name] = {
      params: [],
      unlisted: true,
      run: async () => {
        throw JsonRpcError.methodNotFound(
          `${name} is one of CometBFT's unsafe methods (served with rpc.unsafe = true); the embedded engine serves none of them`,
        );
      },
    };
  return methods;
}
