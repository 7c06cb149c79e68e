import { parseListenAddress } from "../listen-address.js";
import type { NodeServerFactory } from "../node-server.js";
import { JsonRpcServer } from "./json-rpc-server.js";
import { rpcMethods } from "./rpc-methods.js";

/** The CometBFT-compatible JSON-RPC listener on config.toml's `rpc.laddr` (empty laddr switches it off). */
export const startRpcServer: NodeServerFactory = async (node, deps) => {
  const { laddr, maxBodyBytes, readTimeoutMs } = node.nodeConfig.rpc;
  if (!laddr) return null;
  const { host, port } = parseListenAddress(laddr, "config.toml rpc.laddr");
  const server = await JsonRpcServer.start({ host, port, maxBodyBytes, readTimeoutMs }, rpcMethods(node), {
    logger: deps.logger.child("rpc"),
  });
  return { name: "rpc", address: server.address, close: () => server.close() };
};
