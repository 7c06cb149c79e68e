import type { Logger } from "@chaind/core/logger";
import type { ChainNode } from "../chain/chain-node.js";

/** A listener serving a running node (RPC, gRPC, REST, metrics). */
export interface NodeServer {
  readonly name: string;
  /** Where it listens, for the start-up log and for clients (`http://127.0.0.1:26657`). */
  readonly address: string;
  close(): Promise<void>;
}

/** Starts one kind of listener for a node, or answers null when its config switches it off. */
export type NodeServerFactory = (node: ChainNode, deps: { logger: Logger }) => Promise<NodeServer | null>;
