import type { Logger } from "@chaind/core/logger";
import type { ChainNode } from "../chain/chain-node.js";
import { startGrpcServer } from "./grpc/grpc-server.js";
import { startMetricsServer } from "./metrics/metrics-server.js";
import type { NodeServer, NodeServerFactory } from "./node-server.js";
import { startRestServer } from "./rest/rest-server.js";
import { startRpcServer } from "./rpc/rpc-server.js";

/** Every listener `chaind start` runs, in start order. */
const FACTORIES: NodeServerFactory[] = [startRpcServer, startGrpcServer, startRestServer, startMetricsServer];

/** Starts the node's listeners; if one fails (port taken), those already started are closed again. */
export async function startNodeServers(node: ChainNode, deps: { logger: Logger }): Promise<NodeServer[]> {
  const started: NodeServer[] = [];
  try {
    for (const factory of FACTORIES) {
      const server = await factory(node, deps);
      if (!server) continue;
      started.push(server);
      deps.logger.info(`${server.name} listening`, { address: server.address });
    }
  } catch (e) {
    await closeNodeServers(started);
    throw e;
  }
  return started;
}

export async function closeNodeServers(servers: readonly NodeServer[]): Promise<void> {
  await Promise.allSettled([...servers].reverse().map((s) => s.close()));
}
