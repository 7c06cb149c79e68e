import type { Logger } from "@chaind/core/logger";
import type { NodeListenAddresses } from "../config/node-listen-addresses.js";
import type { VisorConfig } from "../config/visor-config.js";
import { VisorError } from "../errors/visor-error.js";
import { homeIdentity, type NodeIdentity } from "./node-identity.js";
import type { NodeQuery } from "./node-query.js";
import { GrpcNodeQuery } from "./node-query-grpc.js";
import { RestNodeQuery } from "./node-query-rest.js";
import { RpcNodeQuery } from "./node-query-rpc.js";
import { type UpgradePlan, validatePlan } from "./upgrade-info.js";

export interface NodeApiOptions {
  /** Where to ask; an empty address is a transport the node's config does not enable, never asked. */
  addresses: NodeListenAddresses;
  /** Who the node must be (the home's chain id and node ids), or why that is unknown, as of each question. */
  identity: () => NodeIdentity | { problem: string };
}

interface Transport {
  query: NodeQuery;
  /** What differed the last time it was checked; null when it was this home's node (or never checked). */
  differs: string | null;
}

/**
 * What visor asks a running node: its latest height (batch upgrades) and its scheduled plan (pre-fetch). It
 * asks only the transports the node's config enables, gRPC first as cosmovisor does, then the REST gateway,
 * then the CometBFT RPC, and keeps to the first that answered. Before every question it asks who answers
 * (GetNodeInfo, or RPC `status`) and believes only the home's own node: the chain id of its genesis and a node
 * id of its keys. Anyone may listen on a port the node does not hold; what such a server says is never used.
 */
export class NodeApi {
  private readonly transports: Transport[];
  private preferred = 0;
  private warned: string | null = null;

  constructor(
    private readonly opts: NodeApiOptions,
    private readonly deps: { logger: Logger },
  ) {
    const { grpc, rest, rpc } = opts.addresses;
    const queries: NodeQuery[] = [];
    if (grpc) queries.push(new GrpcNodeQuery(grpc));
    if (rest) queries.push(new RestNodeQuery(rest));
    if (rpc) queries.push(new RpcNodeQuery(rpc));
    this.transports = queries.map((query) => ({ query, differs: null }));
  }

  /** The API of the node in `config.home`, at the addresses the settings give. */
  static forHome(
    config: Pick<VisorConfig, "home" | "grpcAddress" | "restAddress" | "rpcAddress">,
    deps: { logger: Logger },
  ): NodeApi {
    return new NodeApi(
      {
        addresses: { grpc: config.grpcAddress, rest: config.restAddress, rpc: config.rpcAddress },
        identity: homeIdentity(config.home),
      },
      deps,
    );
  }

  /** The transport that answered last, for logs and status. */
  get via(): string {
    return this.transports[this.preferred]?.query.label ?? "none";
  }

  /** Who the node must be now; or, when nothing can be asked, why (logged once per reason). */
  private expected(): NodeIdentity | { why: string } {
    const identity = this.opts.identity();
    const why =
      "problem" in identity
        ? `who answers cannot be checked: ${identity.problem}`
        : this.transports.length === 0
          ? "the node's config enables none of gRPC ([grpc] enable), REST ([api] enable) and RPC ([rpc] laddr)"
          : null;
    if (why && this.warned !== why)
      this.deps.logger.warn("not asking the node's API for heights or plans", { reason: why });
    else if (!why && this.warned)
      this.deps.logger.info("the home's identity is readable now: asking its node's API");
    this.warned = why;
    return why ? { why } : (identity as NodeIdentity);
  }

  /** What differs between the server that answers on `q` and the home's node; null when it is that node. */
  private async differences(q: NodeQuery, id: NodeIdentity): Promise<string | null> {
    const who = await q.nodeInfo();
    const found: string[] = [];
    if (who.chainId !== id.chainId)
      found.push(
        `chain id ${JSON.stringify(who.chainId)} (the home's genesis: ${JSON.stringify(id.chainId)})`,
      );
    if (!id.nodeIds.some((n) => n.id === who.nodeId.toLowerCase()))
      found.push(
        `node id ${JSON.stringify(who.nodeId)} (the home's keys: ${id.nodeIds.map((n) => `${n.id} in ${n.file}`).join(", ")})`,
      );
    return found.length ? found.join("; ") : null;
  }

  private async ask<T>(what: (q: NodeQuery) => Promise<T>): Promise<T> {
    const id = this.expected();
    if ("why" in id) throw new VisorError("NODE_API", `not asking the node: ${id.why}`);
    const failures: string[] = [];
    const n = this.transports.length;
    for (let i = 0; i < n; i++) {
      const at = (this.preferred + i) % n;
      const t = this.transports[at];
      let differs: string | null;
      try {
        differs = await this.differences(t.query, id);
      } catch (e) {
        failures.push((e as Error).message);
        continue;
      }
      if (differs) {
        if (t.differs !== differs)
          this.deps.logger.warn("not trusting the server on the node's port: it is not this home's node", {
            via: t.query.label,
            answers: differs,
          });
        t.differs = differs;
        failures.push(`${t.query.label} answers ${differs}`);
        continue;
      }
      if (t.differs) this.deps.logger.info("the node's own server answers again", { via: t.query.label });
      t.differs = null;
      try {
        const answer = await what(t.query);
        this.preferred = at;
        return answer;
      } catch (e) {
        failures.push((e as Error).message);
      }
    }
    throw new VisorError("NODE_API", `the node did not answer: ${failures.join("; ")}`);
  }

  /** The latest height, from a server that proved to be the home's node just before. */
  height(): Promise<number> {
    return this.ask((q) => q.height());
  }

  /** The scheduled plan, likewise; only a cache of what upgrade-info.json will say at the halt. */
  currentPlan(): Promise<UpgradePlan | null> {
    return this.ask(async (q) => {
      const plan = await q.currentPlan();
      return plan ? validatePlan(plan, `the plan ${q.label} answers`) : null;
    });
  }

  close(): void {
    for (const t of this.transports) t.query.close?.();
  }
}
