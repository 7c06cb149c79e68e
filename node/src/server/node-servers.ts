import { ChainNode } from "../chain/chain-node.js";
import type { CometNode } from "../chain/comet-node.js";
import { startGrpcServer } from "./grpc/grpc-server.js";
import { startMetricsServer } from "./metrics/metrics-server.js";
import type { NodeServer, NodeServerDeps, NodeServerFactory } from "./node-server.js";
import { fitListenersToOpenFiles } from "./open-file-budget.js";
import { startRestServer } from "./rest/rest-server.js";
import { startRpcServer } from "./rpc/rpc-server.js";

/** The listeners a node runs whichever engine makes its blocks, in start order. */
const SHARED: NodeServerFactory[] = [startGrpcServer, startRestServer, startMetricsServer];

/**
 * Starts the node's listeners side by side (the RPC's thread takes a while to boot) and logs them in start order;
 * if one fails (port taken), the others are closed again and the first failure in that order is thrown. Their
 * connection caps are first fitted to the process's open-file limit.
 */
export async function startNodeServers(
  node: ChainNode | CometNode,
  deps: NodeServerDeps,
): Promise<NodeServer[]> {
  fitListenersToOpenFiles(node, deps.logger);
  // Under CometBFT the RPC is CometBFT's own.
  const starting = [
    ...(node instanceof ChainNode ? [startRpcServer(node, deps)] : []),
    ...SHARED.map((factory) => factory(node, deps)),
  ];
  const results = await Promise.allSettled(starting);
  const started = results.flatMap((r) => (r.status === "fulfilled" && r.value ? [r.value] : []));
  const failure = results.find((r) => r.status === "rejected");
  if (failure) {
    await closeNodeServers(started);
    throw failure.reason;
  }
  for (const server of started) deps.logger.info(`${server.name} listening`, { address: server.address });
  return started;
}

export async function closeNodeServers(servers: readonly NodeServer[]): Promise<void> {
  await Promise.allSettled([...servers].reverse().map((s) => s.close()));
}
