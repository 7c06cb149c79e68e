import type { Worker } from "node:worker_threads";
import type { Logger } from "@chaind/core/logger";
import type { NodeCore } from "../chain/node-app.js";

/** A listener serving a running node (RPC, gRPC, REST, metrics). */
export interface NodeServer {
  readonly name: string;
  /** Where it listens, for the start-up log and for clients (`http://127.0.0.1:26657`). */
  readonly address: string;
  close(): Promise<void>;
}

/** What listeners start with: the logger, and the RPC's HTTP thread when `chaind start` spawned it early. */
export interface NodeServerDeps {
  logger: Logger;
  rpcThread?: Worker;
}

/** Starts one kind of listener for a node, or answers null when its config switches it off. */
export type NodeServerFactory<N extends NodeCore = NodeCore> = (
  node: N,
  deps: NodeServerDeps,
) => Promise<NodeServer | null>;
