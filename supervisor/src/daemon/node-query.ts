import type { UpgradePlan } from "./upgrade-info.js";

/** Who a server on a node's port says it is: CometBFT's `network` (the chain id) and node id. */
export interface AnsweringNode {
  chainId: string;
  nodeId: string;
}

/** One way of asking a running node what visor needs: who it is, its latest height and its scheduled plan. */
export interface NodeQuery {
  /** For logs and errors: "gRPC 127.0.0.1:9090". */
  readonly label: string;
  nodeInfo(): Promise<AnsweringNode>;
  height(): Promise<number>;
  currentPlan(): Promise<UpgradePlan | null>;
  /** Lets go of a connection the transport keeps open. */
  close?(): void;
}

/** How long one query may take before the next transport is tried. */
export const NODE_QUERY_TIMEOUT_MS = 5_000;

/** The largest answer visor reads from a node's port (plans and node info are a few kilobytes). */
export const NODE_QUERY_MAX_BYTES = 1024 * 1024;
