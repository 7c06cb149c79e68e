import type { NodeQuery } from "./node-query.js";
import { GrpcNodeQuery } from "./node-query-grpc.js";
import { RestNodeQuery } from "./node-query-rest.js";
import { RpcNodeQuery } from "./node-query-rpc.js";
import type { UpgradePlan } from "./upgrade-info.js";
import { VisorError } from "./visor-error.js";

/**
 * What visor asks a running node: its latest height (batch upgrades) and its scheduled plan (pre-fetch). It
 * asks over gRPC first, as cosmovisor does, then the REST gateway, then the CometBFT RPC, and keeps to the
 * first one that answered, so a node with gRPC off or on another port is still followed.
 */
export class NodeApi {
  private readonly transports: NodeQuery[];
  private preferred = 0;

  constructor(addresses: { grpc: string; rest: string; rpc: string }) {
    this.transports = [
      new GrpcNodeQuery(addresses.grpc),
      new RestNodeQuery(addresses.rest),
      new RpcNodeQuery(addresses.rpc),
    ];
  }

  /** The transport that answered last, for logs and status. */
  get via(): string {
    return this.transports[this.preferred].label;
  }

  private async ask<T>(what: (q: NodeQuery) => Promise<T>): Promise<T> {
    const failures: string[] = [];
    const n = this.transports.length;
    for (let i = 0; i < n; i++) {
      const at = (this.preferred + i) % n;
      try {
        const answer = await what(this.transports[at]);
        this.preferred = at;
        return answer;
      } catch (e) {
        failures.push((e as Error).message);
      }
    }
    throw new VisorError("NODE_API", `the node did not answer: ${failures.join("; ")}`);
  }

  height(): Promise<number> {
    return this.ask((q) => q.height());
  }

  currentPlan(): Promise<UpgradePlan | null> {
    return this.ask((q) => q.currentPlan());
  }

  close(): void {
    for (const t of this.transports) t.close?.();
  }
}
