import type { UpgradePlan } from "./upgrade-info.js";

/** One way of asking a running node what visor needs: its latest height and its scheduled plan. */
export interface NodeQuery {
  /** For logs and errors: "gRPC 127.0.0.1:9090". */
  readonly label: string;
  height(): Promise<number>;
  currentPlan(): Promise<UpgradePlan | null>;
  /** Lets go of a connection the transport keeps open. */
  close?(): void;
}

/** How long one query may take before the next transport is tried. */
export const NODE_QUERY_TIMEOUT_MS = 5_000;
