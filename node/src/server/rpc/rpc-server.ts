import { parseListenAddress } from "@chaind/core/listen-address";
import type { ChainNode } from "../../chain/chain-node.js";
import type { NodeServerFactory } from "../node-server.js";
import { DEFAULT_RPC_WRITE_TIMEOUT_MS, JsonRpcServer } from "./json-rpc-server.js";
import { rpcMethods } from "./rpc-methods.js";

/** The CometBFT-compatible JSON-RPC listener on config.toml's `rpc.laddr` (empty laddr switches it off). */
export const startRpcServer: NodeServerFactory<ChainNode> = async (node, deps) => {
  const {
    laddr,
    maxBodyBytes,
    readTimeoutMs,
    timeoutBroadcastTxCommitMs,
    maxOpenConnections,
    maxRequestBatchSize,
    maxResponseBytes,
    maxSubscriptionClients,
    maxSubscriptionsPerClient,
    subscriptionBufferSize,
    webSocketWriteBufferSize,
    closeOnSlowClient,
  } = node.nodeConfig.rpc;
  if (!laddr) {
    // Switched off: the thread `chaind start` spawned ahead is not needed.
    await deps.rpcThread?.terminate();
    return null;
  }
  const { host, port } = parseListenAddress(laddr, "config.toml rpc.laddr");
  // As CometBFT: broadcast_tx_commit may wait timeout_broadcast_tx_commit, so the answer gets a second more.
  const writeTimeoutMs = Math.max(DEFAULT_RPC_WRITE_TIMEOUT_MS, timeoutBroadcastTxCommitMs + 1000);
  const server = await JsonRpcServer.start(
    {
      host,
      port,
      maxBodyBytes,
      readTimeoutMs,
      writeTimeoutMs,
      maxOpenConnections,
      maxBatchSize: maxRequestBatchSize,
      maxResponseBytes,
      websocket: {
        maxSubscriptionClients,
        maxSubscriptionsPerClient,
        subscriptionBufferSize,
        writeBufferSize: webSocketWriteBufferSize,
        closeOnSlowClient,
      },
    },
    rpcMethods(node),
    { logger: deps.logger.child("rpc"), thread: deps.rpcThread, commits: node.producer },
  );
  return { name: "rpc", address: server.address, close: () => server.close() };
};
